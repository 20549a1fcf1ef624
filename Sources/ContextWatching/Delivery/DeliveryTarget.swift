public import Dispatch

/// Where and when a watcher's deliveries run, as GRDB's schedulers do.
public struct DeliveryScheduler: Sendable {
  enum Kind: Sendable {
    case queue(DispatchQueue)
    case mainActor
    case immediate
  }

  let kind: Kind

  /// Deliveries run on `queue`, one at a time, in save order (the watcher
  /// targets a serial queue of its own at `queue`, so a concurrent queue is
  /// fine too).
  public static func queue(_ queue: DispatchQueue) -> DeliveryScheduler { DeliveryScheduler(kind: .queue(queue)) }

  /// Deliveries run on the main actor, in save order.
  public static let mainActor = DeliveryScheduler(kind: .mainActor)

  /// Deliveries run at once, on the thread that saved, before the save
  /// returns. Only for fast, non-blocking consumers: the saver waits for
  /// them.
  public static let immediate = DeliveryScheduler(kind: .immediate)
}

/// Receives a watcher's deliveries.
///
/// The watcher holds its delegate weakly. Conform a `@MainActor` type with a
/// `nonisolated` method that calls `MainActor.assumeIsolated` when the
/// scheduler is ``DeliveryScheduler/mainActor``.
///
/// ```swift
/// final class Recorder: ContextWatcherDelegate {
///   func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
///     print(changes.sequenceNumber, changes.inserted.count)
///   }
/// }
/// ```
public protocol ContextWatcherDelegate: AnyObject, Sendable {
  /// Called once per save that changed a watched object, on the watcher's
  /// scheduler, in save order.
  func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges)
}

/// What a watcher hands its deliveries to.
public struct DeliveryTarget: Sendable {
  enum Kind: Sendable {
    case delegate(WeakDelegate, DeliveryScheduler)
    case handler(DeliveryScheduler, @Sendable (ContextWatcher, ContextChanges) -> Void)
    case mainActorHandler(@MainActor (ContextChanges) -> Void)
    case stream
    /// Nothing but the watches' own handlers; the scheduler is theirs.
    case watchHandlersOnly(DeliveryScheduler)
  }

  let kind: Kind

  /// A delegate, held weakly, called on `scheduler`.
  public static func delegate(
    _ delegate: any ContextWatcherDelegate, on scheduler: DeliveryScheduler
  ) -> DeliveryTarget {
    DeliveryTarget(kind: .delegate(WeakDelegate(delegate), scheduler))
  }

  /// A closure called on `scheduler`.
  public static func handler(
    on scheduler: DeliveryScheduler, _ handler: @escaping @Sendable (ContextChanges) -> Void
  ) -> DeliveryTarget {
    DeliveryTarget(kind: .handler(scheduler, { _, changes in handler(changes) }))
  }

  /// A main-actor closure, called on the main actor.
  public static func mainActor(_ handler: @escaping @MainActor (ContextChanges) -> Void) -> DeliveryTarget {
    DeliveryTarget(kind: .mainActorHandler(handler))
  }

  /// Deliveries wait in ``ContextWatcher/changes`` for an async consumer
  /// (`for await changes in watcher.changes { … }`).
  public static let asyncSequence = DeliveryTarget(kind: .stream)

  /// The watcher delivers nothing itself: each watch's own ``WatchHandler``
  /// gets its objects, on `scheduler` unless the handler names another.
  /// Watches without a handler then report to no one.
  ///
  /// ```swift
  /// let watcher = ContextWatcher(context: context, target: .watchHandlers(on: .queue(.main)))
  /// let token = try watcher.watch("Person", where: "age > 60", handler: .changes { print($0.inserted) })
  /// ```
  public static func watchHandlers(on scheduler: DeliveryScheduler) -> DeliveryTarget {
    DeliveryTarget(kind: .watchHandlersOnly(scheduler))
  }

  /// Whether the watcher delivers anything to the target itself.
  var delivers: Bool {
    if case .watchHandlersOnly = kind { false } else { true }
  }

  /// Where the handlers of watches run when they name no scheduler: the
  /// target's scheduler, or for an async sequence (which has none) a serial
  /// queue of the handler's own on the global queue.
  var handlerScheduler: DeliveryScheduler {
    switch kind {
    case .delegate(_, let scheduler), .handler(let scheduler, _), .watchHandlersOnly(let scheduler): scheduler
    case .mainActorHandler: .mainActor
    case .stream: .queue(.global())
    }
  }
}

/// Holds a delegate weakly, so a watcher never keeps its delegate alive.
final class WeakDelegate: Sendable {
  weak let value: (any ContextWatcherDelegate)?

  init(_ value: any ContextWatcherDelegate) { self.value = value }
}
