import PredicateDSL
import Testing

/// An input the parser must reject, with where and what it says.
struct ErrorCase: CustomTestStringConvertible, Sendable {
  var input: String
  var offset: Int
  var column: Int
  var summary: String

  init(_ input: String, offset: Int, column: Int, _ summary: String) {
    self.input = input
    self.offset = offset
    self.column = column
    self.summary = summary
  }

  var testDescription: String { input.debugDescription }
}

@Suite("Parse errors")
struct ParseErrorTests {
  static let cases: [ErrorCase] = [
    ErrorCase("", offset: 0, column: 1, "expected predicate, found end of input"),
    ErrorCase("   ", offset: 3, column: 4, "expected predicate, found end of input"),
    ErrorCase("age", offset: 3, column: 4, "expected comparison operator, found end of input"),
    ErrorCase("age >", offset: 5, column: 6, "expected expression, found end of input"),
    ErrorCase("age > 30 AND", offset: 12, column: 13, "expected predicate, found end of input"),
    ErrorCase("age > 30 OR", offset: 11, column: 12, "expected predicate, found end of input"),
    ErrorCase("AND age > 3", offset: 0, column: 1, "expected predicate, found 'AND'"),
    ErrorCase("age > 30 age", offset: 9, column: 10, "expected AND, OR or end of input, found identifier 'age'"),
    ErrorCase("age 30", offset: 4, column: 5, "expected comparison operator, found number 30"),
    ErrorCase("(age > 30", offset: 9, column: 10, "expected AND, OR or ')', found end of input"),
    ErrorCase("age > 30)", offset: 8, column: 9, "expected AND, OR or end of input, found ')'"),
    ErrorCase("((a == 1)", offset: 9, column: 10, "expected AND, OR or ')', found end of input"),
    ErrorCase("(a + 1 == 2", offset: 11, column: 12, "expected AND, OR or ')', found end of input"),
    ErrorCase("a == (1 + 2", offset: 11, column: 12, "expected ')', found end of input"),
    ErrorCase(
      "age ? 30", offset: 4, column: 5, "unexpected character '?' ('?' is a wildcard only inside a quoted LIKE pattern)"
    ),
    ErrorCase(
      "? = 'ABC'", offset: 0, column: 1,
      "unexpected character '?' ('?' is a wildcard only inside a quoted LIKE pattern)"),
    ErrorCase("age > 30 /* comment */", offset: 9, column: 10, "predicates have no comments"),
    ErrorCase("age > 30 // comment", offset: 9, column: 10, "predicates have no comments"),
    ErrorCase("name == 'unterminated", offset: 8, column: 9, "unterminated string literal (close it with ')"),
    ErrorCase("name == \"unterminated", offset: 8, column: 9, "unterminated string literal (close it with \")"),
    ErrorCase(
      "name == 'bad \\q escape'", offset: 13, column: 14,
      "unknown escape '\\q' in string literal; write '\\\\' for a backslash"),
    ErrorCase("name == '\\x4'", offset: 9, column: 10, "escape '\\x' needs 2 hexadecimal digits"),
    ErrorCase("name == '\\u12'", offset: 9, column: 10, "escape '\\u' needs 4 hexadecimal digits"),
    ErrorCase("name == '\\ud800'", offset: 9, column: 10, "escape '\\ud800' is an unpaired UTF-16 surrogate"),
    ErrorCase("name == '\\18'", offset: 9, column: 10, "octal escape needs three digits, as in '\\101'"),
    ErrorCase("name == '\\400'", offset: 9, column: 10, "octal escape '\\400' is larger than \\377"),
    ErrorCase("a == 0x", offset: 5, column: 6, "number '0x' has no digits after its base prefix"),
    ErrorCase("a == 0xZZ", offset: 5, column: 6, "number '0xZZ' has a digit that is not valid in base 16"),
    ErrorCase("a == 0b102", offset: 5, column: 6, "number '0b102' has a digit that is not valid in base 2"),
    ErrorCase("a == 0o8", offset: 5, column: 6, "number '0o8' has a digit that is not valid in base 8"),
    ErrorCase("a == 12ab", offset: 5, column: 6, "number '12ab' runs into letters"),
    ErrorCase("a == 1e", offset: 5, column: 6, "number '1e' has no digits in its exponent"),
    ErrorCase("a == 1e+", offset: 5, column: 6, "number '1e+' has no digits in its exponent"),
    ErrorCase(
      "a == 99999999999999999999", offset: 5, column: 6, "integer 99999999999999999999 does not fit in 64 bits"),
    ErrorCase(
      "a == 18446744073709551616", offset: 5, column: 6, "integer 18446744073709551616 does not fit in 64 bits"),
    ErrorCase("a == 9223372036854775808", offset: 5, column: 6, "integer 9223372036854775808 does not fit in 64 bits"),
    ErrorCase("a == 1e999", offset: 5, column: 6, "number 1e999 is out of the range of a double"),
    ErrorCase(
      "name BEGINSWITHH 'A'", offset: 5, column: 6, "unknown operator 'BEGINSWITHH' (did you mean 'BEGINSWITH'?)"),
    ErrorCase("name CONTAIN 'A'", offset: 5, column: 6, "unknown operator 'CONTAIN' (did you mean 'CONTAINS'?)"),
    ErrorCase("name LIKEE 'A'", offset: 5, column: 6, "unknown operator 'LIKEE' (did you mean 'LIKE'?)"),
    ErrorCase(
      "name beginswithh 'A'", offset: 5, column: 6, "unknown operator 'beginswithh' (did you mean 'BEGINSWITH'?)"),
    ErrorCase(
      "name STARTSWITH 'A'", offset: 5, column: 6, "unknown operator 'STARTSWITH' (did you mean 'BEGINSWITH'?)"),
    ErrorCase("name EQUALS 'A'", offset: 5, column: 6, "unknown operator 'EQUALS' (did you mean '=='?)"),
    ErrorCase(
      "name NOT IN {1, 2}", offset: 5, column: 6,
      "expected comparison operator, found 'NOT' (negate the whole comparison instead: NOT (a IN b))"),
    ErrorCase("name IS NULL", offset: 5, column: 6, "unknown operator 'IS' (did you mean '=='?)"),
    ErrorCase(
      "1 < age < 5", offset: 8, column: 9,
      "comparisons cannot be chained; combine them with AND, as in 'a < b AND b < c'"),
    ErrorCase(
      "a == 1 == 1", offset: 7, column: 8,
      "comparisons cannot be chained; combine them with AND, as in 'a < b AND b < c'"),
    ErrorCase(
      "a < b > c", offset: 6, column: 7, "comparisons cannot be chained; combine them with AND, as in 'a < b AND b < c'"
    ),
    ErrorCase("age", offset: 3, column: 4, "expected comparison operator, found end of input"),
    ErrorCase(
      "TRUEPREDICAT", offset: 12, column: 13,
      "expected comparison operator, found end of input (did you mean 'TRUEPREDICATE' instead of 'TRUEPREDICAT'?)"),
    ErrorCase(
      "ANYY tags == 'a'", offset: 5, column: 6,
      "expected comparison operator, found identifier 'tags' (did you mean 'ANY' instead of 'ANYY'?)"),
    ErrorCase(
      "NOTT a == 1", offset: 5, column: 6,
      "expected comparison operator, found identifier 'a' (did you mean 'NOT' instead of 'NOTT'?)"),
    ErrorCase(
      "a == 1 ANDD b == 2", offset: 7, column: 8,
      "expected AND, OR or end of input, found identifier 'ANDD' (did you mean 'AND'?)"),
    ErrorCase(
      "a == 1 ORR b == 2", offset: 7, column: 8,
      "expected AND, OR or end of input, found identifier 'ORR' (did you mean 'OR'?)"),
    ErrorCase("name ==[x] 'a'", offset: 8, column: 9, "unknown comparison option 'x'; the options are c, d, n and l"),
    ErrorCase("name ==[cc] 'a'", offset: 9, column: 10, "comparison option 'c' is repeated"),
    ErrorCase("name ==[] 'a'", offset: 8, column: 9, "expected option letters c, d, n or l, found ']'"),
    ErrorCase("name ==[c 'a'", offset: 10, column: 11, "expected ']', found string 'a'"),
    ErrorCase("age BETWEEN[c] {1, 2}", offset: 11, column: 12, "BETWEEN takes no options"),
    ErrorCase(
      "age BETWEEN {1, 2, 3}", offset: 12, column: 13, "BETWEEN needs two bounds {lower, upper}, found 3 values"),
    ErrorCase("age BETWEEN {1}", offset: 12, column: 13, "BETWEEN needs two bounds {lower, upper}, found 1 value"),
    ErrorCase("age BETWEEN 5", offset: 12, column: 13, "BETWEEN needs two bounds {lower, upper}, found integer"),
    ErrorCase("age BETWEEN {}", offset: 12, column: 13, "BETWEEN needs two bounds {lower, upper}, found 0 values"),
    ErrorCase("size == 3", offset: 0, column: 1, "'size' is a reserved word (write '#size' to use it as a key)"),
    ErrorCase("a.size == 3", offset: 2, column: 3, "'size' is a reserved word (write '#size' to use it as a key)"),
    ErrorCase("first == 1", offset: 0, column: 1, "'first' is a reserved word (write '#first' to use it as a key)"),
    ErrorCase("a[FIRST == 1", offset: 2, column: 3, "'FIRST' is a reserved word (write '#FIRST' to use it as a key)"),
    ErrorCase("a[] == 1", offset: 2, column: 3, "expected expression, found ']'"),
    ErrorCase("a.$b == 1", offset: 2, column: 3, "a variable cannot follow '.' in a key path"),
    ErrorCase("a. == 1", offset: 3, column: 4, "expected key, found '=='"),
    ErrorCase("a.1 == 1", offset: 2, column: 3, "expected key, found number 1"),
    ErrorCase("a.@cout > 1", offset: 2, column: 3, "unknown collection operator '@cout' (did you mean '@count'?)"),
    ErrorCase("@foo > 1", offset: 0, column: 1, "unknown collection operator '@foo'"),
    ErrorCase("$1 == 1", offset: 0, column: 1, "variable '$1' must start with a letter or '_'"),
    ErrorCase("$ == 1", offset: 0, column: 1, "'$' must be followed by a variable name, as in $name"),
    ErrorCase("# == 1", offset: 0, column: 1, "'#' must be followed by a key, as in #size"),
    ErrorCase("@ == 1", offset: 0, column: 1, "'@' must be followed by a collection operator, as in @count"),
    ErrorCase(
      "a == %q", offset: 5, column: 6,
      "unknown format specifier '%q'; use %@, %K, %d, %f, %s or another printf conversion"),
    ErrorCase(
      "a == %", offset: 5, column: 6,
      "unknown format specifier '%'; use %@, %K, %d, %f, %s or another printf conversion"),
    ErrorCase(
      "a == %@", offset: 5, column: 6,
      "missing argument for '%@': the format needs argument 1, but only 0 arguments were given"),
    ErrorCase(
      "%K == 1", offset: 0, column: 1,
      "missing argument for '%K': the format needs argument 1, but only 0 arguments were given"),
    ErrorCase("avg(a) > 1", offset: 0, column: 1, "unknown function 'avg' (did you mean 'average'?)"),
    ErrorCase("averag(a) > 1", offset: 0, column: 1, "unknown function 'averag' (did you mean 'average'?)"),
    ErrorCase("sqrt(a, b) > 1", offset: 0, column: 1, "function 'sqrt' takes 1 argument, but 2 were given"),
    ErrorCase("now(1) > 1", offset: 0, column: 1, "function 'now' takes 0 arguments, but 1 was given"),
    ErrorCase("modulus:by:(1) == 1", offset: 0, column: 1, "function 'modulus' takes 2 arguments, but 1 was given"),
    ErrorCase("modulus:with:(1, 2) == 1", offset: 0, column: 1, "unknown function 'modulus:with:'"),
    ErrorCase(
      "FUNCTION(a, 'b') == 1", offset: 0, column: 1, "FUNCTION(…) calls Objective-C methods and is not supported"),
    ErrorCase("$x := 5", offset: 3, column: 4, "assignment ':=' is not supported"),
    ErrorCase("CAST(a) == 1", offset: 0, column: 1, "CAST takes a value and a type name, but 1 argument was given"),
    ErrorCase(
      "CAST(a, b) == 1", offset: 8, column: 9,
      "CAST needs a type name string as its second argument, such as \"NSDate\""),
    ErrorCase(
      "SUBQUERY(a, x, x == 1).@count > 0", offset: 12, column: 13, "expected variable such as $x, found identifier 'x'"),
    ErrorCase("SUBQUERY(a, $x).@count > 0", offset: 14, column: 15, "expected ',', found ')'"),
    ErrorCase(
      "SUBQUERY(a, $x, $x == 1.@count > 0", offset: 31, column: 32,
      "comparisons cannot be chained; combine them with AND, as in 'a < b AND b < c'"),
    ErrorCase("TERNARY(a, 1, 2) == 1", offset: 9, column: 10, "expected comparison operator, found ','"),
    ErrorCase("{1, 2", offset: 5, column: 6, "expected ',' or '}', found end of input"),
    ErrorCase("a == {1, 2", offset: 10, column: 11, "expected ',' or '}', found end of input"),
    ErrorCase("a == {1 2}", offset: 8, column: 9, "expected ',' or '}', found number 2"),
    ErrorCase("a == (1, 2)", offset: 7, column: 8, "expected ')', found ','"),
    ErrorCase("a == )", offset: 5, column: 6, "expected expression, found ')'"),
    ErrorCase("a == ]", offset: 5, column: 6, "expected expression, found ']'"),
    ErrorCase("a == ,", offset: 5, column: 6, "expected expression, found ','"),
    ErrorCase("ANY (a == 1)", offset: 7, column: 8, "expected ')', found '=='"),
    ErrorCase("NONE", offset: 4, column: 5, "expected expression, found end of input"),
    ErrorCase("NOT", offset: 3, column: 4, "expected predicate, found end of input"),
    ErrorCase("ALL tags", offset: 8, column: 9, "expected comparison operator, found end of input"),
    ErrorCase("ANYKEY == 1", offset: 0, column: 1, "'ANYKEY' is a reserved word (write '#ANYKEY' to use it as a key)"),
    ErrorCase("a CASEINSENSITIVE b", offset: 2, column: 3, "expected comparison operator, found 'CASEINSENSITIVE'"),
    ErrorCase("a == 1 AND AND b == 2", offset: 11, column: 12, "expected predicate, found 'AND'"),
    ErrorCase("a == 1,", offset: 6, column: 7, "expected AND, OR or end of input, found ','"),
    ErrorCase("a == 'x' 'y'", offset: 9, column: 10, "expected AND, OR or end of input, found string 'y'"),
    ErrorCase(
      "name == café", offset: 11, column: 12,
      "unexpected character 'é' (U+E9) (keys are ASCII letters, digits and '_'; quote text as in 'café')"),
    ErrorCase(
      "a == §", offset: 5, column: 6,
      "unexpected character '§' (U+A7) (keys are ASCII letters, digits and '_'; quote text as in 'café')"),
    ErrorCase(
      "a == €", offset: 5, column: 6,
      "unexpected character '€' (U+20AC) (keys are ASCII letters, digits and '_'; quote text as in 'café')"),
    ErrorCase(
      "naïve == 1", offset: 2, column: 3,
      "unexpected character 'ï' (U+EF) (keys are ASCII letters, digits and '_'; quote text as in 'café')"),
    ErrorCase("a == 1 ;", offset: 7, column: 8, "unexpected character ';' (U+3B)"),
    ErrorCase("a == 1 AND b == 2)", offset: 17, column: 18, "expected AND, OR or end of input, found ')'"),
  ]

  @Test("rejects with a message and a position", arguments: cases)
  func rejects(_ errorCase: ErrorCase) throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(errorCase.input)
    }
    #expect(error.summary == errorCase.summary)
    #expect(error.location.utf8Offset == errorCase.offset)
    #expect(error.location.line == 1)
    #expect(error.location.column == errorCase.column)
    #expect(error.length >= 1)
    #expect(error.source == errorCase.input)
    #expect(error.description == "predicate:1:\(errorCase.column): error: \(errorCase.summary)")
  }

  static let codes: [(String, PredicateParseError.Code)] = [
    ("age >", .unexpectedToken),
    ("a == ?", .invalidCharacter),
    ("a == 1 // x", .comment),
    ("a == 'x", .unterminatedString),
    ("a == '\\q'", .invalidEscape),
    ("a == 0x", .invalidNumber),
    ("a == 99999999999999999999", .numberOutOfRange),
    ("a == 1e999", .numberOutOfRange),
    ("$ == 1", .invalidSigil),
    ("a == %q", .invalidSigil),
    ("a BEGINSWITHH 'x'", .unknownOperator),
    ("a STARTSWITH 'x'", .unknownOperator),
    ("a ==[q] 'x'", .invalidOptions),
    ("a BETWEEN[c] {1, 2}", .invalidOptions),
    ("1 < a < 2", .chainedComparison),
    ("size == 1", .reservedWord),
    ("avg(a) == 1", .unknownFunction),
    ("sqrt(a, b) == 1", .wrongArgumentCount),
    ("a.@cnt == 1", .unknownCollectionOperator),
    ("a BETWEEN {1}", .betweenBounds),
    ("a == %@", .missingArgument),
    ("FUNCTION(a, 'b') == 1", .unsupported),
    ("$a := 1", .unsupported),
  ]

  @Test("reports the right code", arguments: codes)
  func reportsCode(_ input: String, _ code: PredicateParseError.Code) throws {
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(input) }
    #expect(error.code == code)
  }

  @Test func expectedAndFoundAreStructured() throws {
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("(a == 1") }
    #expect(error.expected == ["AND", "OR", "')'"])
    #expect(error.found == "end of input")
    let other = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("a == 1 ANDD b") }
    #expect(other.found == "identifier 'ANDD'")
    #expect(other.suggestion == "did you mean 'AND'?")
  }

  @Test func rendersWithCaretAndSuggestion() throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("name BEGINSWITHH 'A' AND age > 21")
    }
    #expect(
      error.detailedDescription() == """
        error: unknown operator 'BEGINSWITHH'
         --> predicate:1:6
          |
        1 | name BEGINSWITHH 'A' AND age > 21
          |      ^^^^^^^^^^^ did you mean 'BEGINSWITH'?
        """)
    #expect(
      error.description
        == "predicate:1:6: error: unknown operator 'BEGINSWITHH' (did you mean 'BEGINSWITH'?)")
  }

  @Test func rendersTheRightLineOfMultiLineInput() throws {
    let text = "age > 30\nAND name ==\n  AND x == 1"
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    #expect(error.location == .init(utf8Offset: 23, line: 3, column: 3))
    #expect(
      error.detailedDescription() == """
        error: expected expression, found 'AND'
         --> predicate:3:3
          |
        3 |   AND x == 1
          |   ^^^
        """)
  }

  @Test func crlfEndsALine() throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("a == 1\r\nAND ?")
    }
    #expect(error.location == .init(utf8Offset: 12, line: 2, column: 5))
    #expect(error.detailedDescription().contains("2 | AND ?\n"))
  }

  @Test func columnsCountCharactersNotBytes() throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse("name == 'café' AND 🏳️‍🌈 == 1")
    }
    #expect(error.location.utf8Offset == 20)
    #expect(error.location.column == 20)
    #expect(
      error.detailedDescription() == """
        error: unexpected character '🏳' (U+1F3F3)
         --> predicate:1:20
          |
        1 | name == 'café' AND 🏳️‍🌈 == 1
          |                    ^ keys are ASCII letters, digits and '_'; quote text as in 'café'
        """)
  }

  @Test func tabsKeepTheCaretAligned() throws {
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("\tage\t>") }
    #expect(error.detailedDescription().hasSuffix("  | \t   \t ^"))
  }

  @Test func trailingSpacesAreVisible() throws {
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse("age >  ") }
    #expect(
      error.detailedDescription() == """
        error: expected expression, found end of input
         --> predicate:1:8
          |
        1 | age >␣␣
          |        ^
        """)
  }

  @Test func longLinesAreCutAroundTheCaret() throws {
    let clauses = (0..<40).map { "k\($0) == \($0)" }.joined(separator: " AND ")
    let text = clauses + " AND oops oops AND " + clauses
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    let rendered = error.detailedDescription()
    let lines = rendered.split(separator: "\n")
    #expect(lines[3].hasPrefix("1 | …"))
    #expect(lines[3].hasSuffix("…"))
    #expect(lines[3].count <= 100)
    // The caret sits under the second 'oops'.
    let sourceLine = Array(lines[3])
    let caretLine = Array(lines[4])
    let caret = try #require(caretLine.firstIndex(of: "^"))
    #expect(String(sourceLine[caret..<caret + 4]) == "oops")
  }

  @Test func argumentErrors() throws {
    func failure(_ text: String, _ arguments: [FilterValue]) throws -> PredicateParseError {
      try #require(throws: PredicateParseError.self) {
        try PredicateParser.parse(text, arguments: arguments)
      }
    }
    let missing = try failure("a == %@ AND b == %d", ["x"])
    #expect(missing.code == .missingArgument)
    #expect(missing.location.utf8Offset == 17)
    #expect(missing.message == "missing argument for '%d': the format needs argument 2, but only 1 argument was given")

    let extra = try failure("a == %@", [1, 2])
    #expect(extra.code == .extraArguments)
    #expect(extra.message == "too many arguments: the format uses 1, but 2 were given")
    #expect(extra.location.utf8Offset == 7)

    let noneUsed = try failure("a == 1", [1])
    #expect(noneUsed.message == "too many arguments: the format uses 0, but 1 were given")

    let keyPath = try failure("%K == 1", [5])
    #expect(keyPath.code == .invalidArgument)
    #expect(keyPath.message == "argument 1 for '%K' must be a string naming a key path, not integer")

    let badPath = try failure("%K == 1", ["first name"])
    #expect(badPath.code == .invalidKeyPath)
    #expect(
      badPath.message
        == "argument 1 for '%K' is not a key path: \"first name\" is not a key (letters, digits and '_', not starting with a digit)"
    )
    #expect(
      try failure("%K == 1", ["a..b"]).message == "argument 1 for '%K' is not a key path: \"a..b\" has an empty key")
    #expect(try failure("%K == 1", [""]).message == "argument 1 for '%K' is not a key path: it is empty")
    #expect(
      try failure("%K == 1", ["a.@bogus"]).message
        == "argument 1 for '%K' is not a key path: unknown collection operator '@bogus'")

    #expect(try failure("a == %d", ["7"]).message == "argument 1 for '%d' must be an integer, not string")
    #expect(try failure("a == %d", [1.5]).message == "argument 1 for '%d' must be an integer, not double")
    #expect(try failure("a == %f", ["x"]).message == "argument 1 for '%f' must be a number, not string")
    #expect(try failure("a == %s", [1]).message == "argument 1 for '%s' must be a string, not integer")
    #expect(try failure("a.%@ == 1", ["b"]).message == "only '%K' can follow '.' in a key path")
  }
}
