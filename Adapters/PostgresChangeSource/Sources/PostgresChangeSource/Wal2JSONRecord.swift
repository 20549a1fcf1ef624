/// One line of wal2json's format version 2 (with `include-xids`,
/// `include-lsn` and `include-type-oids`):
///
/// ```
/// {"action":"B","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}
/// {"action":"I","xid":724,"schema":"public","table":"t","columns":[{"name":"id","typeoid":20,"value":1}]}
/// {"action":"M","xid":725,"transactional":true,"prefix":"p","content":"alice"}
/// {"action":"C","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}
/// ```
///
/// Read by ``Wal2JSONScanner`` straight from the line's bytes: a column's
/// value is its PostgreSQL text form (numbers as written, Booleans as
/// `t`/`f`, null as nil).
struct Wal2JSONRecord {
  var action = ""
  var xid: UInt32?
  var lsn: String?
  var schema: String?
  var table: String?
  var columns: [ColumnValue]?
  var identity: [ColumnValue]?
  var transactional: Bool?
  var prefix: String?
  var content: String?

  /// Reads one line.
  ///
  /// - Throws: ``Wal2JSONScanner/Failure`` for a line that is not JSON of
  ///   this shape.
  static func read(_ bytes: UnsafeRawBufferPointer) throws(Wal2JSONScanner.Failure) -> Wal2JSONRecord {
    var scanner = Wal2JSONScanner(bytes)
    return try scanner.record()
  }
}
