/// Keeps a closure observer of a monitor registered: cancel it, or release
/// it, to remove the observer.
///
/// A token does not keep its monitor alive.
///
/// ```swift
/// let token = monitor.observe { event in print(event) }
/// // …
/// token.cancel()
/// ```
public final class ObserverToken: Sendable {
  private let removal: @Sendable () -> Void

  init(removal: @escaping @Sendable () -> Void) { self.removal = removal }

  /// Removes the observer. Callbacks already running finish; later events
  /// do not reach it. Cancelling twice changes nothing.
  public func cancel() { removal() }

  deinit { removal() }
}
