import PredicateDSL
import Testing

@Suite("Regular expression budget and anchoring", .serialized)
struct RegexBudgetTests {
  private func evaluate(_ format: String, _ name: String) throws -> Bool {
    let filter = try CompiledFilter(format, resolver: RecordKeyResolver())
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
        + "\(PredicateLimits.regexBudget) progress steps; the answer is unknown")
    #expect(error.range == SyntaxRange(0, 26))
  }

  @Test func theBudgetIsConfigurable() throws {
    let saved = PredicateLimits.regexBudget
    defer { PredicateLimits.regexBudget = saved }
    // Twenty `a`s need about 2^20 backtracking steps: a few hundred
    // progress reports. One report is not enough, a million is.
    let subject = String(repeating: "a", count: 16) + "!"
    PredicateLimits.regexBudget = 1
    let error = try #require(throws: PredicateEvaluationError.self) {
      try evaluate("name MATCHES '(a|a)*b|a*!'", subject)
    }
    #expect(error.message.contains("exceeded its budget of 1 progress steps"))
    PredicateLimits.regexBudget = 1_000_000
    #expect(try evaluate("name MATCHES '(a|a)*b|a*!'", subject))
    PredicateLimits.regexBudget = -5
    #expect(PredicateLimits.regexBudget == 1)
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
