/// A monitor's reports as an async sequence: the one shape of
/// ``ObjectMonitor/events``, ``ListMonitor/updates``,
/// ``RecordObjectMonitor/events`` and ``RecordListMonitor/updates``.
///
/// ```swift
/// for await update in people.updates {
///   print(update.changes.inserted.count, "new;", update.content.count, "listed")
/// }
/// ```
///
/// - **Subscribing.** Nothing is subscribed until an iterator is made (a
///   `for await` loop starts): each iterator gets every report made after
///   that, in order. Reading the property subscribes nothing.
/// - **Buffering.** Each iterator buffers every report its consumer has
///   not taken yet, without a bound: a list's batch update applies only
///   after those before it, and an object's events tell its history, so
///   none is dropped. A consumer that wants only the latest state reads
///   the last buffered report (a list update carries the whole content).
/// - **Ending.** A loop ends when its monitor is released, when an object
///   monitor reports its object's deletion, or when the task is
///   cancelled; a loop started after that ends at once.
public struct MonitorSequence<Element: Sendable>: AsyncSequence, Sendable {
  /// The sequence never throws.
  public typealias Failure = Never

  /// Registers a continuation with the monitor, reaching it weakly; nil,
  /// having finished the continuation, when the monitor has nothing more
  /// to report.
  let subscribe: @Sendable (AsyncStream<Element>.Continuation) -> ObserverToken?

  /// Starts receiving the monitor's reports.
  public func makeAsyncIterator() -> AsyncIterator {
    let (stream, continuation) = AsyncStream<Element>.makeStream()
    if let token = subscribe(continuation) {
      // The observer stays while the stream is consumed: when the
      // iterator goes or the stream ends, the token goes with this closure.
      continuation.onTermination = { _ in token.cancel() }
    } else {
      continuation.finish()
    }
    return AsyncIterator(base: stream.makeAsyncIterator())
  }

  /// Takes the reports of one loop.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncStream<Element>.AsyncIterator

    /// The next report, waiting for it; nil once the sequence has ended.
    public mutating func next() async -> Element? { await base.next(isolation: #isolation) }
  }
}

/// An ``ObjectMonitor``'s events as an async sequence.
public typealias ObjectMonitorEvents = MonitorSequence<ObjectMonitorEvent>

/// A ``ListMonitor``'s updates as an async sequence.
public typealias ListMonitorUpdates = MonitorSequence<ListMonitorUpdate>
