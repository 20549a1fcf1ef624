import NIOCore

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
