import ObjectGraph
import PredicateDSL
import Testing

/// Inheritance is checked in time and memory linear in the number of
/// entities: a long chain and a long cycle answer at once, with one
/// problem each, where following every chain from every entity took
/// quadratic time (or never finished, on a cycle).
@Suite("Schema: inheritance at scale")
struct SchemaScaleTests {
  /// `E0 ← E1 ← … ← E(count-1)`, each with an attribute of its own.
  static func chain(_ count: Int) -> [EntityDescription] {
    (0..<count).map { index in
      EntityDescription(
        "E\(index)", parent: index == 0 ? nil : "E\(index - 1)", attributes: [.init("a\(index)", .integer)])
    }
  }

  @Test func aChainDeeperThanTheLimitIsOneProblem() throws {
    let error = try #require(throws: SchemaError.self) { try ObjectSchema(Self.chain(3_000)) }
    #expect(error.problems == ["entity 'E65' is more than 64 levels of sub-entities below 'E0'"])
  }

  @Test func aChainAtTheLimitIsLaidOut() throws {
    let schema = try ObjectSchema(Self.chain(ObjectSchema.maximumInheritanceDepth + 1))
    #expect(schema.keys(of: "E64")?.count == 65)
    #expect(schema.kinds(of: "E0")?.count == 65)
  }

  @Test func aCycleOfTenThousandEntitiesIsOneProblemNamingThem() throws {
    let count = 10_000
    let entities = (0..<count).map { EntityDescription("E\($0)", parent: "E\(($0 + 1) % count)") }
    let error = try #require(throws: SchemaError.self) { try ObjectSchema(entities) }
    #expect(
      error.problems == [
        "inheritance cycle of 10000 entities: 'E0' → 'E1' → 'E2' → 'E3' → 'E4' → 'E5' → 'E6' → 'E7' → … → 'E0'"
      ])
  }

  @Test func entitiesLeadingIntoACycleAreNotReportedAgain() throws {
    let error = try #require(throws: SchemaError.self) {
      try ObjectSchema([
        EntityDescription("Tail", parent: "A"), EntityDescription("A", parent: "B"),
        EntityDescription("B", parent: "A"), EntityDescription("Self", parent: "Self"),
      ])
    }
    #expect(
      error.problems == [
        "inheritance cycle of 2 entities: 'A' → 'B' → 'A'", "entity 'Self' inherits from itself",
      ])
  }

  @Test func manyShallowTreesAreLinear() throws {
    // 20,000 entities in trees four deep: 80,000 ancestor links in all.
    let entities = (0..<20_000).map { index in
      EntityDescription(
        "E\(index)", parent: index % 4 == 0 ? nil : "E\(index - 1)", attributes: [.init("a\(index)", .string)])
    }
    let schema = try ObjectSchema(entities)
    #expect(schema.keys(of: "E19999") == ["a19996", "a19997", "a19998", "a19999"])
  }
}
