import PredicateDSL
import Testing

@Suite("Syntax tree")
struct SyntaxTreeTests {
  func comparison(_ text: String, arguments: [FilterValue] = []) throws -> ComparisonSyntax {
    let syntax = try PredicateParser.parse(text, arguments: arguments)
    return try #require(syntax.kind.comparison, "not a comparison: \(syntax)")
  }

  @Test func comparisonParts() throws {
    let parsed = try comparison("ANY tags BEGINSWITH[cd] 'swift'")
    #expect(parsed.quantifier == .any)
    #expect(parsed.lhs.kind == .keyPath("tags"))
    #expect(parsed.operator == .beginsWith)
    #expect(parsed.options == [.caseInsensitive, .diacriticInsensitive])
    #expect(parsed.rhs.kind == .constant(.string("swift")))
  }

  /// Key paths split at their dots by bytes, which must agree with
  /// splitting by characters, non-ASCII keys included.
  @Test(arguments: ["age", "address.city", "a.b.c.d", "tags.@count", "café.naïve", "x", "日本.語"])
  func keyPathComponentsSplitAtDots(_ path: String) {
    #expect(path.keyPathComponents == path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
  }

  /// Identity, what saves use to say a value changed, is stricter than
  /// `==`: what a predicate can tell apart is never identical.
  @Test func identityIsStricterThanEquality() {
    let composed: FilterValue = .string("caf\u{E9}")
    let decomposed: FilterValue = .string("cafe\u{301}")
    #expect(composed == decomposed)
    #expect(!composed.isIdentical(to: decomposed))
    #expect(composed.isIdentical(to: .string("caf\u{E9}")))
    let long: FilterValue = .string(String(repeating: "long text ", count: 5))
    #expect(long.isIdentical(to: .string(String(repeating: "long text ", count: 5))))
    #expect(FilterValue.double(0.0) == .double(-0.0))
    #expect(!FilterValue.double(0.0).isIdentical(to: .double(-0.0)))
    #expect(FilterValue.array([1, "a"]).isIdentical(to: .array([1, "a"])))
    #expect(!FilterValue.array([1, "a"]).isIdentical(to: .array([1, "b"])))
    #expect(!FilterValue.int(1).isIdentical(to: .double(1)))
    #expect(FilterValue.null.isIdentical(to: .null))
  }

  /// `difference(from:)` agrees with `isIdentical(to:)` then `==` on every
  /// pair of a table of values (the kinds it decides in one look and the
  /// ones it hands to those two).
  @Test func differenceIsIdentityThenEquality() {
    let values: [FilterValue] = [
      .null, .bool(true), .bool(false), .int(0), .int(1), .double(0.0), .double(-0.0), .double(1), .double(.nan),
      .double(-.nan), .date(secondsSinceReferenceDate: 0), .date(secondsSinceReferenceDate: -0.0),
      .date(secondsSinceReferenceDate: 5), .string("caf\u{E9}"), .string("cafe\u{301}"), .string(""),
      .string(String(repeating: "long text ", count: 5)), .uuid(7), .data([1, 2]), .data([1, 3]), .array([1, "a"]),
      .array([1, "b"]), .set([1]),
    ]
    for new in values {
      for old in values {
        let expected: FilterValue.Difference =
          new.isIdentical(to: old) ? .none : (new == old ? .representation : .value)
        #expect(new.difference(from: old) == expected, "\(new) from \(old)")
      }
    }
    #expect(FilterValue.double(0.0).difference(from: .double(-0.0)) == .representation)
    #expect(FilterValue.string("caf\u{E9}").difference(from: .string("cafe\u{301}")) == .representation)
    #expect(FilterValue.double(.nan).difference(from: .double(.nan)) == .none)
    #expect(FilterValue.int(1).difference(from: .double(1)) == .value)  // `==` on values is by kind
  }

  @Test func integersStayExact() throws {
    #expect(try comparison("a == 9007199254740993").rhs.kind == .constant(.int(9_007_199_254_740_993)))
    #expect(try comparison("a == 0x7FFFFFFFFFFFFFFF").rhs.kind == .constant(.int(.max)))
    #expect(try comparison("a == -9223372036854775808").rhs.kind == .constant(.int(.min)))
    #expect(try comparison("a == 1.0").rhs.kind == .constant(.double(1)))
    #expect(try comparison("a == 1e3").rhs.kind == .constant(.double(1000)))
  }

  @Test func booleansAndNil() throws {
    #expect(try comparison("a == YES").rhs.kind == .constant(.bool(true)))
    #expect(try comparison("a == false").rhs.kind == .constant(.bool(false)))
    #expect(try comparison("a == NULL").rhs.kind == .constant(.null))
    #expect(try comparison("a == nil").rhs.kind == .constant(.null))
  }

  @Test func selfKeyPathsFold() throws {
    #expect(try comparison("SELF.a.b == 1").lhs.kind == .keyPath("a.b"))
    #expect(try comparison("SELF == 1").lhs.kind == .evaluatedObject)
    #expect(try comparison("%K == 1", arguments: ["a.b"]).lhs.kind == .keyPath("a.b"))
    #expect(try comparison("a.%K == 1", arguments: ["b.c"]).lhs.kind == .keyPath("a.b.c"))
  }

  @Test func membersAndIndexes() throws {
    let member = try comparison("$x.a.b == 1").lhs
    #expect(member.kind == .member(base: ExpressionSyntax(.variable("x")), keyPath: "a.b"))
    let index = try comparison("tags[LAST] == 1").lhs
    #expect(index.kind == .index(base: ExpressionSyntax(.keyPath("tags")), .last))
    let keyed = try comparison("d['k'] == 1").lhs
    #expect(keyed.kind == .index(base: ExpressionSyntax(.keyPath("d")), .at(ExpressionSyntax(.constant("k")))))
  }

  @Test func constantAggregatesFold() throws {
    #expect(try comparison("a IN {1, 'b'}").rhs.kind == .constant([1, "b"]))
    #expect(try comparison("a IN {}").rhs.kind == .constant(.array([])))
    let mixed = try comparison("a IN {1, b}").rhs
    #expect(mixed.kind == .aggregate([ExpressionSyntax(.constant(1)), ExpressionSyntax(.keyPath("b"))]))
  }

  /// Lists are parsed as constants first and again as expressions when an
  /// element, at any depth, is not one: both ways give the same tree.
  @Test func nestedListsFoldOnlyWhereEveryElementIsConstant() throws {
    #expect(try comparison("a IN {1, {2, {3}}, %@}", arguments: ["x"]).rhs.kind == .constant([1, [2, [3]], "x"]))
    let text = "a IN {1, {2, {b}}, abs({3, c}), {4}}"
    let rhs = try comparison(text).rhs
    let utf8 = Array(text.utf8)
    func slice(_ range: SyntaxRange) -> String {
      String(decoding: utf8[range.lowerBound..<range.upperBound], as: UTF8.self)
    }
    guard case .aggregate(let elements) = rhs.kind, elements.count == 4,
      case .aggregate(let second) = elements[1].kind, second.count == 2,
      case .aggregate(let innermost) = second[1].kind,
      case .function(_, let arguments) = elements[2].kind,
      case .aggregate(let argument) = arguments[0].kind
    else {
      Issue.record("unexpected shape \(rhs)")
      return
    }
    #expect(elements[0].kind == .constant(1))
    #expect(second[0].kind == .constant(2))
    #expect(innermost == [ExpressionSyntax(.keyPath("b"))])
    #expect(argument == [ExpressionSyntax(.constant(3)), ExpressionSyntax(.keyPath("c"))])
    #expect(elements[3].kind == .constant([4]))
    // Every element keeps its place in the text, the constants before the
    // first key path included.
    #expect(elements.map { slice($0.range) } == ["1", "{2, {b}}", "abs({3, c})", "{4}"])
    #expect(second.map { slice($0.range) } == ["2", "{b}"])
    #expect(argument.map { slice($0.range) } == ["3", "c"])
    #expect(rhs.description == "{1, {2, {b}}, abs:({3, c}), {4}}")
  }

  @Test func argumentsInListsParsedTwiceAreTakenOnce() throws {
    // `%@` before the key path is consumed by the constant attempt, then
    // again by the second parse: the arguments must line up all the same.
    let syntax = try PredicateParser.parse("a IN {%@, b, %@} AND c == %@", arguments: [1, 2, 3])
    #expect(syntax.description == "a IN {1, b, 2} AND c == 3")
    #expect(throws: PredicateParseError.self) { try PredicateParser.parse("a IN {%@, b, %@}", arguments: [1, 2, 3]) }
  }

  @Test func castsFoldIntoConstants() throws {
    #expect(try comparison("a == CAST(0, 'NSDate')").rhs.kind == .constant(.date(secondsSinceReferenceDate: 0)))
    #expect(
      try comparison("a == CAST('00000000-0000-0000-0000-0000000000FF', 'NSUUID')").rhs.kind
        == .constant(.uuid(255)))
    #expect(try comparison("a == CAST('AAEC', 'NSData')").rhs.kind == .constant(.data([0, 1, 2])))
    #expect(try comparison("a IN CAST({1, 1, 2}, 'NSSet')").rhs.kind == .constant(.set([1, 2])))
    #expect(
      try comparison("a IN CAST({{'x', 1}}, 'NSDictionary')").rhs.kind == .constant(.record(["x": 1])))
    // Not foldable: stays a cast, evaluated later.
    #expect(
      try comparison("a == CAST(b, 'NSDate')").rhs.kind
        == .cast(ExpressionSyntax(.keyPath("b")), type: "NSDate"))
    #expect(
      try comparison("a == CAST('AAE', 'NSData')").rhs.kind
        == .cast(ExpressionSyntax(.constant("AAE")), type: "NSData"))
  }

  @Test func arithmeticPrecedence() throws {
    let lhs = try comparison("a + b * c ** d == 1").lhs
    let power = ExpressionSyntax(.arithmetic(.power, ExpressionSyntax(.keyPath("c")), ExpressionSyntax(.keyPath("d"))))
    let product = ExpressionSyntax(.arithmetic(.multiply, ExpressionSyntax(.keyPath("b")), power))
    #expect(lhs.kind == .arithmetic(.add, ExpressionSyntax(.keyPath("a")), product))
  }

  @Test func negativeLiteralsAndNegation() throws {
    #expect(try comparison("a == -5").rhs.kind == .constant(-5))
    #expect(try comparison("a == -(5)").rhs.kind == .negation(ExpressionSyntax(.constant(5))))
    #expect(try comparison("a == -b").rhs.kind == .negation(ExpressionSyntax(.keyPath("b"))))
    #expect(try comparison("a == -%d", arguments: [5]).rhs.kind == .negation(ExpressionSyntax(.constant(5))))
  }

  @Test func andBindsTighterThanOr() throws {
    let syntax = try PredicateParser.parse("a == 1 OR b == 2 AND c == 3")
    let operands = try #require(syntax.kind.orOperands, "expected OR at the top: \(syntax)")
    try #require(operands.count == 2)
    let conjuncts = try #require(operands[1].kind.andOperands, "expected AND second: \(syntax)")
    #expect(conjuncts.count == 2)
  }

  @Test func chainsAreFlatAndParenthesesNest() throws {
    let flat = try #require(try PredicateParser.parse("a == 1 AND b == 2 AND c == 3").kind.andOperands)
    #expect(flat.count == 3)
    let nested = try #require(try PredicateParser.parse("(a == 1 AND b == 2) AND c == 3").kind.andOperands)
    #expect(nested.count == 2)
  }

  @Test func rangesPointIntoTheText() throws {
    let text = "name == 'x' AND (age + 1) * 2 > 30"
    let syntax = try PredicateParser.parse(text)
    let utf8 = Array(text.utf8)
    func slice(_ range: SyntaxRange) -> String {
      String(decoding: utf8[range.lowerBound..<range.upperBound], as: UTF8.self)
    }
    #expect(slice(syntax.range) == text)
    let operands = try #require(syntax.kind.andOperands, "unexpected shape \(syntax)")
    try #require(operands.count == 2, "unexpected shape \(syntax)")
    let first = try #require(operands[0].kind.comparison, "unexpected shape \(syntax)")
    let second = try #require(operands[1].kind.comparison, "unexpected shape \(syntax)")
    #expect(slice(operands[0].range) == "name == 'x'")
    #expect(slice(first.lhs.range) == "name")
    #expect(slice(first.rhs.range) == "'x'")
    #expect(slice(operands[1].range) == "(age + 1) * 2 > 30")
    #expect(slice(second.lhs.range) == "(age + 1) * 2")
    #expect(slice(second.rhs.range) == "30")
  }

  @Test func rangesOfNonASCIIText() throws {
    let text = "nom == 'café' AND x == 1"
    let syntax = try PredicateParser.parse(text)
    let operands = try #require(syntax.kind.andOperands, "expected AND: \(syntax)")
    try #require(operands.count == 2)
    #expect(operands[1].range == SyntaxRange(19, 25))
  }

  @Test func equalityIgnoresRanges() throws {
    let spaced = try PredicateParser.parse("  a ==   1")
    let tight = try PredicateParser.parse("a==1")
    #expect(spaced == tight)
    #expect(spaced.hashValue == tight.hashValue)
    #expect(spaced.range != tight.range)
  }

  @Test func syntaxBuiltInCodePrints() {
    let syntax = PredicateSyntax(
      .and([
        PredicateSyntax(
          .comparison(ComparisonSyntax(ExpressionSyntax(.keyPath("age")), .greater, ExpressionSyntax(.constant(30))))),
        PredicateSyntax(.not(PredicateSyntax(.constant(false)))),
      ]))
    #expect(syntax.description == "age > 30 AND NOT FALSEPREDICATE")
    #expect(PredicateSyntax(.and([])).description == "TRUEPREDICATE")
    #expect(PredicateSyntax(.or([])).description == "FALSEPREDICATE")
  }

  @Test func valuesPrintAsConstants() {
    #expect(FilterValue.string("a\"b\\c\n").description == #""a\"b\\c\n""#)
    #expect(FilterValue.date(secondsSinceReferenceDate: 725_846_400).description == #"CAST(725846400.0, "NSDate")"#)
    #expect(FilterValue.double(.infinity).description == #"CAST("inf", "NSNumber")"#)
    #expect(FilterValue.double(-.infinity).description == #"CAST("-inf", "NSNumber")"#)
    #expect(FilterValue.set(["b", "a"]).description == #"CAST({"a", "b"}, "NSSet")"#)
    #expect(FilterValue.record(["b": 2, "a": 1]).description == #"CAST({{"a", 1}, {"b", 2}}, "NSDictionary")"#)
    #expect(FilterValue.data([0xFF]).description == #"CAST("/w==", "NSData")"#)
    #expect(FilterValue.uuid(1).description == #"CAST("00000000-0000-0000-0000-000000000001", "NSUUID")"#)
    #expect(FilterValue.array([.null, true, 1.5]).description == "{nil, TRUE, 1.5}")
  }
}
