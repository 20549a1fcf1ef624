import Dispatch
import Foundation
import ObjectGraph

/// The deliveries of a watcher created with ``DeliveryTarget/asyncSequence``,
/// in save order. Usually one task consumes them; several consumers share
/// them, each delivery going to one of them.
///
/// ```swift
/// let watcher = ContextWatcher(context: context, target: .asyncSequence)
/// let token = try watcher.watch("Person", where: "age > 30")
/// for await changes in watcher.changes {
///   print(changes.sequenceNumber, changes.inserted.count)
/// }
/// ```
///
/// Deliveries wait in the watcher's buffer from its creation, whether or
/// not a loop runs: a watcher has no state to read before a loop starts,
/// so its deliveries are kept for the first loop rather than lost (the
/// monitors' `MonitorSequence`, whose monitors have, subscribes when a
/// loop starts instead). The sequence ends when the watcher is released,
/// once the buffered deliveries are taken. At most the watcher's
/// ``WatcherOptions/bufferLimit`` deliveries wait; beyond that they are
/// dropped and the next delivery that fits reports them in
/// ``ContextChanges/missedSaves``.
public struct ContextChangesSequence: AsyncSequence, Sendable {
  /// A delivery.
  public typealias Element = ContextChanges
  /// The sequence never throws.
  public typealias Failure = Never

  let buffer: ChangesBuffer

  /// Creates the iterator.
  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

  /// Takes deliveries from the watcher's buffer.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let buffer: ChangesBuffer

    /// The next delivery, waiting for it; nil once the watcher is gone and
    /// the buffer is empty, or when the task is cancelled.
    public mutating func next() async -> ContextChanges? { await buffer.next() }
  }
}
