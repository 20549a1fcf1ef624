import ObjectGraph
import PostgresChangeSource
import PredicateDSL
import Testing

@Suite("Mapping")
struct MappingTests {
  typealias Table = DatabaseCatalog.Table
  typealias Column = DatabaseCatalog.Table.Column

  /// The catalog of TestDatabase.createTables in namespace `public`.
  static func matchingCatalog() -> DatabaseCatalog {
    DatabaseCatalog(tables: [
      "public.company": Table(
        columns: [
          "id": Column(typeOID: 20, isNotNull: true), "name": Column(typeOID: 25, isNotNull: true),
          "founded": Column(typeOID: 1184, isNotNull: false),
        ], primaryKey: ["id"], foreignKeys: [:], hasFullReplicaIdentity: true),
      "public.person": Table(
        columns: [
          "id": Column(typeOID: 20, isNotNull: true), "name": Column(typeOID: 25, isNotNull: true),
          "age": Column(typeOID: 23, isNotNull: false), "score": Column(typeOID: 701, isNotNull: false),
          "active": Column(typeOID: 16, isNotNull: false), "token": Column(typeOID: 2950, isNotNull: false),
          "avatar": Column(typeOID: 17, isNotNull: false), "employer_id": Column(typeOID: 20, isNotNull: false),
        ], primaryKey: ["id"], foreignKeys: ["employer_id": "public.company"], hasFullReplicaIdentity: true),
    ])
  }

  static func defaultMapping() throws -> ReplicaMapping {
    try ReplicaMapping(
      schema: TestDatabase.schema,
      tables: [TableMapping(entity: "Company", table: "company"), TableMapping(entity: "Person", table: "person")])
  }

  @Test func defaultsMatchTheConventionalTables() throws {
    let mapping = try Self.defaultMapping()
    #expect(mapping.problems(in: Self.matchingCatalog()).isEmpty)
    #expect(mapping.tables.map(\.tableName) == ["company", "person"])
  }

  @Test func namesEveryMismatchWithTheCatalog() throws {
    var catalog = Self.matchingCatalog()
    catalog.tables["public.person"]?.hasFullReplicaIdentity = false
    catalog.tables["public.person"]?.columns["age"] = Column(typeOID: 25, isNotNull: false)
    catalog.tables["public.person"]?.columns["score"] = nil
    catalog.tables["public.person"]?.foreignKeys = [:]
    catalog.tables["public.company"]?.columns["name"]?.isNotNull = false
    catalog.tables["public.company"]?.primaryKey = ["id", "name"]
    let problems = try Self.defaultMapping().problems(in: catalog)
    #expect(
      problems == [
        "public.company: the primary key is (id, name), the mapping says (id)",
        "Company.name: column public.company.name is nullable; the attribute is required",
        "public.person is not under REPLICA IDENTITY FULL (ALTER TABLE public.person REPLICA IDENTITY FULL)",
        "Person.age: column public.person.age is text; an integer attribute admits bigint, integer or smallint",
        "Person.score: column public.person.score does not exist",
        "Person.employer: column public.person.employer_id is no foreign key;"
          + " the mapping needs a foreign key to public.company",
      ])
  }

  @Test func namesAMissingTable() throws {
    var catalog = Self.matchingCatalog()
    catalog.tables["public.company"] = nil
    let problems = try Self.defaultMapping().problems(in: catalog)
    #expect(problems == ["Company: table public.company does not exist"])
  }

  @Test func refusesAMappingThatDoesNotFitTheSchema() throws {
    let error = try #require(throws: PostgresReplicaError.self) {
      try ReplicaMapping(
        schema: TestDatabase.schema,
        tables: [
          TableMapping(entity: "Robot"),
          TableMapping(entity: "Person", columns: ["nickname": "nick"], foreignKeys: ["employees": "x"]),
          TableMapping(entity: "Company", foreignKeys: ["employees": "company_id"]),
        ])
    }
    #expect(error.code == .mappingMismatch)
    #expect(
      error.message
        == "mapping of unknown entity 'Robot'; Company: 'employees' in foreignKeys is a to-many relationship;"
        + " map its inverse; Person: 'nickname' in columns is not an attribute; Person: 'employees' in"
        + " foreignKeys is not a relationship")
  }

  @Test func refusesARelationshipToAnEntityThatIsNotReplicated() throws {
    let error = try #require(throws: PostgresReplicaError.self) {
      try ReplicaMapping(schema: TestDatabase.schema, entities: ["Person"])
    }
    #expect(error.message == "Person.employer: its destination 'Company' is not replicated")
  }

  @Test func aOneToOneNeedsItsColumnNamed() throws {
    let schema = try ObjectSchema([
      EntityDescription(
        "Person", attributes: [.init("name", .string)],
        relationships: [.toOne("passport", destination: "Passport", inverse: "owner")]),
      EntityDescription(
        "Passport", attributes: [.init("number", .string)],
        relationships: [.toOne("owner", destination: "Person", inverse: "passport")]),
    ])
    let error = try #require(throws: PostgresReplicaError.self) { try ReplicaMapping(schema: schema) }
    #expect(
      error.message
        == "Person.passport: to-one with a to-one inverse, and neither side names its column in foreignKeys;"
        + " Passport.owner: to-one with a to-one inverse, and neither side names its column in foreignKeys")
    let mapping = try ReplicaMapping(
      schema: schema, tables: [TableMapping(entity: "Passport", foreignKeys: ["owner": "owner_id"])])
    #expect(mapping.tables.map(\.tableName) == ["Person", "Passport"])
  }
}
