/// An error thrown while evaluating a compiled predicate, where Apple's
/// `NSPredicate` raises an exception: ordering a number against a string,
/// `ANY` over a value that is not a collection, an index out of range,
/// arithmetic on a string.
///
/// ```swift
/// let filter = try CompiledFilter("age < '40'", resolver: RecordKeyResolver())
/// try filter.evaluate(["age": 30])
/// // predicate:1:1: error: cannot order integer 30 against string "40"
/// ```
public struct PredicateEvaluationError: PredicateDiagnostic, Hashable, Sendable {
  /// The broad kind of problem.
  public var code: Code
  /// What is wrong, in one sentence without the position.
  public var message: String
  /// The UTF-8 range of the expression or comparison that failed.
  public var range: SyntaxRange
  /// The predicate text, when the predicate was compiled from text.
  public var source: String?

  /// Creates an error.
  public init(_ code: Code, _ message: String, at range: SyntaxRange, source: String? = nil) {
    self.code = code
    self.message = message
    self.range = range
    self.source = source
  }

  /// The kinds of evaluation error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// Values of types the operation cannot take, such as ordering a number
    /// against a string, or adding strings.
    public static let typeMismatch = Code("typeMismatch")
    /// `ANY`, `ALL`, `NONE`, `IN` or a collection function applied to a
    /// value that is not a collection.
    public static let notACollection = Code("notACollection")
    /// An array index beyond the end.
    public static let indexOutOfRange = Code("indexOutOfRange")
    /// Integer division or modulus by zero.
    public static let divisionByZero = Code("divisionByZero")
    /// `BETWEEN` whose bounds are not a two-element collection.
    public static let invalidBounds = Code("invalidBounds")
    /// A `MATCHES` pattern, computed during evaluation, that is not a valid
    /// regular expression.
    public static let invalidPattern = Code("invalidPattern")
    /// A value that cannot be converted by `CAST`.
    public static let invalidCast = Code("invalidCast")
    /// Work beyond a limit, such as a `MATCHES` pattern that outruns
    /// ``PredicateLimits/regexBudget``: the answer is unknown.
    public static let limitExceeded = Code("limitExceeded")

    /// The code's name, such as `typeMismatch`.
    public var description: String { name }
  }
}
