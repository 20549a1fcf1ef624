import PredicateDSL
import Testing

/// Nesting limits and hostile input: errors, never crashes or hangs.
@Suite("Limits")
struct LimitsTests {
  static let depth = PredicateParser.defaultMaximumDepth

  /// Each shape nests one construct `levels` deep around `a == 1`-like text.
  static func nested(_ shape: String, _ levels: Int) -> String {
    switch shape {
    case "parentheses": String(repeating: "(", count: levels) + "a == 1" + String(repeating: ")", count: levels)
    case "expression parentheses": "a == " + String(repeating: "(", count: levels) + "1" + String(repeating: ")", count: levels)
    case "NOT": String(repeating: "NOT ", count: levels) + "a == 1"
    case "!": String(repeating: "!", count: levels) + "a == 1"
    case "minus": "a == " + String(repeating: "-", count: levels) + "b"
    case "braces": "a IN " + String(repeating: "{", count: levels) + "b" + String(repeating: "}", count: levels)
    case "calls": "a == " + String(repeating: "abs(", count: levels) + "b" + String(repeating: ")", count: levels)
    case "subscripts": "a" + String(repeating: "[b", count: levels) + String(repeating: "]", count: levels) + " == 1"
    case "subqueries":
      "a == " + String(repeating: "SUBQUERY(x, $v, ", count: levels) + "b == 1" + String(repeating: ").@count == 1", count: levels)
    default: fatalError("unknown shape \(shape)")
    }
  }

  static let shapes = [
    "parentheses", "expression parentheses", "NOT", "!", "minus", "braces", "calls", "subscripts",
  ]

  @Test("the documented depth parses", arguments: shapes)
  func documentedDepthParses(_ shape: String) throws {
    // The levels the shape adds itself (the comparison, the subscript's
    // own expression) stay within the limit.
    _ = try PredicateParser.parse(Self.nested(shape, Self.depth - 1))
  }

  @Test("one level deeper is an error", arguments: shapes)
  func deeperIsAnError(_ shape: String) throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(Self.nested(shape, Self.depth + 1))
    }
    #expect(error.code == .nestingTooDeep)
    #expect(error.message == "nesting is deeper than the limit of 256 levels")
  }

  @Test("20,000 levels are an error, not a crash", arguments: shapes)
  func veryDeepIsAnError(_ shape: String) throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(Self.nested(shape, 20_000))
    }
    #expect(error.code == .nestingTooDeep)
  }

  @Test func sixtyFourLevelsOfEveryKindTogether() throws {
    var text = "a == 1"
    for level in 0..<64 {
      text = level % 2 == 0 ? "NOT (\(text) AND b == -(c))" : "(\(text)) OR x IN {y, abs(z[q])}"
    }
    let syntax = try PredicateParser.parse(text)
    #expect(try PredicateParser.parse(syntax.description) == syntax)
  }

  @Test func theLimitIsConfigurable() throws {
    let text = Self.nested("parentheses", 10)
    _ = try PredicateParser.parse(text, maximumDepth: 10)
    #expect(throws: PredicateParseError.self) { try PredicateParser.parse(text, maximumDepth: 9) }
  }

  @Test func megabytesOfGarbageAreRejected() throws {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<2_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let text = String(decoding: bytes, as: UTF8.self)
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    #expect(error.location.utf8Offset <= text.utf8.count)
  }

  @Test func aLongFlatPredicateParses() throws {
    let clauses = (0..<20_000).map { "k\($0) == \($0)" }
    let syntax = try PredicateParser.parse(clauses.joined(separator: " AND "))
    guard case .and(let operands) = syntax.kind else {
      Issue.record("expected one flat AND")
      return
    }
    #expect(operands.count == 20_000)
  }

  @Test func longRunsOfOneTokenAreRejected() throws {
    for text in [
      String(repeating: "(", count: 1_000_000), String(repeating: "'", count: 1_000_001),
      String(repeating: "a.", count: 500_000), String(repeating: "a == 1 AND ", count: 100_000),
      "a IN {" + String(repeating: "1, ", count: 300_000), String(repeating: "-", count: 1_000_000),
    ] {
      #expect(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    }
  }
}
