import ObjectGraph

/// Where a watch with a handler of its own sends its changes: a handler's
/// body on a delivery queue, or, for a list monitor, a call on the saving
/// thread itself. Monitors make their own routes.
final class WatchRoute: Sendable {
  enum Target: Sendable {
    /// The handler's body, enqueued on the queue.
    case queued(MonitorDeliveryQueue, WatchHandler.Body)
    /// Called on the saving thread, after the save and inside the
    /// context's turn, once per save with the changes of every watch of
    /// this route that saw something (one route can serve several
    /// watches: a list monitor's list watch and its sort paths' watches).
    case saving(@Sendable ([WatchChanges]) -> Void)
    /// A coalesced watch's coalescer, which delivers to the watch's
    /// handler and to the watcher's target by the watch's policy.
    case coalescing(WatchCoalescer, handlerQueue: MonitorDeliveryQueue?)
  }

  let target: Target

  init(queue: MonitorDeliveryQueue, body: WatchHandler.Body) {
    target = .queued(queue, body)
  }

  init(saving handler: @escaping @Sendable ([WatchChanges]) -> Void) {
    target = .saving(handler)
  }

  init(coalescing coalescer: WatchCoalescer, handlerQueue: MonitorDeliveryQueue?) {
    target = .coalescing(coalescer, handlerQueue: handlerQueue)
  }

  /// The queue the route's deliveries run on; nil for a saving route,
  /// whose owner has a queue of its own.
  var queue: MonitorDeliveryQueue? {
    switch target {
    case .queued(let queue, _): queue
    case .saving: nil
    case .coalescing(_, let queue): queue
    }
  }

  /// The coalescer of a coalesced watch's route.
  var coalescer: WatchCoalescer? {
    if case .coalescing(let coalescer, _) = target { coalescer } else { nil }
  }

  /// Calls a handler's body with a watch's changes.
  static func run(_ body: WatchHandler.Body, with changes: WatchChanges) {
    switch body {
    case .changes(let handler):
      handler(changes)
    case .eachObject(let handler):
      for (object, event, changedKeys) in changes.objectEvents { handler(object, event, changedKeys) }
    }
  }

  /// Delivers one save's routed changes: a queued route's handler call
  /// is enqueued per watch; a saving route is called once with its
  /// watches' changes, in the order they come.
  static func deliver(_ routes: [RoutedChanges]) {
    // Saving routes with their changes, in first-seen order, found by a
    // short search while there are few and through `positions` past that.
    var saving: [(route: WatchRoute, changes: [WatchChanges])] = []
    var positions: [ObjectIdentifier: Int]?
    for (route, changes) in routes {
      switch route.target {
      case .queued(let queue, let body):
        queue.enqueue { run(body, with: changes) }
      case .coalescing(let coalescer, _):
        coalescer.add(changes)
      case .saving:
        let key = ObjectIdentifier(route)
        let found = positions.map { $0[key] } ?? saving.firstIndex { $0.route === route }
        if let found {
          saving[found].changes.append(changes)
          continue
        }
        saving.append((route, [changes]))
        if positions != nil {
          positions![key] = saving.count - 1
        } else if saving.count > 8 {
          positions = Dictionary(uniqueKeysWithValues: saving.indices.map { (ObjectIdentifier(saving[$0].route), $0) })
        }
      }
    }
    for (route, changes) in saving {
      guard case .saving(let handler) = route.target else { continue }
      handler(changes)
    }
  }
}
