import Dispatch
public import ObjectGraph
public import Observation

/// One object's record as an `@Observable` model, kept up to date by a
/// ``RecordObjectMonitor`` on the main actor: what a SwiftUI view, or any
/// `withObservationTracking` user, reads to re-render when the object
/// changes.
///
/// ```swift
/// @MainActor
/// func badgeModel(_ context: ObjectContext, _ id: ObjectID) throws -> RecordObjectModel<Person> {
///   try RecordObjectModel(RecordObjectMonitor<Person>(context: context, objectID: id, scheduler: .mainActor))
/// }
/// ```
///
/// Each save the monitor reports changes the model once, in one main-actor
/// turn: one change notification per reported save, none for a save that
/// does not change the object. With the ``DeliveryScheduler/mainActor``
/// scheduler the model changes during the report; otherwise the report
/// hands the change to the main queue. When the object's new values do not
/// read as a record, the model keeps the record it last read and sets
/// ``error``.
@MainActor
@Observable
public final class RecordObjectModel<Record: EntityRecord & Sendable> {
  /// Everything the model shows, changed in one step per report.
  struct State {
    var record: Record?
    var isDeleted = false
    var changedKeys: [String] = []
    var error: ObjectGraphError?
    /// How many of the monitor's reports the state shows.
    var generation = 0
  }

  private var state = State()
  /// The monitor the model follows; it lives as long as the model.
  @ObservationIgnored public let monitor: RecordObjectMonitor<Record>
  @ObservationIgnored private var token: ObserverToken?

  /// Creates a model of the monitor's object, starting from its record,
  /// and following the monitor from now on.
  public init(_ monitor: RecordObjectMonitor<Record>) {
    self.monitor = monitor
    let onMainActor = monitor.untyped.deliversOnMainActor
    let following = monitor.follow { [weak self] signal in
      guard case .event(let event, let generation) = signal else { return }
      if onMainActor {
        MainActor.assumeIsolated { self?.apply(event, generation: generation) }
      } else {
        DispatchQueue.main.async { MainActor.assumeIsolated { self?.apply(event, generation: generation) } }
      }
    }
    var start = State()
    if let following {
      token = following.token
      start.generation = following.generation
      switch following.record {
      case .success(let record): start.record = record
      case .failure(let failure): start.error = failure
      case nil: start.isDeleted = true
      }
    } else {
      start.isDeleted = true
    }
    state = start
  }

  /// The object's latest record that read; nil once it is deleted (or when
  /// its first values did not read).
  public var record: Record? { state.record }

  /// Whether a save deleted the object.
  public var isDeleted: Bool { state.isDeleted }

  /// The keys the latest reported save changed, in schema order; empty
  /// before the first.
  public var changedKeys: [String] { state.changedKeys }

  /// Why the object's latest values could not be shown: they do not read as
  /// a record. Nil when they read.
  public var error: ObjectGraphError? { state.error }

  /// Waits until the changes of the saves made before the call are shown:
  /// the monitor's reports, then the model's turn on the main actor.
  public func flush() async {
    await monitor.flush()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async { continuation.resume() }
    }
  }

  private func apply(_ event: RecordObjectMonitorEvent<Record>, generation: Int) {
    // "Will update" changes nothing shown; a report the start had is shown.
    guard generation > state.generation else { return }
    state.apply(event, generation: generation)
  }
}

extension RecordObjectModel.State {
  /// Shows a report: an update or the deletion.
  mutating func apply(_ event: RecordObjectMonitorEvent<Record>, generation: Int) {
    self.generation = generation
    switch event {
    case .willUpdate:
      break
    case .didUpdate(let result, let changedKeys):
      self.changedKeys = changedKeys
      switch result {
      case .success(let read):
        record = read
        error = nil
      case .failure(let failure):
        error = failure
      }
    case .didDelete:
      record = nil
      isDeleted = true
      error = nil
    }
  }
}
