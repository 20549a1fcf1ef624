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
    #expect(missing.problems == ["entities[0]: needs a \"name\" string"])
    let notJSON = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data("{".utf8)) }
    #expect(notJSON.problems.count == 1)
    #expect(notJSON.problems[0].hasPrefix("invalid schema JSON: "))
    #expect(!notJSON.problems[0].contains("given data"))
  }

  /// A misspelt key is refused, naming the entity and the property, with
  /// the field it likely misspells; a misspelt `deleteRule` never quietly
  /// becomes `nullify`.
  @Test func refusesUnknownKeysWithADidYouMean() throws {
    let json = """
      {"entities": [
        {"name": "Person", "abstrct": true, "ignoredKey": ["x"],
         "attributes": {"age": {"type": "integer", "optionl": true}},
         "relationships": {"employer": {"destination": "Company", "inverse": "staff", "delteRule": "cascade"}}},
        {"name": "Company", "Attributes": {},
         "relationships": {"staff": {"destination": "Person", "toMany": true, "inverse": "employer"}}}
      ], "entites": []}
      """
    let error = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data(json.utf8)) }
    #expect(
      error.problems == [
        "the schema: unknown field 'entites' (did you mean 'entities'?)",
        "Person: unknown field 'abstrct' (fields: name, parent, attributes, relationships, ignoredKeys)",
        "Person: unknown field 'ignoredKey' (did you mean 'ignoredKeys'?)",
        "Person.age: unknown field 'optionl' (did you mean 'optional'?)",
        "Person.employer: unknown field 'delteRule' (did you mean 'deleteRule'?)",
        "Company: unknown field 'Attributes' (did you mean 'attributes'?)",
      ])
  }

  /// Fields that a caller reads itself, such as a database adapter's
  /// table mapping, are let through when it names them.
  @Test func letsThroughTheEntityFieldsTheCallerNames() throws {
    let json = #"{"entities": [{"name": "Person", "table": "people", "primaryKey": "id"}]}"#
    let schema = try ObjectSchema(json: Data(json.utf8), allowingEntityFields: ["table", "primaryKey"])
    #expect(schema.entity(named: "Person") != nil)
    let error = try #require(throws: SchemaError.self) {
      try ObjectSchema(json: Data(json.utf8), allowingEntityFields: ["table"])
    }
    #expect(
      error.problems == [
        "Person: unknown field 'primaryKey' (fields: name, parent, attributes, relationships, ignoredKeys, table)"
      ])
  }

  /// A value of the wrong type says where it is, what it should be and
  /// what it is, never in a decoder's words.
  @Test func namesThePlaceTheExpectedAndTheFoundTypeOfAMismatch() throws {
    let json = """
      {"entities": [
        {"name": "Person", "parent": 3, "ignoredKeys": ["a", 1],
         "attributes": {"age": {"type": "integer", "optional": "yes", "default": [0]},
                        "name": {"type": 5}, "nick": "string"},
         "relationships": {"employer": {"destination": "Company", "toMany": 1}}},
        {"name": 5, "attributes": []},
        "Company",
        {"name": "Town", "ignoredKeys": "x", "relationships": {"mayor": {"inverse": "town"}}}
      ]}
      """
    let error = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data(json.utf8)) }
    #expect(
      error.problems == [
        "Person: \"parent\" is a string, not the number 3",
        "Person: ignoredKeys[1] is a string, not the number 1",
        "Person.age: \"optional\" is a Boolean, not the string \"yes\"",
        "Person.age: the default value is an integer, not an array",
        "Person.name: \"type\" is a string, not the number 5",
        "Person.nick: an attribute is a JSON object, not the string \"string\"",
        "Person.employer: \"toMany\" is a Boolean, not the number 1",
        "entities[1]: \"name\" is a string, not the number 5",
        "entities[1]: \"attributes\" is an object of attributes by name, not an array",
        "entities[2]: an entity is a JSON object, not the string \"Company\"",
        "Town: \"ignoredKeys\" is an array of strings, not the string \"x\"",
        "Town.mayor: needs a \"destination\" string",
        "entity 'Person' ignores an unknown key 'a'",
        "Person.employer: unknown destination entity 'Company'",
      ])
    let notAnObject = try #require(throws: SchemaError.self) { try ObjectSchema(json: Data("[]".utf8)) }
    #expect(notAnObject.problems == ["the schema is a JSON object with an \"entities\" array, not an array"])
    let noEntities = try #require(throws: SchemaError.self) {
      try ObjectSchema(json: Data(#"{"entities": {}}"#.utf8))
    }
    #expect(noEntities.problems == ["the schema needs an \"entities\" array, not an object"])
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
