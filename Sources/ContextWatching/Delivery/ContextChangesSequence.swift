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
/// The sequence ends when the watcher is released. At most the watcher's
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
