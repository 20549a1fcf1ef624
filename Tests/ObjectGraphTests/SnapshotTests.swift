import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Snapshots")
struct SnapshotTests {
  @Test func savedSnapshotsAreTheObjectsAsLastSaved() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Employee", values: ["name": "Bob", "age": 40])
      try context.insert("Person", values: ["name": "Cat", "age": 50])
      try context.save()
      try ann.setValue(31, forKey: "age")
      try context.setValue(41, forKey: "age", of: bob)
      try context.delete(bob)
      try context.insert("Person", values: ["name": "Dan", "age": 60])
      // Ann and Bob (a sub-entity's, deleted since) with their saved ages,
      // Cat unchanged; not Dan, inserted since.
      let saved = try context.savedSnapshots(of: "Person")
      #expect(saved.map { $0["name"] } == [.string("Ann"), .string("Bob"), .string("Cat")])
      #expect(saved.map { $0["age"] } == [.int(30), .int(40), .int(50)])
      #expect(try context.savedSnapshots(of: "Employee").map { $0["name"] } == [.string("Bob")])
    }
  }

  @Test func snapshotsAreImmutableCopies() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Employee", values: ["name": "Ann", "age": 30, "salary": 5])
      try ann.setRelationship("employer", to: acme)
      let before = ann.snapshot()
      try ann.setValue(31, forKey: "age")
      #expect(before["age"] == 30 && ann.snapshot()["age"] == 31)
      #expect(before.entityName == "Employee")
      #expect(before.isKind(of: "Person") && before.isKind(of: "Employee") && !before.isKind(of: "Company"))
      #expect(before.targets(of: "employer") == .toOne(acme.objectID))
      #expect(before.property("employer") == .relationship(.toOne(acme.objectID)))
      #expect(before.property("name") == .attribute("Ann"))
      #expect(before.attributeValues["salary"] == .double(5))
      #expect(before.relationshipTargets["passport"] == .toOne(nil))
      #expect(
        before.description
          == #"Employee \#(ann.objectID) {name: "Ann", age: 30, active: TRUE, salary: 5.0, employer: \#(acme.objectID)}"#
      )
    }
  }

  @Test func roundTripsThroughCodableWithTheSchema() throws {
    let snapshot = try Fixtures.context().run { context throws in
      let acme = try context.insert(
        "Company", values: ["name": "Acme", "founded": .date(secondsSinceReferenceDate: 12.5)])
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try acme.add(ann, to: "employees")
      return acme.snapshot()
    }
    let data = try JSONEncoder().encode(snapshot)
    let decoder = JSONDecoder()
    decoder.userInfo[ObjectSnapshot.schemaUserInfoKey] = Fixtures.schema
    let decoded = try decoder.decode(ObjectSnapshot.self, from: data)
    #expect(decoded == snapshot)
    #expect(decoded["founded"] == .date(secondsSinceReferenceDate: 12.5))

    let missing = try #require(throws: DecodingError.self) { try JSONDecoder().decode(ObjectSnapshot.self, from: data) }
    #expect("\(missing)".contains("needs the ObjectSchema"))
    let bad = Data(#"{"id": 1, "entity": "Person", "values": {"age": "old"}}"#.utf8)
    let typed = try #require(throws: DecodingError.self) { try decoder.decode(ObjectSnapshot.self, from: bad) }
    #expect("\(typed)".contains("'age' is not a Person attribute that takes string values"))
  }

  @Test func filterValuesRoundTripThroughCodable() throws {
    let values: [FilterValue] = [
      nil, true, 1, 1.0, "1", .date(secondsSinceReferenceDate: -3), .uuid(0xE621_E1F8_C36C_495A_93FC_0C24_7A3E_6E5F),
      .data([0, 255]), [1, "a"], .set([1, 2]), ["k": [nil]],
    ]
    let decoded = try JSONDecoder().decode([FilterValue].self, from: JSONEncoder().encode(values))
    #expect(decoded == values)
  }

  @Test func snapshotFiltersReadAttributesAndCounts() throws {
    let schema = Fixtures.schema
    let (ann, acme) = try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Employee", values: ["name": "Ann", "age": 30])
      try acme.add(ann, to: "employees")
      return (ann.snapshot(), acme.snapshot())
    }
    #expect(try schema.snapshotFilter("age >= 30 AND name BEGINSWITH 'A'", for: "Person").evaluate(ann))
    #expect(try !schema.snapshotFilter("age > %d", arguments: [30], for: "Person").evaluate(ann))
    #expect(try schema.snapshotFilter("employees.@count == 1", for: "Company").evaluate(acme))
    let error = try #require(throws: PredicateCompileError.self) {
      try schema.snapshotFilter("employer.name == 'Acme'", for: "Person")
    }
    #expect(error.code == .unsupported)
    #expect(
      error.message
        == "'employer.name' follows the relationship 'employer' of Person, which a snapshot cannot do; "
        + "evaluate on live objects (fetch), or read only attributes and '@count'")
    #expect(throws: ObjectGraphError.self) { try schema.snapshotFilter("x == 1", for: "Nobody") }
  }
}
