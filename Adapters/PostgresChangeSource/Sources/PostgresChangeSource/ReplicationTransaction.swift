import NIOCore

/// One committed transaction as the slot decoded it: its commit position,
/// its row changes in the order they were made, and the logical messages it
/// emitted.
///
/// A ``ChangeStream`` yields these in commit order; a ``PostgresReplica``
/// turns each that touches mapped tables into one save of its replica.
public struct ReplicationTransaction: Hashable, Sendable {
  /// Where the transaction committed: the start of its commit record.
  public var position: PostgresPosition
  /// The transaction's (32-bit) identifier.
  public var xid: UInt32
  /// The row changes, in the order the transaction made them.
  public var changes: [RowChange]
  /// The transactional logical messages (`pg_logical_emit_message(true, …)`)
  /// with a prefix the stream was asked for, in order.
  public var messages: [LogicalMessage]

  /// Creates a transaction.
  public init(position: PostgresPosition, xid: UInt32, changes: [RowChange], messages: [LogicalMessage] = []) {
    self.position = position
    self.xid = xid
    self.changes = changes
    self.messages = messages
  }
}

/// A logical message a transaction emitted with `pg_logical_emit_message`.
public struct LogicalMessage: Hashable, Sendable {
  /// The message's prefix: `"context-watch.author"`.
  public var prefix: String
  /// The message's text.
  public var content: String

  /// Creates a message.
  public init(prefix: String, content: String) {
    self.prefix = prefix
    self.content = content
  }
}

/// One row inserted, updated or deleted by a transaction.
public struct RowChange: Hashable, Sendable {
  /// What happened to the row.
  public enum Kind: String, Hashable, Sendable {
    /// The row was inserted: ``RowChange/columns`` holds it.
    case insert
    /// The row was updated: ``RowChange/identity`` holds it before,
    /// ``RowChange/columns`` after.
    case update
    /// The row was deleted: ``RowChange/identity`` holds its last values.
    case delete
    /// The table was truncated: every row is gone.
    case truncate
  }

  /// What happened to the row.
  public var kind: Kind
  /// The table's schema (namespace): `"public"`.
  public var schema: String
  /// The table's name.
  public var table: String
  /// The row after the change (inserts and updates).
  public var columns: [ColumnValue]
  /// The row before the change (updates and deletes): every column under
  /// `REPLICA IDENTITY FULL`.
  public var identity: [ColumnValue]

  /// Creates a row change.
  public init(kind: Kind, schema: String, table: String, columns: [ColumnValue], identity: [ColumnValue]) {
    self.kind = kind
    self.schema = schema
    self.table = table
    self.columns = columns
    self.identity = identity
  }

  /// `public.person`.
  public var qualifiedTable: String { "\(schema).\(table)" }
}

/// One column of a row: its name, its type and its value in PostgreSQL's
/// text form.
public struct ColumnValue: Hashable, Sendable {
  /// The column's name.
  public var name: String
  /// The object identifier of the column's type (`20` for `bigint`).
  public var typeOID: UInt32
  /// The value as text (`"42"`, `"t"`, `"2026-01-02 03:04:05+00"`); nil for
  /// SQL NULL.
  public var text: String?
  /// False when the server sent bytes that are not UTF-8 (a database whose
  /// encoding is `SQL_ASCII` stores them unchecked): ``text`` then holds
  /// U+FFFD in their place, and the replica refuses the value.
  var isUTF8 = true

  /// Creates a column value.
  public init(name: String, typeOID: UInt32, text: String?) {
    self.name = name
    self.typeOID = typeOID
    self.text = text
  }

  /// A value read from the server's bytes, checked to be UTF-8.
  init(name: String, typeOID: UInt32, bytes: ByteBuffer?) {
    self.name = name
    self.typeOID = typeOID
    guard let bytes else { return }
    if let text = String(validating: bytes.readableBytesView, as: UTF8.self) {
      self.text = text
    } else {
      text = String(decoding: bytes.readableBytesView, as: UTF8.self)
      isUTF8 = false
    }
  }
}
