import PredicateDSL
import Testing

@Suite("Regular expression budget and anchoring", .serialized)
struct RegexBudgetTests {
  private func evaluate(_ format: String, _ name: String, limits: PredicateLimits = .default) throws -> Bool {
    let filter = try CompiledFilter(format, limits: limits, resolver: RecordKeyResolver())
    return try filter.evaluate(["name": .string(name)])
  }

  @Test func catastrophicBacktrackingIsAnErrorNotFalse() throws {
    let subject = String(repeating: "a", count: 30) + "!"
    let error = try #require(throws: PredicateEvaluationError.self) {
      try evaluate("name MATCHES '(a|a)*b|a*!'", subject)
    }
    #expect(error.code == .limitExceeded)
    #expect(
      error.message
        == "matching \"(a|a)*b|a*!\" against a string of 31 UTF-16 units exceeded its budget of "
        + "\(PredicateLimits.defaultRegexBudget) progress steps; the answer is unknown")
    #expect(error.range == SyntaxRange(0, 26))
  }

  @Test func theBudgetIsConfigurable() throws {
    // Twenty `a`s need about 2^20 backtracking steps: a few hundred
    // progress reports. One report is not enough, a million is.
    let subject = String(repeating: "a", count: 16) + "!"
    let error = try #require(throws: PredicateEvaluationError.self) {
      try evaluate("name MATCHES '(a|a)*b|a*!'", subject, limits: PredicateLimits(regexBudget: 1))
    }
    #expect(error.message.contains("exceeded its budget of 1 progress steps"))
    #expect(try evaluate("name MATCHES '(a|a)*b|a*!'", subject, limits: PredicateLimits(regexBudget: 1_000_000)))
    let belowOne = try #require(throws: PredicateEvaluationError.self) {
      try evaluate("name MATCHES '(a|a)*b|a*!'", subject, limits: PredicateLimits(regexBudget: -5))
    }
    #expect(belowOne.message.contains("exceeded its budget of 1 progress steps"))
  }

  @Test func aParsedPredicateCompilesUnderTheBudgetItIsGiven() throws {
    // The initializer the watcher compiles its watches with.
    let syntax = try PredicateParser.parse("name MATCHES '(a|a)*b|a*!'")
    let subject: FilterValue = ["name": .string(String(repeating: "a", count: 16) + "!")]
    let tight = try CompiledFilter(syntax, limits: PredicateLimits(regexBudget: 1), resolver: RecordKeyResolver())
    #expect(throws: PredicateEvaluationError.self) { try tight.evaluate(subject) }
    let loose = try CompiledFilter(
      syntax, limits: PredicateLimits(regexBudget: 1_000_000), resolver: RecordKeyResolver())
    #expect(try loose.evaluate(subject))
  }

  @Test(
    "anchors without breaking valid patterns",
    arguments: [
      ("(?x) a b c  # comment", "abc", true), ("(?x) a b c  # comment", "abcd", false),
      ("", "", true), ("", "a", false), ("\\Qa.c", "a.c", true), ("\\Qa.c", "abc", false),
      ("a|ab", "ab", true), ("(?x)a#x\n|b", "b", true), ("a\\Q)\\E", "a)", true),
    ] as [(String, String, Bool)])
  func anchorsWholeString(pattern: String, subject: String, expected: Bool) throws {
    let filter = try CompiledFilter(
      "name MATCHES %@", arguments: [.string(pattern)], resolver: RecordKeyResolver())
    #expect(try filter.evaluate(["name": .string(subject)]) == expected)
  }

  @Test func aPatternStillCannotEscapeItsGroup() throws {
    let error = try #require(throws: PredicateCompileError.self) {
      try CompiledFilter("name MATCHES 'a)|(b'", resolver: RecordKeyResolver())
    }
    #expect(error.code == .invalidPattern)
  }
}
