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

  /// A tree parsed to be kept (`exactPairs`, as a watch's is) holds a chain
  /// of two in an array of two; otherwise it is the tree of the ordinary
  /// parse, ranges included, errors and their positions too.
  @Test(
    "a tree parsed to be kept is the same tree, its pairs in arrays of two",
    arguments: [
      "a == 1 AND b == 2", "a == 1 OR b == 2", "a == 1 AND b == 2 AND c == 3", "a == 1 OR b == 2 OR c == 3 OR d == 4",
      "(a == 1 OR b == 2) AND c == 3", "a == 1 AND (b == 2 OR c == 3 OR d == 4)", "NOT (a == 1 AND b == 2)",
      "a == 1 OR b == 2 AND c == 3", "SUBQUERY(items, $i, $i.a == 1 AND $i.b == 2).@count > 0",
      "TERNARY(a == 1 AND b == 2, c, d) == 1", "a == %@ AND b > %@",
      // Deeper than the caller's stack is trusted with: parsed again on a
      // thread of the parser's own, still in pairs.
      String(repeating: "(", count: 20) + "a == 1" + String(repeating: ")", count: 20) + " AND b == 2",
    ])
  func exactPairs(text: String) throws {
    let arguments: [FilterValue] = text.contains("%@") ? [.string("x"), .int(3)] : []
    let kept = try PredicateParser.parse(text, arguments: arguments, exactPairs: true)
    let ordinary = try PredicateParser.parse(text, arguments: arguments)
    #expect(kept == ordinary)
    #expect(kept.description == ordinary.description)
    #expect(kept.range == ordinary.range)
    switch kept.kind {
    case .and(let operands), .or(let operands):
      #expect(
        operands.map(\.range)
          == {
            if case .and(let others) = ordinary.kind { return others.map(\.range) }
            if case .or(let others) = ordinary.kind { return others.map(\.range) }
            return []
          }())
      if operands.count == 2 { #expect(operands.capacity < 4, "a pair has room for \(operands.capacity)") }
    default:
      break
    }
  }

  @Test func aTreeParsedToBeKeptReportsTheSameErrors() throws {
    for text in ["a == 1 AND", "a == 1 AND b ==", "a == 1 OR OR b == 2", "a == 1 AND (b == 2"] {
      let kept = try #require(throws: PredicateParseError.self) {
        try PredicateParser.parse(text, arguments: [], exactPairs: true)
      }
      let ordinary = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
      #expect(kept.description == ordinary.description)
      #expect(kept.location.utf8Offset == ordinary.location.utf8Offset)
    }
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

  @Test(
    "knows every collection operator in an adjacent key path",
    arguments: [
      "count", "sum", "avg", "min", "max", "distinctUnionOfObjects", "unionOfObjects",
      "distinctUnionOfArrays", "unionOfArrays", "distinctUnionOfSets",
    ])
  func collectionOperatorsInAdjacentKeyPaths(name: String) throws {
    let syntax = try PredicateParser.parse("items.@\(name).x == 1")
    #expect(syntax == (try PredicateParser.parse("items . @\(name) . x == 1")))
    let comparison = try #require(syntax.kind.comparison, "unexpected shape \(syntax)")
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
    for tooLarge in [
      "9223372036854775808", "9999999999999999999", "18446744073709551615", "18446744073709551616",
      "99999999999999999999999", "-9223372036854775809", "00018446744073709551616",
    ] {
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
    func failure(_ text: String, maximumDepth: Int = PredicateParser.defaultMaximumDepth) throws -> PredicateParseError
    {
      try #require(throws: PredicateParseError.self) {
        try PredicateParser.parse(text, limits: PredicateLimits(maximumDepth: maximumDepth))
      }
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
    #expect(throws: Never.self) { try PredicateParser.parse("a.b.c == 1", limits: PredicateLimits(maximumDepth: 1)) }
    let tooDeep = try failure("(a.b.c == 1)", maximumDepth: 1)
    #expect(tooDeep.code == .nestingTooDeep)
    #expect(tooDeep.location.utf8Offset == 2)
    #expect(tooDeep.message == (try failure("(a . b.c == 1)", maximumDepth: 1)).message)
    // The run's level still counts for the steps after it, as on the
    // general route.
    for (text, offset) in [("a.b[0] == 1", 3), ("a . b[0] == 1", 5), ("a.b.#c[0] == 1", 6), ("a.b . c[0] == 1", 7)] {
      let error = try failure(text, maximumDepth: 1)
      #expect(error.code == .nestingTooDeep, "\(text)")
      #expect(error.location.utf8Offset == offset, "\(text)")
    }
    #expect(throws: Never.self) { try PredicateParser.parse("a.b.#c == 1", limits: PredicateLimits(maximumDepth: 1)) }
    #expect(throws: Never.self) { try PredicateParser.parse("a.b[0] == 1", limits: PredicateLimits(maximumDepth: 2)) }
    #expect(throws: Never.self) {
      try PredicateParser.parse("a.b . c[0].d == 1", limits: PredicateLimits(maximumDepth: 3))
    }
    let third = try failure("a.b . c[0].d == 1", maximumDepth: 2)
    #expect(third.location.utf8Offset == 10)
  }

  // MARK: A key and an operator, a literal right operand

  /// Every range in the tree, parents before children.
  static func ranges(_ predicate: PredicateSyntax) -> [SyntaxRange] {
    var result = [predicate.range]
    switch predicate.kind {
    case .constant: break
    case .comparison(let comparison): result += ranges(comparison.lhs) + ranges(comparison.rhs)
    case .not(let operand): result += ranges(operand)
    case .and(let operands), .or(let operands): for operand in operands { result += ranges(operand) }
    }
    return result
  }

  static func ranges(_ expression: ExpressionSyntax) -> [SyntaxRange] {
    var result = [expression.range]
    switch expression.kind {
    case .arithmetic(_, let lhs, let rhs): result += ranges(lhs) + ranges(rhs)
    case .negation(let operand): result += ranges(operand)
    case .member(let base, _): result += ranges(base)
    case .index(let base, let subscriptValue):
      result += ranges(base)
      if case .at(let index) = subscriptValue { result += ranges(index) }
    case .aggregate(let elements), .function(_, let elements): for element in elements { result += ranges(element) }
    default: break
    }
    return result
  }

  /// Texts that start with a key: after a space, the key and its operator
  /// take the short route; after `#`, an escaped key, the general one.
  static let keyFirst = [
    "age >= 21", "name BEGINSWITH[c] 'Jo'", "a == 1 + 2", "a == 1 * 2 + 3", "a == 'x' + b", "a == -1",
    "a == b", "a < 2.5e3", "a != \"esc\\u0041ped\"", "a IN {1, 2}", "a BETWEEN {1, 2}", "a == 1 AND b == 2 OR c == 3",
    "a == 1.x", "a == 2[0]", "a + 1 == 2", "a.b == 1", "a == nil", "a CONTAINS[cd] $v", "a LIKE 'x*' AND NOT b == 1",
    "a == 0x1F", "a UTI-EQUALS 'public.text'",
  ]

  @Test("a key and its operator take the tree and ranges of the general route", arguments: keyFirst)
  func keyAndOperator(text: String) throws {
    let fast = try PredicateParser.parse(" " + text)
    let general = try PredicateParser.parse("#" + text)
    #expect(fast == general)
    // The escaped key starts at 0, the spaced one at 1; all else is equal.
    let generalRanges = Self.ranges(general).map { $0.lowerBound == 0 ? SyntaxRange(1, $0.upperBound) : $0 }
    #expect(Self.ranges(fast) == generalRanges)
  }

  /// Errors after a key and its operator, or in a literal right operand:
  /// the same code, message, offset and length by either route.
  @Test(arguments: [
    "age >= ", "age >= 21 22", "age >= 21 > 3", "age >= 'open", "age == 99999999999999999999",
    "age == 'a\\q'", "age == 1e", "age == 1.5e999", "age BETWEEN 3", "age BETWEEN {1}", "age BETWEEN[c] {1, 2}",
    "age ==[x] 1", "age ==[cc] 1", "age == 1 +", "age == 1 AND", "age", "age b == 1", "age NOT IN {1}",
    "age == 1)", "age == )", "age == 1 ==", "age := 1", "age >= 21 AND b ==",
  ])
  func errorsAfterAKeyAndItsOperator(text: String) throws {
    let fast = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(" " + text) }
    let general = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("#" + text) }
    #expect(fast.code == general.code)
    #expect(fast.message == general.message)
    #expect(fast.location.utf8Offset == general.location.utf8Offset)
    #expect(fast.length == general.length)
  }

  /// The short routes nest nothing: a key-operator-literal comparison is as
  /// deep in parentheses, at the limit, as the general route's.
  @Test func keyAndOperatorAtTheDepthLimit() throws {
    func parses(_ text: String, _ levels: Int) -> Bool {
      (try? PredicateParser.parse(String(repeating: "(", count: levels) + text + String(repeating: ")", count: levels)))
        != nil
    }
    let limit = PredicateParser.defaultMaximumDepth
    for text in ["a == 1", "a == 'x'", "a == 1 + 2", "a + 1 == 2"] {
      for levels in limit - 2...limit + 1 {
        #expect(parses(text, levels) == parses("#" + text, levels), "\(text) in \(levels)")
      }
    }
    #expect(parses("a == 1", limit))
    #expect(!parses("a == 1", limit + 1))
    #expect(parses("a == 1 + 2", limit - 1))
    #expect(!parses("a == 1 + 2", limit))
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("a == 1 + (2)", limits: PredicateLimits(maximumDepth: 1))
    }
    let general = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("#a== 1 + (2)", limits: PredicateLimits(maximumDepth: 1))
    }
    #expect(error.code == .nestingTooDeep)
    #expect(error.location.utf8Offset == general.location.utf8Offset)
  }

  // MARK: Right operands of arithmetic

  /// A right operand of `+`, `*`… that nothing binding tighter follows is
  /// taken without another level of precedence climbing; the trees are
  /// those of the explicitly parenthesised text.
  @Test(arguments: [
    ("a + b * c == 1", "a + (b * c) == 1"), ("a + b - c == 1", "(a + b) - c == 1"),
    ("a * b + c == 1", "(a * b) + c == 1"), ("a ** b ** c == 1", "(a ** b) ** c == 1"),
    ("a | b & c ^ d == 1", "a | ((b & c) ^ d) == 1"), ("a + b.c * d == 1", "a + ((b.c) * d) == 1"),
    ("a - -b == 1", "a - (-b) == 1"), ("a + b[0] * 2 == 1", "a + ((b[0]) * 2) == 1"),
    ("1 + 2 * 3 - 4 / 5 << 6 == x", "((1 + (2 * 3)) - (4 / 5)) << 6 == x"),
    ("a == 1 + 'x' * $v - now()", "a == (1 + ('x' * $v)) - now()"), ("a << b >> c == 1", "(a << b) >> c == 1"),
  ])
  func arithmeticRightOperands(text: String, parenthesised: String) throws {
    #expect(try PredicateParser.parse(text) == PredicateParser.parse(parenthesised))
  }

  @Test func arithmeticRightOperandsKeepTheirRanges() throws {
    let syntax = try PredicateParser.parse("a + b * c - d == 1")
    #expect(
      Self.ranges(syntax) == [
        SyntaxRange(0, 18), SyntaxRange(0, 13), SyntaxRange(0, 9), SyntaxRange(0, 1), SyntaxRange(4, 9),
        SyntaxRange(4, 5), SyntaxRange(8, 9), SyntaxRange(12, 13), SyntaxRange(17, 18),
      ])
    // Each operation counts one level, by either route.
    #expect(throws: Never.self) {
      try PredicateParser.parse("a == 1 + 2 * 3", limits: PredicateLimits(maximumDepth: 2))
    }
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("a == 1 + 2 * 3", limits: PredicateLimits(maximumDepth: 1))
    }
    #expect(error.code == .nestingTooDeep)
    #expect(error.location.utf8Offset == 11)
    let chain = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("a == 1 + 2 - 3", limits: PredicateLimits(maximumDepth: 1))
    }
    #expect(chain.location.utf8Offset == 11)
    #expect(throws: Never.self) {
      try PredicateParser.parse("a == 1 + 2 - 3", limits: PredicateLimits(maximumDepth: 2))
    }
  }
}
