import Dispatch
import ObjectGraph
import PostgresNIO

extension PostgresReplica {
  /// Reads every mapped table in one `REPEATABLE READ` transaction and
  /// saves the rows as one save. Without a position, the replica remembers
  /// the read's snapshot, to pass over the transactions it saw; with one,
  /// the transactions after `position` that the read saw are undone on the
  /// rows read.
  func load(
    _ connection: PostgresConnection, asOf position: PostgresPosition? = nil, stream: ChangeStream? = nil
  ) async throws {
    try await connection.query("SET TimeZone = 'UTC'", logger: logger).drain()
    try await connection.query("SET DateStyle = 'ISO'", logger: logger).drain()
    try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger).drain()
    var rows: [(ResolvedTable, [[ColumnValue]])] = []
    let snapshotText: String
    do {
      var text = ""
      for try await (snapshot, ) in try await connection.query(
        "SELECT pg_current_snapshot()::text", logger: logger
      ).decode((String,).self) {
        text = snapshot
      }
      snapshotText = text
      for table in configuration.mapping.resolved {
        rows.append((table, try await Self.readRows(table, connection: connection, logger: logger)))
      }
      try await connection.query("COMMIT", logger: logger).drain()
    } catch {
      try? await connection.query("ROLLBACK", logger: logger).drain()
      throw error
    }
    guard let snapshot = TransactionSnapshot(snapshotText) else {
      throw PostgresReplicaError(.brokenRecord, "'\(snapshotText)' is not a transaction snapshot")
    }
    if let position, let stream {
      // The transactions after `position` that the read saw come first in
      // commit order: undo them, and let the stream apply them again.
      var seen: [ReplicationTransaction] = []
      var cursor = position
      reading: while true {
        let batch: [ReplicationTransaction]
        do {
          batch = try await stream.fetch(after: cursor, limit: configuration.batchSize)
        } catch {
          throw await connectionError(error, "reading slot '\(configuration.slot)'")
        }
        guard let last = batch.last else { break }
        for transaction in batch {
          guard snapshot.sees(transaction.xid) else { break reading }
          seen.append(transaction)
        }
        cursor = last.position
      }
      rows = try RowUndo.rows(rows, undoing: seen, since: position)
    } else {
      loadSnapshot = snapshot
    }
    let applier = self.applier
    let loaded = rows
    _ = try await withCheckedContinuation { continuation in
      context.queue.async {
        continuation.resume(returning: Result { () throws(PostgresReplicaError) in try applier.load(loaded) })
      }
    }.get()
  }
}
