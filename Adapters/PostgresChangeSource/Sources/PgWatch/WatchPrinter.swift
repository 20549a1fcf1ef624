import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PostgresChangeSource
import WatchFormats

/// Follows a replica's context with watches and writes, for every save a
/// watch saw, the lines `context-watch replay --watches` writes: the save's
/// line (with the transaction's commit position as `"position"`), then one
/// line per watch that saw something, in watch order. Objects are named by
/// their primary key as text.
///
/// A line that cannot be written (the reader went away) ends the process
/// with status 1 at once, during the save, so that the replica never
/// acknowledges a transaction whose lines were not written: the slot keeps
/// it for the next start, from the position the message names.
///
/// `@unchecked Sendable`: `isPrinting` is touched only on the context's
/// queue: by the save observer, which runs there during each save, and by
/// ``start()``, which hops onto it. The other properties are set once, in
/// `init`.
final class WatchPrinter: @unchecked Sendable {
  private let replica: PostgresReplica
  private let context: ObjectContext
  private let write: @Sendable (String) -> Bool
  private let watchLines: WatchLines
  private var observer: SaveObserverToken?
  private var isPrinting = false

  /// Attaches the watches to the replica's context; nothing is written
  /// before ``start()``.
  ///
  /// - Parameters:
  ///   - write: Writes one line (without its newline) and flushes it, or
  ///     returns false when it cannot; called on the context's queue,
  ///     during the save, so before the replica acknowledges the
  ///     transaction.
  /// - Throws: ``WatchesFile/Problems`` with every watch that does not
  ///   validate.
  init(
    replica: PostgresReplica, watches: [WatchesFile.Watch], write: @escaping @Sendable (String) -> Bool
  ) throws(WatchesFile.Problems) {
    self.replica = replica
    context = replica.context
    self.write = write
    // Observers run in registration order: the watches, registered first,
    // have delivered by the time the lines are written.
    watchLines = try WatchLines(context: context, watches: watches)
    observer = context.addSaveObserver { [unowned self] save in self.printSave(save) }
  }

  /// Starts writing: saves from now on (after the load) are written.
  func start() {
    context.queue.sync { isPrinting = true }
  }

  private func printSave(_ save: ContextSave) {
    guard isPrinting, let position = replica.position(ofSave: save.sequenceNumber) else {
      watchLines.discard()
      return
    }
    let lines = watchLines.take(ref: ref)
    guard !lines.isEmpty else { return }
    let texts = [JSONValue(save: save, position: position.description, ref: ref).serialized] + lines.map(\.serialized)
    for text in texts where !write(text) { readerWentAway(at: position) }
  }

  /// Ends the process before the replica acknowledges the transaction at
  /// `position`, saying where to start again: just before it (a start
  /// `--from` a position takes the transactions past it), which is at or
  /// past everything acknowledged, since each transaction before it was.
  private func readerWentAway(at position: PostgresPosition) -> Never {
    Output.error(
      "pg-watch: standard output is closed (its reader went away): stopped before acknowledging the"
        + " transaction at \(position); start again with --from"
        + " \(PostgresPosition(rawValue: position.rawValue - 1))")
    // At once, without the process's exit handlers: other threads (the
    // replica's connections) are still running, and standard error is
    // written unbuffered.
    _exit(1)
  }

  /// An object's name in the lines: its primary key as text.
  private func ref(_ id: ObjectID) -> String { replica.primaryKey(of: id) ?? id.description }
}
