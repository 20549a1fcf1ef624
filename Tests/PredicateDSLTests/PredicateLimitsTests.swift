import PredicateDSL
import Testing

@Suite("Predicate length limit")
struct PredicateLimitsTests {
  /// `name == 'aaa…'`, `count` bytes long.
  static func predicate(bytes count: Int) -> String {
    "name == '" + String(repeating: "a", count: count - 10) + "'"
  }

  @Test func tenMegabytesAreRefusedByDefault() throws {
    let text = Self.predicate(bytes: 10_000_000)
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    #expect(error.code == .textTooLong)
    #expect(error.message == "the text is 10000000 bytes long, more than the limit of 1048576 bytes")
    #expect(error.location.utf8Offset == 1_048_576)
    let compiled = try #require(throws: PredicateParseError.self) {
      try CompiledFilter(text, resolver: RecordKeyResolver())
    }
    #expect(compiled.code == .textTooLong)
  }

  @Test func theLimitIsSetPerParse() throws {
    let text = Self.predicate(bytes: 2_000)
    #expect(throws: Never.self) { try PredicateParser.parse(text) }
    let limits = PredicateLimits(maximumLength: 1_999)
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text, limits: limits) }
    #expect(error.message == "the text is 2000 bytes long, more than the limit of 1999 bytes")
    #expect(throws: Never.self) { try PredicateParser.parse(text, limits: PredicateLimits(maximumLength: 2_000)) }
    // Larger than the default, when a service asks for it.
    let large = Self.predicate(bytes: 2_000_000)
    let syntax = try PredicateParser.parse(large, limits: PredicateLimits(maximumLength: 2_000_000))
    #expect(syntax.description.utf8.count == 2_000_000)
    let filter = try CompiledFilter(
      text, limits: PredicateLimits(maximumLength: 2_000), resolver: RecordKeyResolver())
    #expect(try filter.evaluate(["name": "x"]) == false)
  }

  @Test func theDepthLimitTravelsWithTheLengthLimit() throws {
    let text = String(repeating: "(", count: 5) + "a == 1" + String(repeating: ")", count: 5)
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(text, limits: PredicateLimits(maximumDepth: 4))
    }
    #expect(error.code == .nestingTooDeep)
    #expect(error.message == "nesting is deeper than the limit of 4 levels")
  }
}
