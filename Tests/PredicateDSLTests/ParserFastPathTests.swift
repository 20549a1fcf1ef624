import PredicateDSL
import Testing

/// The parser reads some common shapes by shorter routes: a key path
/// written without spaces is taken from the source in one piece, a literal
/// in a constant list goes straight into the list's values, a string without
/// escapes is copied without decoding. Each route must give the tree, the
/// ranges and the errors of the general one, which spaces (or an escape)
/// select.
@Suite("Parser fast paths")
struct ParserFastPathTests {
  /// Inputs that differ only by spaces or escapes that make the parser
  /// take the general route; the trees must be equal.
  static let pairs: [(String, String)] = [
    ("a.b == 1", "a . b == 1"),
    ("a.b.c.d == 1", "a .b. c . d == 1"),
    ("tags.@count > 2", "tags . @count > 2"),
    ("items.@sum.price > 2", "items. @sum .price > 2"),
    ("a.b.#size == 1", "a . b . #size == 1"),
    ("a.#b.c == 1", "a . #b . c == 1"),
    ("ANY items.sku == 42", "ANY items . sku == 42"),
    ("a.b[0].c == 1", "a . b[0] . c == 1"),
    ("a.b + c.d == 1", "a . b + c . d == 1"),
    ("SELF.a.b == 1", "a.b == 1"),
    ("a IN {1, 'x', 2.5}", "a IN {(1), ('x'), (2.5)}"),
    ("a == 'plain'", "a == 'pl\\u0061in'"),
    ("a IN {'plain', \"text\"}", "a IN {'pl\\x61in', \"te\\u0078t\"}"),
  ]

  @Test("takes the same tree by either route", arguments: pairs)
  func sameTree(fast: String, general: String) throws {
    #expect(try PredicateParser.parse(fast) == PredicateParser.parse(general))
  }

  /// What the one-piece key path declines goes to the general route, with
  /// its errors and positions.
  @Test(arguments: [
    ("a..b == 1", "expected key, found '.'", 2), ("a.AND == 1", "'AND' is a reserved word", 2),
    ("a. == 1", "expected key, found '=='", 3), ("a.$v == 1", "a variable cannot follow '.' in a key path", 2),
    ("a.1 == 1", "expected key, found number 1", 2),
  ])
  func declinedKeyPathsKeepTheirErrors(input: String, message: String, offset: Int) throws {
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(input) }
    #expect(error.description.contains(message), "\(error)")
    #expect(error.location.utf8Offset == offset)
  }

  @Test func aKeyFromAnArgumentFollowsAnAdjacentKeyPath() throws {
    let fast = try PredicateParser.parse("a.b.%K == 1", arguments: [.string("c")])
    #expect(fast == (try PredicateParser.parse("a.b.c == 1")))
    guard case .comparison(let comparison) = fast.kind else { throw ShapeError() }
    #expect(comparison.lhs.kind == .keyPath("a.b.c"))
  }

  struct ShapeError: Error {}

  @Test("knows every collection operator in an adjacent key path", arguments: [
    "count", "sum", "avg", "min", "max", "distinctUnionOfObjects", "unionOfObjects",
    "distinctUnionOfArrays", "unionOfArrays", "distinctUnionOfSets",
  ])
  func collectionOperatorsInAdjacentKeyPaths(name: String) throws {
    let syntax = try PredicateParser.parse("items.@\(name).x == 1")
    #expect(syntax == (try PredicateParser.parse("items . @\(name) . x == 1")))
    guard case .comparison(let comparison) = syntax.kind else {
      Issue.record("unexpected shape \(syntax)")
      return
    }
    #expect(comparison.lhs.kind == .keyPath("items.@\(name).x"))
    // Near misses are errors, whichever route meets them.
    for wrong in [String(name.dropLast()), name + "s", name.uppercased()] {
      let fast = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("a.@\(wrong) == 1") }
      #expect(fast.code == .unknownCollectionOperator)
      #expect(fast.location.utf8Offset == 2)
    }
  }

  /// Decimal integers of up to 19 digits are read without overflow checks;
  /// longer ones, and ones with leading zeros, with them.
  @Test func decimalIntegersAtTheEdgesOfSixtyFourBits() throws {
    func value(_ text: String) throws -> FilterValue? {
      let syntax = try PredicateParser.parse("a == " + text)
      guard case .comparison(let comparison) = syntax.kind, case .constant(let value) = comparison.rhs.kind else {
        return nil
      }
      return value
    }
    #expect(try value("0") == .int(0))
    #expect(try value("7") == .int(7))
    #expect(try value("9223372036854775807") == .int(.max))
    #expect(try value("-9223372036854775807") == .int(-.max))
    #expect(try value("-9223372036854775808") == .int(.min))
    #expect(try value("0009223372036854775807") == .int(.max))
    #expect(try value("1000000000000000000") == .int(1_000_000_000_000_000_000))
    for tooLarge in ["9223372036854775808", "9999999999999999999", "18446744073709551615", "18446744073709551616",
      "99999999999999999999999", "-9223372036854775809", "00018446744073709551616"]
    {
      let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("a == " + tooLarge) }
      #expect(error.code == .numberOutOfRange, "\(tooLarge)")
    }
  }

  @Test func adjacentKeyPathsKeepTheirRanges() throws {
    let text = "ANY items.sku == 42 AND tags.@count.x > 2"
    let syntax = try PredicateParser.parse(text)
    guard case .and(let operands) = syntax.kind,
      case .comparison(let first) = operands[0].kind,
      case .comparison(let second) = operands[1].kind
    else {
      Issue.record("unexpected shape \(syntax)")
      return
    }
    #expect(first.lhs.kind == .keyPath("items.sku"))
    #expect(first.lhs.range == SyntaxRange(4, 13))
    #expect(second.lhs.kind == .keyPath("tags.@count.x"))
    #expect(second.lhs.range == SyntaxRange(24, 37))
  }

  /// Errors met on the fast route, at the offsets the general route gives.
  @Test func errorsAfterAnAdjacentDot() throws {
    func failure(_ text: String, maximumDepth: Int = PredicateParser.defaultMaximumDepth) throws -> PredicateParseError {
      try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text, maximumDepth: maximumDepth) }
    }
    let unknown = try failure("a.b.@cout > 1")
    #expect(unknown.code == .unknownCollectionOperator)
    #expect(unknown.location.utf8Offset == 4)
    let reserved = try failure("a.b.size > 1")
    #expect(reserved.location.utf8Offset == 4)
    #expect(reserved.message == (try failure("a.b . size > 1")).message)
    let number = try failure("a.1 > 1")
    #expect(number.location.utf8Offset == 2)
    #expect(number.message == (try failure("a . 1 > 1")).message)
    let endOfInput = try failure("a.")
    #expect(endOfInput.location.utf8Offset == 2)
    // A run of `.key` steps is one level of nesting, by either route.
    #expect(throws: Never.self) { try PredicateParser.parse("a.b.c == 1", maximumDepth: 1) }
    let tooDeep = try failure("(a.b.c == 1)", maximumDepth: 1)
    #expect(tooDeep.code == .nestingTooDeep)
    #expect(tooDeep.location.utf8Offset == 2)
    #expect(tooDeep.message == (try failure("(a . b.c == 1)", maximumDepth: 1)).message)
    // The run's level still counts for the steps after it (found by
    // differential fuzzing against the parser without the fast route).
    for (text, offset) in [("a.b[0] == 1", 3), ("a . b[0] == 1", 5), ("a.b.#c[0] == 1", 6), ("a.b . c[0] == 1", 7)] {
      let error = try failure(text, maximumDepth: 1)
      #expect(error.code == .nestingTooDeep, "\(text)")
      #expect(error.location.utf8Offset == offset, "\(text)")
    }
    #expect(throws: Never.self) { try PredicateParser.parse("a.b.#c == 1", maximumDepth: 1) }
    #expect(throws: Never.self) { try PredicateParser.parse("a.b[0] == 1", maximumDepth: 2) }
    #expect(throws: Never.self) { try PredicateParser.parse("a.b . c[0].d == 1", maximumDepth: 3) }
    let third = try failure("a.b . c[0].d == 1", maximumDepth: 2)
    #expect(third.location.utf8Offset == 10)
  }
}
