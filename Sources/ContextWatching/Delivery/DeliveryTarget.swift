import Dispatch

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
