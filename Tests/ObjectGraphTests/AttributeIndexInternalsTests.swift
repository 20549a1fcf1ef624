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
}
