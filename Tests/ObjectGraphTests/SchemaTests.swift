import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Schema")
struct SchemaTests {
  @Test func subEntitiesInheritKeysAndAreKindsOfTheirParents() throws {
    let schema = Fixtures.schema
    #expect(
      schema.keys(of: "Employee") == [
        "name", "age", "score", "active", "salary", "employer", "department", "passport",
      ])
    #expect(schema.kinds(of: "Person") == ["Person", "Employee"])
    #expect(schema.kinds(of: "Employee") == ["Employee"])
    #expect(schema.kinds(of: "Nobody") == nil)
    #expect(schema.entity(named: "Employee")?.parent == "Person")
  }

  @Test func listsEveryProblemAtOnce() throws {
    let error = try #require(throws: SchemaError.self) {
      try ObjectSchema([
        EntityDescription(
          "Person", attributes: [.init("name", .string), .init("age", .integer, defaultValue: "old")],
          relationships: [
            .toOne("employer", destination: "Firm", inverse: "staff"),
            .toOne("home", destination: "City", inverse: ""),
            .toOne("city", destination: "City", inverse: "people"),
            .toOne("name", destination: "City", inverse: "mayor"),
          ]),
        EntityDescription(
          "City",
          relationships: [
            .toMany("people", destination: "Person", inverse: "home"),
            .toOne("mayor", destination: "Person", inverse: "name"),
          ]),
        EntityDescription("City"),
        EntityDescription("Ghost", parent: "Spirit"),
        EntityDescription("A", parent: "B"),
        EntityDescription("B", parent: "A"),
      ])
    }
    #expect(
      error.problems == [
        "entity 'City' is defined more than once",
        "entity 'Ghost' has an unknown parent 'Spirit'",
        "inheritance cycle of 2 entities: 'A' → 'B' → 'A'",
        "entity 'Person' has more than one property named 'name'",
        "Person.age: default value string \"old\" is not an integer",
        "Person.employer: unknown destination entity 'Firm'",
        "Person.home: missing inverse relationship",
        "Person.city: inverse 'City.people' points to 'Person.home', not back to 'Person.city'",
      ])
    #expect(error.description.hasPrefix("invalid schema: 8 problems: entity 'City' is defined more than once; "))
  }

  @Test func rejectsAnInverseOnTheWrongEntity() throws {
    let error = try #require(throws: SchemaError.self) {
      try ObjectSchema([
        EntityDescription("A", relationships: [.toOne("b", destination: "B", inverse: "c")]),
        EntityDescription("B", relationships: [.toOne("c", destination: "C", inverse: "b")]),
        EntityDescription("C", relationships: [.toOne("b", destination: "B", inverse: "c")]),
      ])
    }
    #expect(error.problems == ["A.b: inverse 'B.c' points to 'C.b', not back to 'A.b'"])
  }

  @Test func loadsTheJSONFormat() throws {
    let json = """
      {"entities": [
        {"name": "Person", "parent": null,
         "attributes": {"age": {"type": "integer", "optional": true, "default": 0},
                        "name": {"type": "string"},
                        "born": {"type": "date", "optional": true, "default": "2001-01-01T00:01:00Z"},
                        "height": {"type": "double", "optional": true, "default": 2}},
         "relationships": {"employer": {"destination": "Company", "toMany": false,
                                        "inverse": "employees", "deleteRule": "nullify"}},
         "ignoredKeys": ["height"]},
        {"name": "Company", "attributes": {"name": {"type": "string"}},
         "relationships": {"employees": {"destination": "Person", "toMany": true,
                                         "inverse": "employer", "deleteRule": "deny"}}}
      ]}
      """
    let schema = try ObjectSchema(json: Data(json.utf8))
    let person = try #require(schema.entity(named: "Person"))
    #expect(
      person.attributes == [
        AttributeDescription("age", .integer, isOptional: true, defaultValue: 0),
        AttributeDescription("born", .date, isOptional: true, defaultValue: .date(secondsSinceReferenceDate: 60)),
        AttributeDescription("height", .double, isOptional: true, defaultValue: .double(2)),
        AttributeDescription("name", .string),
      ])
    #expect(person.ignoredKeys == ["height"])
    #expect(
      schema.entity(named: "Company")?.relationships == [
        .toMany("employees", destination: "Person", inverse: "employer", deleteRule: .deny)
      ])
  }

  @Test func listsJSONProblemsWithSchemaProblems() throws {
    let json = """
      {"entities": [
        {"name": "Person",
         "attributes": {"age": {"type": "int"}, "name": {"type": "string", "default": 3}},
         "relationships": {"employer": {"destination": "Company", "deleteRule": "explode"},
                           "home": {"destination": "Town", "inverse": "people"}}}
      ]}
      """
    let error = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data(json.utf8)) }
    #expect(
      error.problems == [
        "Person.age: unknown type 'int' (types: string, integer, double, boolean, date, uuid, data)",
        "Person.name: default value 3 is not a string",
        "Person.employer: unknown delete rule 'explode' (rules: nullify, cascade, deny)",
        "Person.employer: unknown destination entity 'Company'",
        "Person.home: unknown destination entity 'Town'",
      ])
  }

  @Test func reportsMalformedJSONWithItsPath() throws {
    let missing = try #require(throws: SchemaError.self) {
      try ObjectSchema(json: Data(#"{"entities": [{"attributes": {}}]}"#.utf8))
    }
    #expect(missing.problems == ["invalid schema JSON: entities[0] has no 'name'"])
    let notJSON = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data("{".utf8)) }
    #expect(notJSON.problems.count == 1)
    #expect(notJSON.problems[0].hasPrefix("invalid schema JSON at the top level"))
  }
}

@Suite("Schema builder")
struct SchemaBuilderTests {
  @Test func buildsTheSameSchemaAsTheDescriptions() throws {
    let withHistory = true
    let built = try ObjectSchema {
      EntityDescription("Company") {
        AttributeDescription("name", .string)
        RelationshipDescription.toMany("employees", destination: "Person", inverse: "employer", deleteRule: .deny)
      }
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        AttributeDescription("age", .integer, isOptional: true, defaultValue: 0)
        RelationshipDescription.toOne("employer", destination: "Company", inverse: "employees")
        EntityProperty.ignoring("lastSeen")
        if withHistory { AttributeDescription("lastSeen", .date, isOptional: true) }
        for index in 1...2 { AttributeDescription("note\(index)", .string, isOptional: true) }
      }
      EntityDescription("Employee", parent: "Person") {
        AttributeDescription("salary", .double, isOptional: true)
      }
    }
    #expect(
      built.entities == [
        EntityDescription(
          "Company", attributes: [.init("name", .string)],
          relationships: [.toMany("employees", destination: "Person", inverse: "employer", deleteRule: .deny)]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string), .init("age", .integer, isOptional: true, defaultValue: 0),
            .init("lastSeen", .date, isOptional: true), .init("note1", .string, isOptional: true),
            .init("note2", .string, isOptional: true),
          ],
          relationships: [.toOne("employer", destination: "Company", inverse: "employees")], ignoredKeys: ["lastSeen"]),
        EntityDescription("Employee", parent: "Person", attributes: [.init("salary", .double, isOptional: true)]),
      ])
    let error = try #require(throws: SchemaError.self) {
      try ObjectSchema {
        EntityDescription("Person") { RelationshipDescription.toOne("pet", destination: "Dog", inverse: "owner") }
      }
    }
    #expect(error.problems == ["Person.pet: unknown destination entity 'Dog'"])
  }
}
