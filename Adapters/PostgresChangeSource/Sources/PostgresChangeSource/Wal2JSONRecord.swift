import Foundation
import NIOCore

/// One line of wal2json's format version 2 (with `include-xids`,
/// `include-lsn` and `include-type-oids`):
///
/// ```
/// {"action":"B","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}
/// {"action":"I","xid":724,"schema":"public","table":"t","columns":[{"name":"id","typeoid":20,"value":1}]}
/// {"action":"M","xid":725,"transactional":true,"prefix":"p","content":"alice"}
/// {"action":"C","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}
/// ```
struct Wal2JSONRecord: Decodable {
  var action: String
  var xid: UInt32?
  var lsn: String?
  var schema: String?
  var table: String?
  var columns: [Column]?
  var identity: [Column]?
  var transactional: Bool?
  var prefix: String?
  var content: String?

  struct Column: Decodable {
    var name: String
    var typeoid: UInt32
    var value: Scalar
  }

  /// A JSON scalar as PostgreSQL's text form would spell it: numbers as
  /// written, Booleans as `t`/`f`, null as nil.
  struct Scalar: Decodable {
    var text: String?

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if container.decodeNil() {
        text = nil
      } else if let flag = try? container.decode(Bool.self) {
        text = flag ? "t" : "f"
      } else if let integer = try? container.decode(Int64.self) {
        text = String(integer)
      } else if let number = try? container.decode(Double.self) {
        text = "\(number)"
      } else {
        text = try container.decode(String.self)
      }
    }
  }

  static func decode(_ line: String) throws -> Wal2JSONRecord {
    try JSONDecoder().decode(Wal2JSONRecord.self, from: Data(line.utf8))
  }
}

/// Assembles wal2json lines into whole transactions; a transaction without
/// its commit line is never returned.
struct TransactionAssembler {
  private var current: ReplicationTransaction?
  private(set) var completed: [ReplicationTransaction] = []
  let messagePrefixes: Set<String>

  init(messagePrefixes: Set<String>) { self.messagePrefixes = messagePrefixes }

  /// Adds one line as the server sent it: its text when it is UTF-8; when
  /// it is not, the line read with U+FFFD in place of the bytes that are
  /// not, and every column value holding U+FFFD marked as not UTF-8.
  mutating func add(_ bytes: ByteBuffer, at slotPosition: String) throws(PostgresReplicaError) {
    if let line = String(validating: bytes.readableBytesView, as: UTF8.self) {
      try add(line, at: slotPosition)
    } else {
      try add(String(decoding: bytes.readableBytesView, as: UTF8.self), at: slotPosition, isUTF8: false)
    }
  }

  /// Adds one line as the server streamed it, at the log position of its
  /// change (as the one from a `ByteBuffer`).
  mutating func add(_ bytes: UnsafeRawBufferPointer, at position: PostgresPosition) throws(PostgresReplicaError) {
    if let line = String(validating: bytes, as: UTF8.self) {
      try add(line, at: position.description)
    } else {
      try add(String(decoding: bytes, as: UTF8.self), at: position.description, isUTF8: false)
    }
  }

  /// Adds one line; `slotPosition` is the log position the slot reported
  /// for it, named in errors.
  mutating func add(_ line: String, at slotPosition: String, isUTF8: Bool = true) throws(PostgresReplicaError) {
    let record: Wal2JSONRecord
    do {
      record = try Wal2JSONRecord.decode(line)
    } catch {
      throw PostgresReplicaError(
        .brokenRecord, "the change stream's record at \(slotPosition) is not wal2json output: \(error)")
    }
    func malformed(_ what: String) -> PostgresReplicaError {
      PostgresReplicaError(.brokenRecord, "the change stream's '\(record.action)' record at \(slotPosition) \(what)")
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
      func value(_ column: Wal2JSONRecord.Column) -> ColumnValue {
        var value = ColumnValue(name: column.name, typeOID: column.typeoid, text: column.value.text)
        if !isUTF8, value.text?.unicodeScalars.contains("\u{FFFD}") == true { value.isUTF8 = false }
        return value
      }
      let columns = (record.columns ?? []).map(value)
      let identity = (record.identity ?? []).map(value)
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
