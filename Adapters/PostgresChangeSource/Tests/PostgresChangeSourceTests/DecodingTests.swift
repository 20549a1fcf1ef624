import Foundation
import NIOCore
import ObjectGraph
import PredicateDSL
import Testing

@testable import PostgresChangeSource

@Suite("Decoding the change stream")
struct DecodingTests {
  @Test func positionsPrintAndParseAsPostgreSQLDoes() throws {
    let position = try #require(PostgresPosition("16/B374D848"))
    #expect(position.rawValue == 0x16_B374_D848)
    #expect(position.description == "16/B374D848")
    #expect(PostgresPosition("0/0") == PostgresPosition(rawValue: 0))
    for bad in ["", "0", "0/", "/1", "x/1", "1/2/3", "123456789/0"] { #expect(PostgresPosition(bad) == nil) }
    #expect(PostgresPosition("0/10")! < PostgresPosition("1/0")!)
    let json = try JSONEncoder().encode(position)
    #expect(String(decoding: json, as: UTF8.self) == #""16\/B374D848""#)
    #expect(try JSONDecoder().decode(PostgresPosition.self, from: json) == position)
  }

  @Test func assemblesWholeTransactions() throws {
    var assembler = TransactionAssembler(messagePrefixes: ["author"])
    let lines = [
      #"{"action":"B","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}"#,
      #"{"action":"M","xid":724,"transactional":true,"prefix":"author","content":"ann"}"#,
      #"{"action":"M","xid":724,"transactional":true,"prefix":"other","content":"x"}"#,
      #"{"action":"I","xid":724,"schema":"public","table":"t","columns":[{"name":"id","typeoid":20,"value":1},{"name":"ok","typeoid":16,"value":true},{"name":"f","typeoid":701,"value":1.5},{"name":"n","typeoid":25,"value":null}]}"#,
      #"{"action":"U","xid":724,"schema":"public","table":"t","columns":[{"name":"id","typeoid":20,"value":2}],"identity":[{"name":"id","typeoid":20,"value":1}]}"#,
      #"{"action":"C","xid":724,"lsn":"0/1504B58","nextlsn":"0/15050C0"}"#,
      #"{"action":"B","xid":725,"lsn":"0/1504C00","nextlsn":"0/1504D00"}"#,
    ]
    for line in lines { try assembler.add(line, at: "0/1") }
    let transactions = assembler.takeCompleted()
    #expect(transactions.count == 1)
    let transaction = try #require(transactions.first)
    #expect(transaction.position == PostgresPosition("0/1504B58"))
    #expect(transaction.xid == 724)
    #expect(transaction.messages == [LogicalMessage(prefix: "author", content: "ann")])
    #expect(
      transaction.changes.first?.columns == [
        ColumnValue(name: "id", typeOID: 20, text: "1"), ColumnValue(name: "ok", typeOID: 16, text: "t"),
        ColumnValue(name: "f", typeOID: 701, text: "1.5"), ColumnValue(name: "n", typeOID: 25, text: nil),
      ])
    #expect(transaction.changes.last?.kind == .update)
    #expect(transaction.changes.last?.identity == [ColumnValue(name: "id", typeOID: 20, text: "1")])
  }

  @Test func readsAnyJSONOfWal2JSONsShapeWithoutATree() throws {
    var assembler = TransactionAssembler(messagePrefixes: [])
    // Keys in any order, spaces, unknown keys holding objects and arrays.
    try assembler.add(#" { "xid" : 9 , "origin": {"a": [1, {"b": null}]}, "action": "B" } "#, at: "0/1")
    try assembler.add(
      #"{"table":"t","schema":"s","xid":9,"action":"I","columns":[{"value":"a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800","#
        + #""typeoid":25,"name":"x","extra":[true]},{"name":"n","typeoid":1700,"value":-1.50e+3},"#
        + #"{"name":"y","typeoid":16,"value":false}]}"#, at: "0/2")
    try assembler.add(#"{"action":"C","xid":9,"lsn":"0/A0","nextlsn":"0/B0"}"#, at: "0/3")
    let change = try #require(assembler.takeCompleted().first?.changes.first)
    #expect(change.qualifiedTable == "s.t")
    #expect(
      change.columns == [
        ColumnValue(name: "x", typeOID: 25, text: "a\"b\\c/d\né😀\u{FFFD}"),
        // Numbers as written, as the load reads them.
        ColumnValue(name: "n", typeOID: 1700, text: "-1.50e+3"), ColumnValue(name: "y", typeOID: 16, text: "f"),
      ])

    for (line, error) in [
      (#"{"action" "B"}"#, "expected ':' at byte 10"),
      (#"{"action":"B","xid":1"#, "expected ',' or '}' at byte 21"),
      (#"{"action":"B","xid":99999999999}"#, "an xid beyond 32 bits at byte 31"),
      (#"{"action":"B"} x"#, "expected the end of the line at byte 15"),
      (#"{"action":"I","columns":[{"name":"a","value":1}]}"#, "expected a column with a name and a typeoid at byte 25"),
      (#"{"action":"M","content":"\u12"}"#, "a short \\u escape at byte 27"),
    ] {
      let failure = try #require(throws: PostgresReplicaError.self) { try assembler.add(line, at: "0/4") }
      #expect(failure.message == "the change stream's record at 0/4 is not wal2json output: \(error)", "\(line)")
    }
  }

  @Test func reportsBrokenRecordsWithTheirPosition() throws {
    var assembler = TransactionAssembler(messagePrefixes: [])
    let notJSON = try #require(throws: PostgresReplicaError.self) { try assembler.add("{oops", at: "0/AB") }
    #expect(notJSON.code == .brokenRecord)
    #expect(notJSON.message.hasPrefix("the change stream's record at 0/AB is not wal2json output"))
    let outside = try #require(throws: PostgresReplicaError.self) {
      try assembler.add(#"{"action":"I","xid":1,"schema":"s","table":"t","columns":[]}"#, at: "0/AC")
    }
    #expect(outside.message == "the change stream's 'I' record at 0/AC is outside a transaction")
    try assembler.add(#"{"action":"B","xid":1}"#, at: "0/AD")
    let noOldRow = try #require(throws: PostgresReplicaError.self) {
      try assembler.add(
        #"{"action":"D","xid":1,"schema":"s","table":"t","identity":[]}"#, at: "0/AE")
    }
    #expect(
      noOldRow.message == "the change stream's 'D' record at 0/AE has no old row: is s.t under REPLICA IDENTITY FULL?")
  }

  @Test func convertsColumnTextToAttributeValues() {
    func convert(_ text: String?, _ oid: UInt32, _ type: AttributeType) -> FilterValue? {
      try? ColumnConversion.value(text, oid: oid, as: type).get()
    }
    #expect(convert("42", 23, .integer) == .int(42))
    #expect(convert("42", 23, .double) == .double(42))
    #expect(convert("t", 16, .boolean) == .bool(true))
    #expect(convert(nil, 25, .string) == .null)
    #expect(convert("\\x00ff", 17, .data) == .data([0, 255]))
    #expect(convert("00ff", 17, .data) == .data([0, 255]))
    #expect(
      convert("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", 2950, .uuid)
        == .uuid(0xE621_E1F8_C36C_495A_93FC_0C24_7A3E_6E5F))
    #expect(convert("2001-01-01 00:00:00+00", 1184, .date) == .date(secondsSinceReferenceDate: 0))
    #expect(convert("2001-01-01 01:30:00.25+01:30", 1184, .date) == .date(secondsSinceReferenceDate: 0.25))
    #expect(convert("2000-12-31", 1082, .date) == .date(secondsSinceReferenceDate: -86_400))
    #expect(convert("2026-11-26 14:18:47.5", 1114, .date) == .date(secondsSinceReferenceDate: 817_395_527.5))
    #expect(
      ColumnConversion.value("x", oid: 25, as: .integer)
        == .failure(.unadmitted("a text column, which an integer attribute does not admit")))
    #expect(
      ColumnConversion.value("4x", oid: 23, as: .integer) == .failure(.unparsable("'4x' is not an integer value")))
    // Every value PostgreSQL can hold reads exactly.
    #expect(convert("infinity", 1184, .date) == .date(secondsSinceReferenceDate: .infinity))
    #expect(convert("-infinity", 1082, .date) == .date(secondsSinceReferenceDate: -.infinity))
    let dayBeforeTheEra = Double(Timestamp.daysFromCivil(year: 0, month: 12, day: 31) - 11_323) * 86_400
    #expect(convert("0001-12-31 BC", 1082, .date) == .date(secondsSinceReferenceDate: dayBeforeTheEra))
    #expect(
      convert("0001-12-31 12:00:00+00 BC", 1184, .date) == .date(secondsSinceReferenceDate: dayBeforeTheEra + 43_200))
    let lastDay = Double(Timestamp.daysFromCivil(year: 294_276, month: 12, day: 31) - 11_323) * 86_400
    #expect(convert("294276-12-31 23:59:59+00", 1184, .date) == .date(secondsSinceReferenceDate: lastDay + 86_399))
    #expect(convert("5874897-12-31", 1082, .date) != nil)
    #expect(convert("0001-12-31 AD", 1082, .date) == nil)
    #expect(convert("01-12-31", 1082, .date) == nil)
    // wal2json 2.6 writes numbers as text: NaN and infinities among them.
    #expect(convert("Infinity", 701, .double) == .double(.infinity))
    #expect(convert("-Infinity", 700, .double) == .double(-.infinity))
    if case .double(let number)? = convert("NaN", 1700, .double) { #expect(number.isNaN) } else { Issue.record() }
  }

  @Test func readsNumbersWrittenAsTextAndMarksTextThatIsNotUTF8() throws {
    var assembler = TransactionAssembler(messagePrefixes: [])
    try assembler.add(#"{"action":"B","xid":1}"#, at: "0/A0")
    try assembler.add(
      #"{"action":"I","xid":1,"schema":"s","table":"t","columns":[{"name":"d","typeoid":701,"value":"NaN"},"#
        + #"{"name":"n","typeoid":20,"value":"9007199254740993"}]}"#, at: "0/A1")
    var bytes = ByteBuffer(
      string: #"{"action":"I","xid":1,"schema":"s","table":"t","columns":[{"name":"a","typeoid":25,"value":"caf"#)
    bytes.writeBytes([0xE9])
    bytes.writeString(#""},{"name":"b","typeoid":25,"value":"ok"}]}"#)
    try assembler.add(bytes, at: "0/A2")
    try assembler.add(#"{"action":"C","xid":1,"lsn":"0/A3"}"#, at: "0/A3")
    let changes = try #require(assembler.takeCompleted().first).changes
    #expect(changes[0].columns.map(\.text) == ["NaN", "9007199254740993"])
    #expect(changes[1].columns.map(\.isUTF8) == [false, true])
    #expect(changes[1].columns.map(\.text) == ["caf\u{FFFD}", "ok"])
  }

  @Test func readsCharacterColumnsWithoutTheirPaddingAsTheLoadDoes() throws {
    var assembler = TransactionAssembler(messagePrefixes: [])
    try assembler.add(#"{"action":"B","xid":1}"#, at: "0/A0")
    try assembler.add(
      #"{"action":"I","xid":1,"schema":"s","table":"t","columns":[{"name":"c","typeoid":1042,"value":"ab   "},"#
        + #"{"name":"e","typeoid":1042,"value":"   "},{"name":"v","typeoid":1043,"value":"ab  "}]}"#, at: "0/A1")
    try assembler.add(#"{"action":"C","xid":1,"lsn":"0/A2"}"#, at: "0/A2")
    let changes = try #require(assembler.takeCompleted().first).changes
    #expect(changes[0].columns.map(\.text) == ["ab", "", "ab  "])
  }

  @Test func namesWhatTheServerLacks() {
    #expect(
      ServerRefusal.cause(state: "58P01", message: "could not access file \"wal2json\": No such file or directory")
        == "wal2json is not installed on the server: install it (Debian: postgresql-15-wal2json)")
    #expect(
      ServerRefusal.cause(state: "42501", message: "library \"wal2json\" may not be used as an output plugin")
        == "the server does not trust wal2json as an output plugin: add it to output_plugin_libraries in"
        + " postgresql.conf (PostgreSQL 15.19 and later) and reload the server")
    #expect(
      ServerRefusal.cause(state: "55000", message: "logical decoding requires wal_level >= logical")
        == "the server's wal_level is not logical: set wal_level = logical in postgresql.conf and restart it")
    #expect(
      ServerRefusal.cause(state: "53400", message: "all replication slots are in use")
        == "the server has no free replication slot: drop an unused one (pg_drop_replication_slot) or raise"
        + " max_replication_slots")
    #expect(
      ServerRefusal.cause(state: "55000", message: "replication slots can only be used if max_replication_slots > 0")
        == "the server allows no replication slot: set max_replication_slots to 1 or more in postgresql.conf and"
        + " restart it")
    #expect(
      ServerRefusal.cause(state: "55006", message: "replication slot \"s\" is active for PID 4242")
        == "another session reads the slot: stop it (pg_terminate_backend on that PID), or give each reader a slot"
        + " of its own")
    #expect(
      ServerRefusal.cause(state: "42501", message: "must be superuser or replication role to start walsender")
        == "the user lacks the replication privilege: ALTER ROLE ... WITH REPLICATION, or connect as one that has it")
    #expect(
      ServerRefusal.cause(state: "42501", message: "permission denied for schema shop")
        == "the user may not use schema shop: GRANT USAGE ON SCHEMA shop to it, or connect as one that may")
    #expect(
      ServerRefusal.cause(state: "42501", message: "permission denied for table item")
        == "the user may not read table item: GRANT SELECT on it to the user, or connect as one that may")
    #expect(ServerRefusal.cause(state: "42501", message: "permission denied for function f") == nil)
    #expect(ServerRefusal.cause(state: "22012", message: "division by zero") == nil)
    let refusal = ServerRefusal(state: "53400", message: "all replication slots are in use", hint: "Free one.")
    #expect(refusal.code == .serverError)
    #expect(
      refusal.message
        == "the server said: all replication slots are in use (SQLSTATE 53400); the server has no free replication"
        + " slot: drop an unused one (pg_drop_replication_slot) or raise max_replication_slots (the server's hint:"
        + " Free one.)")
    #expect(
      ServerRefusal(state: "42704", message: "replication slot \"s\" does not exist", hint: nil).code == .slotMissing)
    // A session an administrator ended, or a server going down, is a lost
    // connection (the next call opens another), not a refused statement.
    for state in ["57P01", "57P02", "57P03", "08006"] {
      #expect(ServerRefusal(state: state, message: "terminating connection", hint: nil).code == .connectionLost)
    }
    #expect(ServerRefusal(state: "57P04", message: "database dropped", hint: nil).code == .serverError)
    // A replication connection libpq reports refused, without a SQLSTATE.
    for (message, advice) in [
      ("password authentication failed for user \"app\"", "check PGUSER and PGPASSWORD"),
      ("role \"app\" does not exist", "check PGUSER, and that the server's pg_hba.conf admits it from this host"),
      ("database \"orders\" does not exist", "check PGDATABASE"),
    ] {
      let refused = ServerRefusal(state: "", message: message, hint: nil)
      #expect(refused.code == .serverError)
      #expect(refused.message == "the server said: \(message); \(advice)")
    }
    #expect(ServerRefusal.cause(state: "42704", message: "role \"app\" does not exist") == nil)
  }

  @Test func snapshotsTellWhichTransactionsTheySaw() throws {
    let snapshot = try #require(TransactionSnapshot("100:105:101,103"))
    #expect(snapshot.sees(99) && snapshot.sees(100) && snapshot.sees(102) && snapshot.sees(104))
    #expect(!snapshot.sees(101) && !snapshot.sees(103) && !snapshot.sees(105) && !snapshot.sees(200))
    let wrapped = try #require(TransactionSnapshot("4294967290:4294967300:"))
    #expect(wrapped.sees(4_294_967_295) && wrapped.sees(2) && !wrapped.sees(4))
    #expect(TransactionSnapshot("1:2") == nil)
  }

  @Test func snapshotsOfALaterEpochSeeOnlyTransactionsBeforeThem() throws {
    // Epoch 3: xmin 3·2^32 + 10, xmax 3·2^32 + 50, 3·2^32 + 20 in progress.
    let epoch: UInt64 = 3 << 32
    let snapshot = try #require(TransactionSnapshot("\(epoch + 10):\(epoch + 50):\(epoch + 20)"))
    #expect(snapshot.sees(9) && snapshot.sees(10) && snapshot.sees(30) && snapshot.sees(49))
    #expect(!snapshot.sees(50) && !snapshot.sees(51) && !snapshot.sees(1000) && !snapshot.sees(20))
    // An identifier 2^31 - 1 ahead of xmax is a later transaction; 2^31
    // behind, an earlier one of the same epoch.
    #expect(!snapshot.sees(50 + 0x7FFF_FFFF))
    #expect(snapshot.sees(50 &- 0x8000_0000))
  }

  @Test func snapshotsAcrossTheWrapOfIdentifiersWidenBothSides() throws {
    // xmin in epoch 0 (2^32 - 10), xmax in epoch 1 (2^32 + 5); in progress:
    // 2^32 - 2 and 2^32 + 1.
    let snapshot = try #require(TransactionSnapshot("4294967286:4294967301:4294967294,4294967297"))
    #expect(snapshot.sees(4_294_967_280) && snapshot.sees(4_294_967_286) && snapshot.sees(4_294_967_290))
    #expect(snapshot.sees(4_294_967_295) && snapshot.sees(0) && snapshot.sees(3) && snapshot.sees(4))
    #expect(!snapshot.sees(4_294_967_294) && !snapshot.sees(1))
    #expect(!snapshot.sees(5) && !snapshot.sees(6) && !snapshot.sees(100_000))
  }

  @Test func snapshotsOfEpochZeroSeeIdentifiersThatWidenBelowZero() throws {
    let snapshot = try #require(TransactionSnapshot("3:105:"))
    #expect(snapshot.sees(4_294_967_000) && snapshot.sees(2) && snapshot.sees(104))
    #expect(!snapshot.sees(105) && !snapshot.sees(106))
    #expect(TransactionSnapshot("1:9223372036854775808:") == nil)
    // Past where widening could overflow: refused, not a trap in `sees`.
    let limit = UInt64(Int64.max) - UInt64(UInt32.max)
    #expect(TransactionSnapshot("1:\(limit + 1):") == nil)
    let highest = try #require(TransactionSnapshot("1:\(limit):"))
    #expect(!highest.sees(UInt32(truncatingIfNeeded: limit) &+ 0x7FFF_FFFF))
  }
}
