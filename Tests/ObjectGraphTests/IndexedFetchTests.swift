import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Fetches through indexed attributes against the same fetches on a twin
/// context whose attributes are not indexed, after every step of random
/// inserts, updates, deletes, saves and rollbacks.
@Suite("Object graph: indexed fetch")
struct IndexedFetchTests {
  static func schema(indexed: Bool) -> ObjectSchema {
    try! ObjectSchema([
      EntityDescription(
        "Person",
        attributes: [
          .init("name", .string), .init("city", .string, isOptional: true, isIndexed: indexed),
          .init("age", .integer, isOptional: true, isIndexed: indexed), .init("score", .double, isIndexed: indexed),
        ]),
      EntityDescription("Employee", parent: "Person", attributes: [.init("salary", .integer, isOptional: true)]),
    ])
  }

  static let predicates: [(String, [FilterValue])] = [
    ("city == %@", ["Oslo"]), ("city == nil", []), ("%@ == city AND age > 20", ["Rome"]),
    ("age IN {1, 2, 3, 30}", []), ("age == %@ OR city == 'Oslo'", [30]), ("score == 2", []),
    ("age > 10 AND city IN {'Lima', 'Kyiv'}", []), ("city ==[c] 'oslo'", []), ("age == 30.5", []),
    ("name == 'x' AND age == 3", []),
    // The index reads the first conjunct only: a later one that raises
    // (division by zero at age 0) raises through both routes alike.
    ("city == 'Oslo' AND 100 / age > 1", []), ("100 / age > 1 AND city == 'Oslo'", []),
    // Strings are equal by code units: "é" precomposed is not "e" and a
    // combining accent, nor the Kelvin sign "K", though Swift's `==` says so.
    ("city == %@", ["\u{E9}"]), ("city == %@ AND age > 5", ["e\u{301}"]), ("city IN {'K', 'Lima'}", []),
    // A value named twice selects its objects once.
    ("age IN {3, 3, 30}", []), ("score IN {1, 1.0, 2}", []),
    // 2^53 + 1 becomes 2^53 as a double: the index's bucket holds more
    // than the comparison matches.
    ("score == 9007199254740993", []), ("score == 9007199254740992", []),
    // Ranges, either way round, compared as the predicate compares: strings
    // by Unicode scalars, integers against doubles exactly; a constant of
    // another type, or nil, leaves the work (and the error) to the scan.
    ("age > 20", []), ("age <= 3 AND city == 'Oslo'", []), ("30 > age", []), ("city < 'M'", []),
    ("city >= %@ AND age < 30", ["e"]), ("score > 1", []), ("score < 2.5 AND age > 10", []),
    ("score >= 9007199254740993", []), ("age > 1.5", []), ("age > nil", []), ("city > 3", []),
    // Narrow ones, which the index serves (past a quarter of the objects,
    // the scan does): "e" and a combining accent sort before "é".
    ("age < 2", []), ("age >= 38 AND score > 0", []), ("city > %@", ["\u{E9}"]), ("score > 3", []),
    // After the indexed conjunct, comparisons of attributes with constants
    // are evaluated on the values without a compiled predicate: every
    // operator, either way round, nil and NaN values, integers against
    // doubles, several in a row; and shapes that still need compiling
    // (nil, options, another type, a key path, an unknown key).
    ("city == 'Oslo' AND age != 3", []), ("city == 'Oslo' AND 20 <= age", []), ("city == 'Rome' AND score != 2", []),
    ("city == 'Rome' AND score >= 1 AND age < 30 AND name != 'p3'", []), ("age == 3 AND city != 'Oslo'", []),
    ("age == 3 AND city < 'M'", []), ("age == 3 AND 'M' > city", []), ("city == 'Oslo' AND name >= 'p2'", []),
    ("city == 'Oslo' AND score == 9007199254740993", []), ("city == 'Oslo' AND score < 9007199254740993", []),
    ("city == 'Oslo' AND score > 1.5", []), ("age == 3 AND city == nil", []), ("age == 3 AND city ==[c] 'oslo'", []),
    ("city == 'Oslo' AND age > 1.5", []), ("city == 'Oslo' AND age > 'a'", []), ("city == 'Oslo' AND nokey > 1", []),
    ("city == 'Oslo' AND age > %@", [.null]), ("city == 'Oslo' AND name == 3", []),
  ]

  @Test func indexedFetchesEqualScansThroughEveryKindOfChange() throws {
    let seed = SeededGenerator.seed(default: 0x1DE)
    var random = SeededGenerator(seed: seed)
    let contexts = [true, false].map { ObjectContext(schema: Self.schema(indexed: $0), notificationCenter: nil) }
    let cities: [FilterValue] = ["Oslo", "Rome", "Lima", "Kyiv", .null, "\u{E9}", "e\u{301}", "K", "\u{212A}"]
    for step in 0..<400 {
      // The same random step on both contexts: draw it once.
      let action = Int.random(in: 0..<10, using: &random)
      let values: [String: FilterValue] = [
        "name": .string("p\(step)"), "city": cities.randomElement(using: &random)!,
        "age": Int.random(in: 0..<5, using: &random) == 0 ? .null : .int(Int64.random(in: 0..<40, using: &random)),
        "score": Int.random(in: 0..<8, using: &random) == 0
          ? (Bool.random(using: &random) ? .double(.nan) : .double(9_007_199_254_740_992))
          : .double(Double(Int.random(in: 0..<4, using: &random))),
      ]
      let pick = Int.random(in: 0..<1_000, using: &random)
      for context in contexts {
        try context.performAndWait { context in
          let people = try context.objects(of: "Person")
          let person = people.isEmpty ? nil : people[pick % people.count]
          switch action {
          case 0..<3: try context.insert(pick % 4 == 0 ? "Employee" : "Person", values: values)
          case 3..<5: if let person { try context.setValue(values["city"]!, forKey: "city", of: person) }
          case 5:
            if let person { try context.setValues(["age": values["age"]!, "score": values["score"]!], of: person) }
          case 6: if let person { try context.delete(person) }
          case 7: context.rollback()
          default: _ = try context.save()
          }
        }
      }
      for (format, arguments) in Self.predicates {
        let request = try ObjectFetchRequest(entity: "Person", predicate: format, arguments: arguments)
        // Objects are named after the step that inserted them: the same
        // names in the same (identifier) order.
        // An evaluation error is an outcome too: its message.
        let outcome = { (context: ObjectContext) -> [String] in
          context.performAndWait { context in
            do { return try context.fetch(request).map { $0["name"]!.description } } catch { return ["\(error)"] }
          }
        }
        let (indexed, scanned) = (outcome(contexts[0]), outcome(contexts[1]))
        #expect(indexed == scanned, "\(format), step \(step), seed \(seed)")
        let count = contexts[0].performAndWait { try? $0.count(request) }
        #expect(count == nil || count == scanned.count)
      }
    }
  }

  /// Buckets of hundreds of objects, read in batches: the same matches as
  /// a scan, and the same error when an object past the first batch
  /// raises.
  @Test func largeBucketsMatchAsTheScanDoes() throws {
    let seed = SeededGenerator.seed(default: 0xB0C)
    var random = SeededGenerator(seed: seed)
    let contexts = [true, false].map { ObjectContext(schema: Self.schema(indexed: $0), notificationCenter: nil) }
    let rows = (0..<3_000).map { index -> [String: FilterValue] in
      [
        "name": .string("p\(index)"), "city": ["Oslo", "Rome", "Lima"].randomElement(using: &random)!,
        // Ages are never 0 in Rome but once, late: a division by zero
        // far from the bucket's first batch.
        "age": .int(index == 2_345 ? 0 : Int64.random(in: 1..<60, using: &random)),
        "score": .double(Double(Int.random(in: 0..<3, using: &random))),
      ]
    }
    for context in contexts {
      try context.performAndWait { context in
        for (index, values) in rows.enumerated() {
          var values = values
          if index == 2_345 { values["city"] = "Rome" }
          try context.insert(index % 3 == 0 ? "Employee" : "Person", values: values)
        }
        _ = try context.save()
      }
    }
    let cases: [(String, [FilterValue])] = [
      ("city == 'Oslo' AND age > 30", []), ("city IN {'Oslo', 'Lima'} AND age < 10", []),
      ("city == 'Rome' AND 100 / age > 1", []), ("score == 1 AND age > 50", []),
    ]
    for (format, arguments) in cases {
      let request = try ObjectFetchRequest(entity: "Person", predicate: format, arguments: arguments)
      let outcome = { (context: ObjectContext) -> [String] in
        context.performAndWait { context in
          do { return try context.fetch(request).map { $0["name"]!.description } } catch { return ["\(error)"] }
        }
      }
      let (indexed, scanned) = (outcome(contexts[0]), outcome(contexts[1]))
      #expect(indexed == scanned, "\(format), seed \(seed)")
      #expect(indexed.count > 1 || indexed.first?.contains("division") == true, "\(format): \(indexed)")
    }
  }

  /// The comparisons an indexed fetch evaluates on the values without
  /// compiling them, on every attribute type with every operator and
  /// constants of every type: the same matches, or the same error, as a
  /// scan through the compiled predicate.
  @Test func comparisonsAfterTheIndexedConjunctActAsCompiledOnes() throws {
    let seed = SeededGenerator.seed(default: 0xC0E)
    let random = SeededGenerator(seed: seed)
    let types: [(String, AttributeType)] = [
      ("s", .string), ("i", .integer), ("d", .double), ("b", .boolean), ("t", .date), ("u", .uuid), ("x", .data),
    ]
    let contexts = [true, false].map { indexed in
      ObjectContext(
        schema: try! ObjectSchema([
          EntityDescription(
            "Item",
            attributes: [.init("name", .string), .init("key", .string, isIndexed: indexed)]
              + types.map { .init($0.0, $0.1, isOptional: true) })
        ]), notificationCenter: nil)
    }
    let samples: [String: [FilterValue]] = [
      "s": [.null, "", "a", "m", "\u{E9}", "e\u{301}", "zz"], "i": [.null, -1, 0, 5, 6, .int(.max)],
      "d": [.null, .double(.nan), -0.0, 0.5, 1, 5.5, .double(.infinity), 9_007_199_254_740_992],
      "b": [.null, true, false],
      "t": [.null, .date(secondsSinceReferenceDate: 100), .date(secondsSinceReferenceDate: .nan)],
      "u": [.null, .uuid(1), .uuid(2)], "x": [.null, .data([1]), .data([])],
    ]
    for context in contexts {
      var random = random
      try context.performAndWait { context in
        for index in 0..<300 {
          var values: [String: FilterValue] = ["name": .string("n\(index)"), "key": index % 3 == 0 ? "k" : "j"]
          for (key, _) in types { values[key] = samples[key]!.randomElement(using: &random)! }
          try context.insert("Item", values: values)
        }
        _ = try context.save()
      }
    }
    let constants: [FilterValue] = [
      .null, "m", "", 5, 0, 5.5, 0.5, -0.0, 9_007_199_254_740_993, true, .date(secondsSinceReferenceDate: 100),
      .uuid(1), .data([1]),
    ]
    for (key, _) in types {
      for operation in ["==", "!=", "<", "<=", ">", ">="] {
        for constant in constants {
          for format in ["key == 'k' AND \(key) \(operation) %@", "key == 'k' AND %@ \(operation) \(key) AND i != 0"] {
            let request = try ObjectFetchRequest(entity: "Item", predicate: format, arguments: [constant])
            let outcome = { (context: ObjectContext) -> [String] in
              context.performAndWait { context in
                do { return try context.fetch(request).map { $0["name"]!.description } } catch { return ["\(error)"] }
              }
            }
            let (indexed, scanned) = (outcome(contexts[0]), outcome(contexts[1]))
            #expect(indexed == scanned, "\(format) with \(constant), seed \(seed)")
          }
        }
      }
    }
  }

  @Test func theSchemasJSONMarksIndexedAttributes() throws {
    let schema = try ObjectSchema(
      json: Data(
        #"{"entities": [{"name": "Person", "attributes": {"city": {"type": "string", "indexed": true}, "age": {"type": "integer"}}}]}"#
          .utf8))
    let attributes = schema.entity(named: "Person")!.attributes
    #expect(attributes.map(\.isIndexed) == [false, true])  // age, city: key order
  }
}
