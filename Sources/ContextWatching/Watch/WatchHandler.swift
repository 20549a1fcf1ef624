public import ObjectGraph

/// A watch's own recipient of what it saw, as KSCoreDataObserver gives each
/// registration its block: called once per save with the watch's objects
/// only (``changes(on:_:)``), or once per object with the event and the
/// changed keys (``eachObject(on:_:)``).
///
/// A handler runs on its own scheduler, or by default on the watcher's (a
/// watcher delivering to an async sequence has none: its watches' handlers
/// then run on a serial queue of their own that targets the global queue).
/// Each watch's calls come one at a time, in save order, exactly once per
/// save the watch saw something in. A handler that names a scheduler gets a
/// serial queue of its own and runs independently of the others; handlers
/// on the watcher's scheduler share one serial queue, so one slow handler
/// delays the others there. The watcher's own target still receives every
/// delivery (use ``DeliveryTarget/watchHandlers(on:)``
/// for a watcher that delivers to its watches' handlers only).
///
/// ```swift
/// let watcher = ContextWatcher(context: context, target: .watchHandlers(on: .queue(.main)))
/// let seniors = try watcher.watch(
///   "Person", where: "age >= 60",
///   handler: .eachObject { person, event, changedKeys in print(event, person, changedKeys) })
/// ```
public struct WatchHandler: Sendable {
  enum Body: Sendable {
    case changes(@Sendable (WatchChanges) -> Void)
    case eachObject(@Sendable (ObjectSnapshot, WatchEvent, [String]) -> Void)
  }

  /// The scheduler chosen, or nil for the watcher's.
  let scheduler: DeliveryScheduler?
  let body: Body

  /// A handler called once per save with the watch's objects.
  ///
  /// - Parameters:
  ///   - scheduler: Where it runs; nil (the default) for the watcher's
  ///     scheduler.
  ///   - handler: Called with the watch's changes, never empty.
  public static func changes(
    on scheduler: DeliveryScheduler? = nil, _ handler: @escaping @Sendable (WatchChanges) -> Void
  ) -> WatchHandler {
    WatchHandler(scheduler: scheduler, body: .changes(handler))
  }

  /// A handler called once per object the watch saw in a save, in
  /// identifier order, with the object (as the save left it; a deleted one
  /// on its last saved values), the event and the changed keys (empty for
  /// inserted and deleted objects).
  ///
  /// - Parameters:
  ///   - scheduler: Where it runs; nil (the default) for the watcher's
  ///     scheduler.
  ///   - handler: Called for each object.
  public static func eachObject(
    on scheduler: DeliveryScheduler? = nil,
    _ handler: @escaping @Sendable (_ object: ObjectSnapshot, _ event: WatchEvent, _ changedKeys: [String]) -> Void
  ) -> WatchHandler {
    WatchHandler(scheduler: scheduler, body: .eachObject(handler))
  }
}
