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
