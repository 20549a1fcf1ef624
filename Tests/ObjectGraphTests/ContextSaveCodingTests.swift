import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("ContextSave coding")
struct ContextSaveCodingTests {
  /// A save with one insert, one update and one delete, made by a context.
  static func sampleSave() throws -> ContextSave {
    let context = Fixtures.context("replica")
    return try context.run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try context.save()
      try ann.setValue(31, forKey: "age")
      try ann.setRelationship("employer", to: acme)
      try context.delete(bob)
      _ = try context.insert("Passport", values: ["number": "X1"])
      return try #require(try context.save(author: "importer"))
    }
  }

  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }

  static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.userInfo[ObjectSnapshot.schemaUserInfoKey] = Fixtures.schema
    return decoder
  }

  @Test func encodesTheDocumentedForm() throws {
    let save = try Self.sampleSave()
    let json = String(decoding: try Self.encoder().encode(save), as: UTF8.self)
    // Object identifiers are unique in the process, so the test reads them
    // from the save.
    #expect(save.updated.count == 2 && save.deleted.count == 1 && save.inserted.count == 1)
    let acme = try #require(save.updated.first?.objectID.rawValue)
    let ann = try #require(save.updated.last?.objectID.rawValue)
    let bob = try #require(save.deleted.first?.objectID.rawValue)
    let passport = try #require(save.inserted.first?.objectID.rawValue)
    let expected =
      #"{"author":"importer","context":"replica","#
      + #""deleted":[{"entity":"Person","id":\#(bob),"relationships":{},"values":{"active":true,"age":{"int":0},"name":"Bob"}}],"#
      + #""inserted":[{"entity":"Passport","id":\#(passport),"relationships":{},"values":{"number":"X1"}}],"#
      + #""sequenceNumber":2,"#
      + #""updated":["#
      + #"{"after":{"entity":"Company","id":\#(acme),"relationships":{"employees":[\#(ann)]},"values":{"name":"Acme"}},"#
      + #""before":{"entity":"Company","id":\#(acme),"relationships":{},"values":{"name":"Acme"}},"#
      + #""changedKeys":["employees"]},"#
      + #"{"after":{"entity":"Person","id":\#(ann),"relationships":{"employer":[\#(acme)]},"values":{"active":true,"age":{"int":31},"name":"Ann"}},"#
      + #""before":{"entity":"Person","id":\#(ann),"relationships":{},"values":{"active":true,"age":{"int":30},"name":"Ann"}},"#
      + #""changedKeys":["age","employer"]}]}"#
    #expect(json == expected)
  }

  @Test func roundTripsWithTheSchema() throws {
    let save = try Self.sampleSave()
    let decoded = try Self.decoder().decode(ContextSave.self, from: try Self.encoder().encode(save))
    #expect(decoded == save)
    #expect(decoded.updated.map(\.changedKeys) == save.updated.map(\.changedKeys))
  }

  @Test func writesANilAuthorAsNull() throws {
    let save = ContextSave(sequenceNumber: 7, author: nil, contextName: "c", inserted: [], updated: [], deleted: [])
    let json = String(decoding: try Self.encoder().encode(save), as: UTF8.self)
    #expect(json == #"{"author":null,"context":"c","deleted":[],"inserted":[],"sequenceNumber":7,"updated":[]}"#)
    #expect(try Self.decoder().decode(ContextSave.self, from: Data(json.utf8)) == save)
  }

  @Test func rejectsAnUpdateOfTwoObjects() throws {
    let json =
      #"{"before": {"id": 1, "entity": "Person", "values": {"name": "A"}},"#
      + #" "after": {"id": 2, "entity": "Person", "values": {"name": "B"}}, "changedKeys": ["name"]}"#
    let error = try #require(throws: DecodingError.self) {
      try Self.decoder().decode(ObjectUpdate.self, from: Data(json.utf8))
    }
    #expect("\(error)".contains("'after' shows Person #2, 'before' Person #1"))
  }

  @Test func rejectsAnUnknownChangedKey() throws {
    let json =
      #"{"before": {"id": 1, "entity": "Person", "values": {"name": "A"}},"#
      + #" "after": {"id": 1, "entity": "Person", "values": {"name": "B"}}, "changedKeys": ["nickname"]}"#
    let error = try #require(throws: DecodingError.self) {
      try Self.decoder().decode(ObjectUpdate.self, from: Data(json.utf8))
    }
    #expect("\(error)".contains("'nickname' is not a key of Person"))
  }

  @Test func rejectsAMissingKey() throws {
    let json = #"{"sequenceNumber": 1, "author": null, "inserted": [], "updated": [], "deleted": []}"#
    let error = try #require(throws: DecodingError.self) {
      try Self.decoder().decode(ContextSave.self, from: Data(json.utf8))
    }
    guard case .keyNotFound(let key, _) = error else {
      Issue.record("expected keyNotFound, got \(error)")
      return
    }
    #expect(key.stringValue == "context")
  }
}
