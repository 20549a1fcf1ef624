import PredicateDSL
import Testing

/// Key-value coding, casts, quantifiers and argument messages where
/// Apple's `NSPredicate` behaves in ways its users rely on.
@Suite("Apple's semantics: key-value coding, casts and messages")
struct AppleSemanticsTests {
  static let record: FilterValue = ["name": "Alice", "age": 31, "g": [1, 2], "s": "1e999", "padded": " 5 "]

  private func outcome(_ format: String) -> String {
    do {
      let filter = try CompiledFilter(format, resolver: RecordKeyResolver())
      return String(try filter.evaluate(Self.record))
    } catch let error as PredicateEvaluationError {
      return "error:\(error.code)"
    } catch {
      return "failed: \(error)"
    }
  }

  @Test(
    arguments: [
      // A string's `length` is its length in UTF-16 units, as NSString's.
      ("name.length == 5", "true"), ("TERNARY(age > 1, name, 'x').length == 5", "true"),
      ("TERNARY(age < 1, name, 'xy').length == 2", "true"), ("age.length == nil", "true"),
      // Collection operators followed by `self` apply to the elements.
      ("g.@max.#self == g.@min.#self", "false"), ("g.@max.self == 2", "true"), ("g.@min.self == 1", "true"),
      ("g.@sum.self == 3", "true"), ("g.@avg.self == 1.5", "true"), ("g.@count.self == 2", "true"),
      ("name.self == 'Alice'", "true"),
      // One rule for CAST to NSNumber, folded or evaluated.
      ("CAST('1e999', 'NSNumber') > 1", "true"), ("CAST(s, 'NSNumber') > 1", "true"),
      ("CAST(' 5 ', 'NSNumber') == 5", "true"), ("CAST(padded, 'NSNumber') == 5", "true"),
      ("CAST(name, 'NSNumber') == 5", "error:invalidCast"),
      // Quantifiers need a collection.
      ("ANY name == 'A'", "error:notACollection"), ("ALL age > 1", "error:notACollection"),
      ("NONE name == 'A'", "error:notACollection"),
    ] as [(String, String)])
  func evaluates(format: String, expected: String) {
    #expect(outcome(format) == expected, "\(format)")
  }

  @Test func selfAfterAnOperatorPrintsAsAnEscapedKey() throws {
    let syntax = try PredicateParser.parse("g.@min.self == 1")
    #expect(syntax.description == "g.@min.#self == 1")
    #expect(try PredicateParser.parse(syntax.description) == syntax)
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("g.SELF == 1") }
    #expect(error.code == .reservedWord)
  }

  @Test func aQuotedSpecifierExplainsTheExtraArgument() throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("name == '%@' AND age > \"%d\"", arguments: ["x", 3])
    }
    #expect(error.code == .extraArguments)
    #expect(error.message == "too many arguments: the format uses 0, but 2 were given")
    #expect(
      error.suggestion
        == "a specifier inside quotes is literal text, not a placeholder; without the quotes: name == %@ AND age > %d")
    let plain = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("name == 'x'", arguments: ["x"])
    }
    #expect(plain.suggestion == nil)
  }
}
