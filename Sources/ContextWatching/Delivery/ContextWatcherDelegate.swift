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
