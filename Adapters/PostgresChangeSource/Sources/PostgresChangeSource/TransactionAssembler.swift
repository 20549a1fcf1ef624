import NIOCore

/// Assembles wal2json lines into whole transactions; a transaction without
/// its commit line is never returned.
struct TransactionAssembler {
  private var current: ReplicationTransaction?
  private(set) var completed: [ReplicationTransaction] = []
  let messagePrefixes: Set<String>

  init(messagePrefixes: Set<String>) { self.messagePrefixes = messagePrefixes }

  /// Adds one line as the server sent it. A column value whose bytes are
  /// not UTF-8 reads with U+FFFD in place of the bytes that are not, and is
  /// marked as not UTF-8.
  mutating func add(_ bytes: ByteBuffer, at slotPosition: String) throws(PostgresReplicaError) {
    try bytes.withUnsafeReadableBytes { bytes throws(PostgresReplicaError) in
      try add(bytes, at: slotPosition)
    }
  }

  /// Adds one line as the server streamed it, at the log position of its
  /// change.
  mutating func add(_ bytes: UnsafeRawBufferPointer, at position: PostgresPosition) throws(PostgresReplicaError) {
    try add(bytes, at: position.description)
  }

  /// Adds one line; `slotPosition` is the log position the slot reported
  /// for it, named in errors.
  mutating func add(_ line: String, at slotPosition: String) throws(PostgresReplicaError) {
    var line = line
    var failure: PostgresReplicaError?
    line.withUTF8 { bytes in
      do throws(PostgresReplicaError) {
        try add(UnsafeRawBufferPointer(bytes), at: slotPosition)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  private mutating func add(
    _ bytes: UnsafeRawBufferPointer, at slotPosition: @autoclosure () -> String
  ) throws(PostgresReplicaError) {
    let record: Wal2JSONRecord
    do {
      record = try Wal2JSONRecord.read(bytes)
    } catch {
      throw PostgresReplicaError(
        .brokenRecord, "the change stream's record at \(slotPosition()) is not wal2json output: \(error)")
    }
    func malformed(_ what: String) -> PostgresReplicaError {
      PostgresReplicaError(.brokenRecord, "the change stream's '\(record.action)' record at \(slotPosition()) \(what)")
    }
    switch record.action {
    case "B":
      guard let xid = record.xid else { throw malformed("has no xid") }
      current = ReplicationTransaction(position: PostgresPosition(rawValue: 0), xid: xid, changes: [])
    case "C":
      guard var transaction = current else { throw malformed("commits no open transaction") }
      guard let text = record.lsn, let position = PostgresPosition(text) else {
        throw malformed("has no commit position")
      }
      transaction.position = position
      completed.append(transaction)
      current = nil
    case "I", "U", "D":
      guard current != nil else { throw malformed("is outside a transaction") }
      guard let schema = record.schema, let table = record.table else { throw malformed("names no table") }
      let kind: RowChange.Kind = record.action == "I" ? .insert : record.action == "U" ? .update : .delete
      let columns = record.columns ?? []
      let identity = record.identity ?? []
      if kind != .delete && columns.isEmpty { throw malformed("has no columns") }
      if kind != .insert && identity.isEmpty {
        throw malformed("has no old row: is \(schema).\(table) under REPLICA IDENTITY FULL?")
      }
      current?.changes.append(
        RowChange(kind: kind, schema: schema, table: table, columns: columns, identity: identity))
    case "M":
      guard record.transactional == true, let prefix = record.prefix, messagePrefixes.contains(prefix) else {
        return
      }
      guard current != nil else { throw malformed("is outside a transaction") }
      current?.messages.append(LogicalMessage(prefix: prefix, content: record.content ?? ""))
    case "T":
      guard current != nil else { throw malformed("is outside a transaction") }
      guard let schema = record.schema, let table = record.table else { throw malformed("names no table") }
      current?.changes.append(RowChange(kind: .truncate, schema: schema, table: table, columns: [], identity: []))
    default:
      throw malformed("has an unknown action")
    }
  }

  /// Takes the completed transactions out.
  mutating func takeCompleted() -> [ReplicationTransaction] {
    defer { completed = [] }
    return completed
  }
}
