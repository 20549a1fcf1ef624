import ObjectGraph

/// Where a watch with a handler sends its changes: the handler's body and
/// the queue it runs on. Monitors make their own, with their queue.
final class WatchRoute: Sendable {
  let queue: MonitorDeliveryQueue
  let body: WatchHandler.Body

  init(queue: MonitorDeliveryQueue, body: WatchHandler.Body) {
    self.queue = queue
    self.body = body
  }

  /// Enqueues the handler's call with `changes`.
  func deliver(_ changes: WatchChanges) {
    switch body {
    case .changes(let handler):
      queue.enqueue { handler(changes) }
    case .eachObject(let handler):
      queue.enqueue {
        for (object, event, changedKeys) in changes.objectEvents { handler(object, event, changedKeys) }
      }
    }
  }
}
