import ContextWatching
import Foundation
import ObjectGraph
import PredicateDSL
import Testing
import WatchFormats

@Suite("Watch formats: the save and watch lines")
struct WatchLinesTests {
  static let schema = """
    {"entities": [
      {"name": "Person",
       "attributes": {"name": {"type": "string"}, "age": {"type": "integer", "optional": true}},
       "relationships": {"employer": {"destination": "Company", "inverse": "employees"}}},
      {"name": "Company", "attributes": {"name": {"type": "string"}},
       "relationships": {"employees": {"destination": "Person", "toMany": true, "inverse": "employer"}}}
    ]}
    """

  /// A context of the schema above, its objects named by the test.
  final class Fixture {
    let context: ObjectContext
    var names: [ObjectID: String] = [:]
    var objects: [String: ManagedObject] = [:]

    init() throws {
      context = ObjectContext(
        schema: try ObjectSchema(json: Data(WatchLinesTests.schema.utf8)), name: "lines", notificationCenter: nil)
    }

    func ref(_ id: ObjectID) -> String { names[id] ?? id.description }

    /// Runs `change` on the context's queue and saves.
    func save(_ change: (Fixture) throws -> Void) throws -> ContextSave? {
      try context.performAndWait { context in
        try change(self)
        return try context.save()
      }
    }

    func insert(_ name: String, _ entity: String, _ values: [String: FilterValue]) throws {
      let object = try context.insert(entity, values: values)
      names[object.objectID] = name
      objects[name] = object
    }
  }

  private func watches(_ text: String) throws -> [WatchesFile.Watch] {
    let file = WatchesFile(try JSONValue.parse(Array(text.utf8)))
    #expect(file.problems == [])
    return file.watches
  }

  /// Objects sorted by ref, each with its values in the schema's key order
  /// (attributes by name, then relationships), or with what changed.
  @Test func aSaveLineListsEachObjectSortedByRefWithItsValuesOrChanges() throws {
    let fixture = try Fixture()
    let first = try #require(
      try fixture.save { fixture in
        try fixture.insert("bob", "Person", ["name": "Bob", "age": 50])
        try fixture.insert("acme", "Company", ["name": "Acme"])
        try fixture.insert("ann", "Person", ["name": "Ann"])
        try fixture.context.setTargets(
          [fixture.objects["ann"]!, fixture.objects["bob"]!], forKey: "employees", of: fixture.objects["acme"]!)
      })
    #expect(
      JSONValue(save: first, ref: fixture.ref).serialized
        == #"{"save":1,"inserted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":["ann","bob"]}},"#
        + #"{"ref":"ann","entity":"Person","values":{"age":null,"name":"Ann","employer":"acme"}},"#
        + #"{"ref":"bob","entity":"Person","values":{"age":50,"name":"Bob","employer":"acme"}}],"#
        + #""updated":[],"deleted":[]}"#)
    let second = try #require(
      try fixture.save { fixture in
        try fixture.objects["ann"]!.setValue(.int(31), forKey: "age")
        try fixture.context.delete(fixture.objects["bob"]!)
      })
    // The position comes after the save's number; a to-many relationship
    // lists the refs it gained and lost, not its whole set.
    #expect(
      JSONValue(save: second, position: "0/16B3F40", ref: fixture.ref).serialized
        == #"{"save":2,"position":"0/16B3F40","inserted":[],"updated":["#
        + #"{"ref":"acme","entity":"Company","changed":{"employees":{"added":[],"removed":["bob"]}}},"#
        + #"{"ref":"ann","entity":"Person","changed":{"age":{"old":null,"new":31}}}],"#
        + #""deleted":[{"ref":"bob","entity":"Person","values":{"age":50,"name":"Bob","employer":"acme"}}]}"#)
  }

  @Test func aLinePerWatchThatSawSomethingInWatchOrder() throws {
    let fixture = try Fixture()
    let lines = try WatchLines(
      context: fixture.context,
      watches: watches(
        """
        [{"id": "seniors", "entity": "Person", "predicate": "age > %d", "args": [30]},
         {"id": "acme-staff", "entity": "Person", "predicate": "employer.name == 'Acme'",
          "events": ["entered", "exited"]},
         {"id": "companies", "entity": "Company", "predicate": "TRUEPREDICATE"}]
        """))
    _ = try fixture.save { fixture in
      try fixture.insert("bob", "Person", ["name": "Bob", "age": 50])
      try fixture.insert("cy", "Person", ["name": "Cy", "age": 60])
      try fixture.insert("ann", "Person", ["name": "Ann", "age": 20])
    }
    _ = try fixture.save { fixture in
      try fixture.objects["ann"]!.setValue(.int(40), forKey: "age")
      try fixture.objects["bob"]!.setValue(.int(10), forKey: "age")
      try fixture.insert("acme", "Company", ["name": "Acme"])
      try fixture.context.setTargets([fixture.objects["cy"]!], forKey: "employees", of: fixture.objects["acme"]!)
    }
    // Two saves, taken at once: in save order, then watch order.
    #expect(
      lines.take(ref: fixture.ref).map(\.serialized) == [
        #"{"save":1,"watch":"seniors","inserted":["bob","cy"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":2,"watch":"seniors","inserted":[],"updated":["cy"],"entered":["ann"],"exited":["bob"],"deleted":[]}"#,
        #"{"save":2,"watch":"acme-staff","inserted":[],"updated":[],"entered":["cy"],"exited":[],"deleted":[]}"#,
        #"{"save":2,"watch":"companies","inserted":["acme"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
      ])
    // Taken lines are gone; discarded ones are never rendered.
    #expect(lines.take(ref: fixture.ref).isEmpty)
    _ = try fixture.save { fixture in try fixture.context.delete(fixture.objects["cy"]!) }
    lines.discard()
    #expect(lines.take(ref: fixture.ref).isEmpty)
    _ = try fixture.save { fixture in try fixture.objects["ann"]!.setValue(.int(41), forKey: "age") }
    #expect(
      lines.take(ref: fixture.ref).map(\.serialized) == [
        #"{"save":4,"watch":"seniors","inserted":[],"updated":["ann"],"entered":[],"exited":[],"deleted":[]}"#
      ])
  }

  @Test func watchesThatDoNotValidateAreEachReportedAndNoneIsRegistered() throws {
    let fixture = try Fixture()
    let error = try #require(throws: WatchesFile.Problems.self) {
      try WatchLines(
        context: fixture.context,
        watches: watches(
          """
          [{"id": "fine", "entity": "Person", "predicate": "age > 3"},
           {"id": "bad", "entity": "Person", "predicate": "agee > 3"},
           {"id": "worse", "entity": "Persn", "predicate": "age > 3"}]
          """))
    }
    #expect(
      error.messages == [
        """
        watch 'bad' on Person:
        error: Person has no key 'agee' (did you mean 'age'?)
         --> predicate:1:1
          |
        1 | agee > 3
          | ^^^^
        """,
        "watch 'worse' on Persn: unknown entity 'Persn' (entities: Person, Company)",
      ])
  }
}
