// The attribute index's invariant (through @testable import): it holds
// exactly the live objects whose value is not NaN, each under its value.

import PredicateDSL
import Testing

@testable import ObjectGraph

@Suite("Object graph: attribute index internals")
struct AttributeIndexInternalsTests {
  @Test func nanValuesAreNeverIndexedAndDeletedObjectsLeave() throws {
    let schema = try ObjectSchema([
      EntityDescription("Reading", attributes: [.init("value", .double, isIndexed: true)])
    ])
    let context = ObjectContext(schema: schema, notificationCenter: nil)
    try context.performAndWait { context in
      let readings = try (0..<6).map { try context.insert("Reading", values: ["value": .double(Double($0 % 3))]) }
      for reading in readings.prefix(3) { try reading.setValue(.double(.nan), forKey: "value") }
      _ = try context.save()
      try readings[3].setValue(.double(.nan), forKey: "value")
      for reading in readings.prefix(2) { try context.delete(reading) }
      _ = try context.save()
      // Live: readings 2...5; of them 2 and 3 hold NaN.
      let index = context.members[schema.layout(named: "Reading")!.index].valueIndexes[0]!
      let indexed = index.values.flatMap { $0 }.map(\.objectID).sorted()
      #expect(indexed == [readings[4].objectID, readings[5].objectID])
      #expect(index.keys.allSatisfy { if case .double(let number) = $0.value { !number.isNaN } else { true } })
    }
  }

  /// A range selects the lists of the values the predicate's ordering
  /// accepts: strings by Unicode scalars, numbers exactly, nil never.
  @Test func rangesSelectTheValuesThePredicateOrders() throws {
    let schema = try ObjectSchema([
      EntityDescription(
        "Item",
        attributes: [
          .init("name", .string, isOptional: true, isIndexed: true), .init("size", .double, isIndexed: true),
        ])
    ])
    let context = ObjectContext(schema: schema, notificationCenter: nil)
    try context.performAndWait { context in
      let names: [FilterValue] = ["a", "e\u{301}", "\u{E9}", "z", .null, "\u{E9}"]
      for (index, name) in names.enumerated() {
        try context.insert("Item", values: ["name": name, "size": .double(index == 5 ? 9_007_199_254_740_992 : 1.5)])
      }
      let layout = schema.layout(named: "Item")!
      let members = context.members[layout.index]
      let nameSlot = layout.attributes.firstIndex { $0.name == "name" }!
      let sizeSlot = layout.attributes.firstIndex { $0.name == "size" }!
      func selected(_ slot: Int, _ operation: ComparisonSyntax.Operator, _ constant: FilterValue) -> [FilterValue]? {
        var lists: [[ManagedObject]] = []
        guard members.members(slot: slot, where: operation, constant, into: &lists) else { return nil }
        return lists.flatMap { $0 }.sorted { $0.objectID < $1.objectID }.map { $0.values[slot] }
      }
      #expect(selected(nameSlot, .greater, "e") == ["e\u{301}", "\u{E9}", "z", "\u{E9}"])
      // "z" (U+007A) sorts before "é" (U+00E9).
      #expect(selected(nameSlot, .greaterOrEqual, "\u{E9}") == ["\u{E9}", "\u{E9}"])
      #expect(selected(nameSlot, .less, "\u{E9}") == ["a", "e\u{301}", "z"])
      #expect(selected(nameSlot, .lessOrEqual, "a") == ["a"])
      // 2^53 + 1 is above 2^53, though as a double it is 2^53.
      #expect(selected(sizeSlot, .greaterOrEqual, .int(9_007_199_254_740_993)) == [])
      #expect(
        selected(sizeSlot, .greater, .int(1)) == [
          .double(1.5), .double(1.5), .double(1.5), .double(1.5),
          .double(1.5), .double(9_007_199_254_740_992),
        ])
      // A value the constant cannot be ordered against: no selection, the
      // scan raises the predicate's error.
      #expect(selected(nameSlot, .greater, .int(3)) == nil)
    }
  }
}
