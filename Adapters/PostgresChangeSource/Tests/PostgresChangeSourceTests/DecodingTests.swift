import Foundation
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
    #expect(convert("infinity", 1184, .date) == nil)
  }

  @Test func snapshotsTellWhichTransactionsTheySaw() throws {
    let snapshot = try #require(TransactionSnapshot("100:105:101,103"))
    #expect(snapshot.sees(99) && snapshot.sees(100) && snapshot.sees(102) && snapshot.sees(104))
    #expect(!snapshot.sees(101) && !snapshot.sees(103) && !snapshot.sees(105) && !snapshot.sees(200))
    let wrapped = try #require(TransactionSnapshot("4294967290:4294967300:"))
    #expect(wrapped.sees(4_294_967_295) && wrapped.sees(2) && !wrapped.sees(4))
    #expect(TransactionSnapshot("1:2") == nil)
  }
}
