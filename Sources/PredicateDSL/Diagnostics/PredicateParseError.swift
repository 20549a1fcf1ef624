/// An error thrown when predicate text does not follow the predicate grammar,
/// or its format arguments do not fit it.
///
/// The error says what and where, and carries the text, so it renders on its
/// own: ``description`` is one line in compiler style, for logs and editors;
/// ``detailedDescription()`` shows the line with a caret under the spot.
///
/// ```swift
/// do {
///   _ = try PredicateParser.parse("name BEGINSWITHH 'A'")
/// } catch {
///   print(error.detailedDescription())
///   // error: unknown operator 'BEGINSWITHH'
///   //  --> predicate:1:6
///   //   |
///   // 1 | name BEGINSWITHH 'A'
///   //   |      ^^^^^^^^^^^ did you mean 'BEGINSWITH'?
/// }
/// ```
public struct PredicateParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The broad kind of problem.
  public var code: Code
  /// What is wrong, in one sentence without the position:
  /// `"expected comparison operator, found end of input"`.
  public var message: String
  /// Where the offending text starts.
  public var location: Location
  /// How many characters to underline, at least 1.
  public var length: Int
  /// What the grammar accepts at the location, such as `"')'"` or
  /// `"comparison operator"`; empty when a list would not help.
  public var expected: [String]
  /// What was found there instead, such as `"identifier 'agee'"`; `nil` when
  /// the problem is not a token out of place.
  public var found: String?
  /// A likely fix, such as `"did you mean 'BEGINSWITH'?"`.
  public var suggestion: String?
  /// The text that was parsed.
  public var source: String

  /// A position in predicate text.
  public struct Location: Hashable, Sendable, CustomStringConvertible {
    /// The offset in UTF-8 bytes from the start of the text.
    public var utf8Offset: Int
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in characters (grapheme clusters).
    public var column: Int

    /// Creates a location.
    public init(utf8Offset: Int, line: Int, column: Int) {
      self.utf8Offset = utf8Offset
      self.line = line
      self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
  }

  /// The kinds of parse error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// A token the grammar does not allow here.
    public static let unexpectedToken = Code("unexpectedToken")
    /// Internal to the parser: a `{…}` list that is not all constants,
    /// unwinding to where it is parsed again. Never reaches a caller.
    static let notConstant = Code("notConstant")
    /// A character that starts no token, such as `?` or `§`.
    public static let invalidCharacter = Code("invalidCharacter")
    /// `/*` or `//`: predicates have no comments.
    public static let comment = Code("comment")
    /// A string literal without its closing quote.
    public static let unterminatedString = Code("unterminatedString")
    /// An unknown or malformed escape sequence in a string literal.
    public static let invalidEscape = Code("invalidEscape")
    /// A malformed number literal, such as `0x` or `12ab`.
    public static let invalidNumber = Code("invalidNumber")
    /// A number that does not fit: an integer beyond 64 bits, a real beyond
    /// the range of `Double`.
    public static let numberOutOfRange = Code("numberOutOfRange")
    /// A `$`, `#`, `@` or `%` that is not followed by what it needs.
    public static let invalidSigil = Code("invalidSigil")
    /// A word where an operator belongs that is not an operator.
    public static let unknownOperator = Code("unknownOperator")
    /// Bracketed options other than `c`, `d`, `n` and `l`, or repeated.
    public static let invalidOptions = Code("invalidOptions")
    /// `a < b < c`: comparisons do not chain.
    public static let chainedComparison = Code("chainedComparison")
    /// A reserved word used as a key without `#`.
    public static let reservedWord = Code("reservedWord")
    /// A function name that is not one of ``PredicateFunction``.
    public static let unknownFunction = Code("unknownFunction")
    /// A function, `CAST`, `SUBQUERY` or `TERNARY` with the wrong number of
    /// arguments.
    public static let wrongArgumentCount = Code("wrongArgumentCount")
    /// A collection operator other than `@count`, `@sum`, `@avg`, `@min`,
    /// `@max` and the KVC union operators.
    public static let unknownCollectionOperator = Code("unknownCollectionOperator")
    /// `BETWEEN` with a literal right side that is not two bounds.
    public static let betweenBounds = Code("betweenBounds")
    /// A `%` specifier with no argument left to substitute.
    public static let missingArgument = Code("missingArgument")
    /// More arguments than `%` specifiers.
    public static let extraArguments = Code("extraArguments")
    /// An argument that does not fit its specifier, such as a number for `%K`
    /// or a NaN.
    public static let invalidArgument = Code("invalidArgument")
    /// A `%K` argument that is not a key path.
    public static let invalidKeyPath = Code("invalidKeyPath")
    /// Nesting deeper than the parser's limit.
    public static let nestingTooDeep = Code("nestingTooDeep")
    /// Text longer than the length limit: ``PredicateLimits/maximumLength``
    /// (1 MiB unless set), and never more than ``SyntaxRange/maximumOffset``
    /// bytes (4 GiB less one byte), what a syntax tree's offsets can hold.
    public static let textTooLong = Code("textTooLong")
    /// Syntax of Apple's that this implementation does not support, such as
    /// `FUNCTION(…)` or `$x := …`.
    public static let unsupported = Code("unsupported")

    /// The code's name, such as `unexpectedToken`.
    public var description: String { name }
  }

  /// One line in compiler style:
  /// `predicate:1:6: error: unknown operator 'BEGINSWITHH' (did you mean 'BEGINSWITH'?)`.
  public var description: String {
    "predicate:\(location.line):\(location.column): error: \(summary)"
  }

  /// The message followed by the suggestion, if any, without the position.
  public var summary: String {
    guard let suggestion else { return message }
    return "\(message) (\(suggestion))"
  }
}
