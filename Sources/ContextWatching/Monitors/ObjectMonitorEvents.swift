import PredicateDSL

/// An ``ObjectMonitor``'s events as an async sequence: each iterator gets
/// every event reported after it is made, in order.
///
/// ```swift
/// for await event in monitor.events {
///   if case .didDelete = event { print("gone") }
/// }
/// ```
public struct ObjectMonitorEvents: AsyncSequence, Sendable {
  /// An event.
  public typealias Element = ObjectMonitorEvent
  /// The sequence never throws.
  public typealias Failure = Never

  weak let monitor: ObjectMonitor?

  init(monitor: ObjectMonitor) { self.monitor = monitor }

  /// Starts receiving the monitor's events.
  public func makeAsyncIterator() -> AsyncIterator {
    let (stream, continuation) = AsyncStream<ObjectMonitorEvent>.makeStream()
    if let token = monitor?.register(continuation) {
      // The observer stays while the stream is consumed: when the
      // iterator goes or the stream ends, the token goes with this closure.
      continuation.onTermination = { _ in token.cancel() }
    } else {
      continuation.finish()
    }
    return AsyncIterator(base: stream.makeAsyncIterator())
  }

  /// Takes the events of one loop.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncStream<ObjectMonitorEvent>.AsyncIterator

    /// The next event, waiting for it; nil once the object is deleted, the
    /// monitor is gone, or the task is cancelled.
    public mutating func next() async -> ObjectMonitorEvent? { await base.next(isolation: #isolation) }
  }
}
