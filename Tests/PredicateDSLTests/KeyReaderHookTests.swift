import TestSupport
import Testing

@testable import PredicateDSL

/// Which read a compiled comparison runs: a key given as a `KeyReader` whose
/// closure has been swapped (below the public `read` setter, which would
/// drop the reader) for one that reads another value. Fused comparisons go
/// through the reader's hook; every other use of the key calls the closure.
@Suite("KeyReader hook")
struct KeyReaderHookTests {
  struct Forty: KeyReader {
    func read(_ object: FilterValue) -> FilterValue { .int(40) }
  }

  struct Resolver: KeyResolver {
    func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
      var key = ResolvedKey(consuming: 1, type: .attribute(.integer), reader: Forty())
      key.reader = { _ in .int(20) }
      return key
    }
  }

  @Test(arguments: [
    // Direct comparisons with a constant: built by the hook, reading 40.
    ("age > 30", true), ("30 < age", true), ("age == 40", true), ("age BETWEEN {35, 45}", true),
    // Anything else reads through the closure, 20.
    ("age + 0 > 30", false), ("age > age - 1 AND age == 40", true), ("age == 20 OR age > age - 1", true),
    ("ANY {age} > 30", false),
  ])
  func fusedComparisonsRunTheReaderOthersTheClosure(format: String, expected: Bool) throws {
    #expect(try CompiledFilter(format, resolver: Resolver()).evaluate(.null) == expected)
  }
}

/// A fused comparison built from a `KeyReader` also gives a probe: the same
/// shortcut without the slow path, which `evaluate` and `AND`/`OR` groups
/// run first. Wherever a probe answers it must answer as the comparison's
/// test, and it must decline (nil) every value whose test throws.
@Suite("KeyReader probes")
struct KeyReaderProbeTests {
  /// Every kind of value a key may hold, with the edges of the shortcuts:
  /// nil, NaN, integers and doubles around 2^53, Booleans, strings.
  static let values: [FilterValue] = [
    .null, .int(30), .int(31), .int(-5), .int(0), .int(1), .int(9_007_199_254_740_992), .int(9_007_199_254_740_993),
    .int(Int64.max), .int(Int64.min), .double(30), .double(30.5), .double(.nan), .double(-.infinity),
    .double(9_007_199_254_740_992), .double(9_007_199_254_740_994), .bool(true), .bool(false),
    .string("Alice"), .string("alice"), .string(""), .string("Bob"), .string("x.org"), .string("Straße"),
    .string("Ωmega"), .array([.int(31)]), .date(secondsSinceReferenceDate: 31), .double(-0.0), .double(.infinity),
    .int(-9_007_199_254_740_993),
  ]

  static let comparisons = [
    "v == 31", "v != 31", "v < 31", "v <= 31", "v > 30", "v >= 30", "v == 9007199254740993",
    "v < 9007199254740993", "v > 9007199254740992", "v == 30.5", "v != 30.5", "v < 30.5", "v <= 30.5",
    "v > 30.5", "v >= 30.5", "v BETWEEN {0, 31}", "v BETWEEN {9007199254740992, 9007199254740993}",
    "v == YES", "v != NO", "v == 'Alice'", "v != 'Alice'", "v ==[c] 'alice'", "v BEGINSWITH 'Al'",
    "v BEGINSWITH[cd] 'al'", "v ENDSWITH '.org'", "v CONTAINS 'ic'", "v LIKE 'A*e'", "v LIKE[c] '*SS*'",
    "v IN {'Alice', 'Bob'}", "v MATCHES 'A.*'", "v == NO", "v != YES",
    // The constant on the left: the comparison is mirrored.
    "31 <= v", "31 > v", "30.5 >= v", "'Alice' != v", "9007199254740993 > v", "v <= -9007199254740993",
    // Options: folded shortcuts, or none.
    "v !=[c] 'alice'", "v ENDSWITH[cd] '.ORG'", "v LIKE[cd] 'a*E'", "v IN[c] {'alice'}",
  ]

  /// A value inside the shortcut of each probed shape, where its probe must
  /// answer rather than decline.
  static func typical(for format: String) -> FilterValue {
    if format.contains("'") { return .string("Alice") }
    if format.contains("YES") || format.contains("NO") { return .bool(true) }
    return format.contains(".") ? .double(30.5) : .int(31)
  }

  func filter(_ format: String) throws -> CompiledFilter<FilterValue> {
    try CompiledFilter(format, resolver: RecordReaderResolver())
  }

  @Test(arguments: comparisons)
  func aProbeAnswersAsItsTestOrDeclines(format: String) throws {
    let filter = try filter(format)
    let reference = try CompiledFilter(format, resolver: RecordKeyResolver())
    let predicate = try PredicateParser.parse(format)
    for value in Self.values {
      let record: FilterValue = ["v": value]
      let test = Result { () throws(PredicateEvaluationError) in try filter.test(record, EvaluationScope()) }
      let expected = Result { () throws(PredicateEvaluationError) in try reference.evaluate(record) }
      #expect(test == expected, "\(format) on \(value)")
      if let answer = filter.probe?(record) {
        #expect(test == .success(answer), "\(format) on \(value): probe \(answer), test \(test)")
      }
      #expect(Result { () throws(PredicateEvaluationError) in try filter.evaluate(record) } == expected)
      #expect(Result { () throws(PredicateEvaluationError) in try filter.evaluator.evaluate(record) } == expected)
      // Independently of the shortcuts: the reference interpreter, which
      // raises where evaluation throws.
      let interpreted = Result { () throws(ReferenceInterpreter.Failure) in
        try ReferenceInterpreter.evaluate(predicate, on: record)
      }
      switch (expected, interpreted) {
      case (.success(let compiled), .success(let reference)): #expect(compiled == reference, "\(format) on \(value)")
      case (.failure, .failure): break
      default: Issue.record("\(format) on \(value): compiled \(expected), interpreted \(interpreted)")
      }
    }
    if let probe = filter.probe {
      #expect(probe(["v": Self.typical(for: format)]) != nil, "\(format): the probe declines its own shortcut")
    }
  }

  @Test func singleFusedComparisonsHaveProbes() throws {
    for format in Self.comparisons where !format.contains("MATCHES") && !format.contains("IN[c]") {
      #expect(try filter(format).probe != nil, "\(format)")
    }
    // Not fused: no probe.
    for format in ["v MATCHES 'A.*'", "v IN[c] {'alice'}", "v + 1 > 2", "NOT v > 30", "v > 30 AND v < 40"] {
      #expect(try filter(format).probe == nil, "\(format)")
    }
  }

  /// Groups of two to five probed operands, `AND` and `OR`, on records
  /// whose values make some probes decline and some tests throw: the same
  /// results and errors as the closure path, which has no probes.
  @Test func probedGroupsAgreeWithTheClosurePath() throws {
    let clauses = ["a > 30", "b BEGINSWITH 'A'", "c == 30.5", "a != 31", "b IN {'Alice', 'Bob'}", "c < 31", "d == YES"]
    let samples: [FilterValue] = [
      .null, .int(31), .double(30.5), .double(.nan), .string("Alice"), .bool(true), .int(9_007_199_254_740_993),
    ]
    var checked = 0
    for count in 2...5 {
      for start in 0..<clauses.count {
        let chosen = (0..<count).map { clauses[(start + $0 * 2) % clauses.count] }
        for joiner in [" AND ", " OR "] {
          let format = chosen.joined(separator: joiner)
          let filter = try filter(format)
          let reference = try CompiledFilter(format, resolver: RecordKeyResolver())
          for (index, a) in samples.enumerated() {
            let record: FilterValue = [
              "a": a, "b": samples[(index + 4) % samples.count], "c": samples[(index + 2) % samples.count],
              "d": samples[(index + 5) % samples.count],
            ]
            let expected = Result { () throws(PredicateEvaluationError) in try reference.evaluate(record) }
            let result = Result { () throws(PredicateEvaluationError) in try filter.evaluate(record) }
            #expect(result == expected, "\(format) on \(record)")
            checked += 1
          }
        }
      }
    }
    #expect(checked == 4 * 7 * 2 * 7)
  }
}
