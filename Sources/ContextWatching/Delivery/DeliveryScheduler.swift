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
