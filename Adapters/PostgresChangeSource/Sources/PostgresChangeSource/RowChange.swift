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
  /// The row after the change (inserts and updates). An update's row
  /// leaves out each value stored out of line (TOAST) that the update did
  /// not change, as wal2json does; ``identity`` holds it.
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
