/// The limits that keep hostile predicates from exhausting a service: the
/// length of predicate text, its nesting, and the work one regular
/// expression match may do.
///
/// Parsing takes the length and depth limits per call, compiling takes the
/// regular expression budget (a `MATCHES` pattern keeps the budget it was
/// compiled with), and a watcher takes all three per watcher.
/// docs/limits.md lists every limit.
///
/// ```swift
/// let limits = PredicateLimits(maximumLength: 64 * 1024, regexBudget: 1_000)
/// let syntax = try PredicateParser.parse(text, limits: limits)
/// let filter = try CompiledFilter(text, limits: limits, resolver: RecordKeyResolver())
/// ```
public struct PredicateLimits: Hashable, Sendable {
  /// The longest predicate text accepted, in UTF-8 bytes. Longer text is
  /// refused before it is read, with
  /// ``PredicateParseError/Code/textTooLong``.
  public var maximumLength: Int
  /// The deepest nesting accepted (parentheses, `NOT`, unary minus,
  /// `SUBQUERY`, function calls, aggregates).
  public var maximumDepth: Int
  /// The work one `MATCHES` evaluation may do, in progress steps of the
  /// regular expression engine (ICU reports progress about every 10,000
  /// backtracking steps, a millisecond of matching or less). A match still
  /// undecided when the budget is spent is an evaluation error with code
  /// ``PredicateEvaluationError/Code/limitExceeded``, never "no match".
  /// Values below 1 count as 1.
  public var regexBudget: Int

  /// The default length limit: 1 MiB of UTF-8. Parsing and compiling take
  /// about 25 bytes of memory per byte of text, so the default bounds one
  /// predicate at about 25 MiB.
  public static let defaultMaximumLength = 1 << 20

  /// The default limits: 1 MiB of text, 256 levels of nesting, 250 progress
  /// steps a regular expression match.
  public static let `default` = PredicateLimits()

  /// Creates limits.
  ///
  /// - Parameters:
  ///   - maximumLength: The longest text accepted, in UTF-8 bytes.
  ///   - maximumDepth: The deepest nesting accepted.
  ///   - regexBudget: The work one regular expression match may do.
  public init(
    maximumLength: Int = defaultMaximumLength, maximumDepth: Int = PredicateParser.defaultMaximumDepth,
    regexBudget: Int = defaultRegexBudget
  ) {
    self.maximumLength = maximumLength
    self.maximumDepth = maximumDepth
    self.regexBudget = regexBudget
  }

  /// The default budget of one regular expression match: 250 progress
  /// steps, about 2.5 million backtracking steps or a fifth of a second.
  public static let defaultRegexBudget = 250
}
