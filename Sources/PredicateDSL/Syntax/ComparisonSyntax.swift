/// One comparison: `[quantifier] lhs operator[options] rhs`.
///
/// ```swift
/// let syntax = try PredicateSyntax(parsing: "ANY tags BEGINSWITH[cd] 'swift'")
/// guard case .comparison(let comparison) = syntax.kind else { return }
/// comparison.quantifier  // .any
/// comparison.operator    // .beginsWith
/// comparison.options     // [.caseInsensitive, .diacriticInsensitive]
/// ```
public struct ComparisonSyntax: Hashable, Sendable {
  // The operands first and the one-byte fields after them, which then fill
  // the operands' tail padding: 63 bytes (`TextLengthTests` checks).
  /// The left operand.
  public var lhs: ExpressionSyntax
  /// The right operand.
  public var rhs: ExpressionSyntax
  /// `ANY`, `ALL` or `NONE` in front of the comparison, or ``Quantifier/direct``.
  public var quantifier: Quantifier
  /// The operator.
  public var `operator`: Operator
  /// The `[c]`, `[d]`, `[n]`, `[l]` options after the operator.
  public var options: Options

  /// Creates a comparison.
  public init(
    quantifier: Quantifier = .direct, _ lhs: ExpressionSyntax, _ operator: Operator,
    options: Options = Options(rawValue: 0), _ rhs: ExpressionSyntax
  ) {
    self.quantifier = quantifier
    self.lhs = lhs
    self.operator = `operator`
    self.options = options
    self.rhs = rhs
  }

  /// Whether the comparison applies to its left operand or, with `ANY`,
  /// `ALL` or `NONE`, to every element of it (a collection).
  public enum Quantifier: Hashable, Sendable, CaseIterable {
    /// No quantifier: the comparison applies to the left operand itself.
    case direct
    /// `ANY` (also `SOME`): at least one element satisfies the comparison.
    case any
    /// `ALL`: every element does (true for an empty collection).
    case all
    /// `NONE`: no element does (true for an empty collection).
    case none
  }

  /// The comparison operators.
  public enum Operator: Hashable, Sendable, CaseIterable {
    /// `==` (also `=`).
    case equal
    /// `!=` (also `<>`).
    case notEqual
    /// `<`.
    case less
    /// `<=` (also `=<`).
    case lessOrEqual
    /// `>`.
    case greater
    /// `>=` (also `=>`).
    case greaterOrEqual
    /// `BEGINSWITH`.
    case beginsWith
    /// `ENDSWITH`.
    case endsWith
    /// `CONTAINS`.
    case contains
    /// `LIKE`, with the wildcards `*` and `?`.
    case like
    /// `MATCHES`, a regular expression that must match the whole string.
    case matches
    /// `IN`.
    case `in`
    /// `BETWEEN`, against two bounds `{lower, upper}`, inclusive.
    case between
    /// `UTI-CONFORMS-TO`: parsed for completeness; Apple platforms only.
    case utiConformsTo
    /// `UTI-EQUALS`: parsed for completeness; Apple platforms only.
    case utiEquals

    /// The operator as the canonical printout spells it.
    public var text: String {
      switch self {
      case .equal: "=="
      case .notEqual: "!="
      case .less: "<"
      case .lessOrEqual: "<="
      case .greater: ">"
      case .greaterOrEqual: ">="
      case .beginsWith: "BEGINSWITH"
      case .endsWith: "ENDSWITH"
      case .contains: "CONTAINS"
      case .like: "LIKE"
      case .matches: "MATCHES"
      case .in: "IN"
      case .between: "BETWEEN"
      case .utiConformsTo: "UTI-CONFORMS-TO"
      case .utiEquals: "UTI-EQUALS"
      }
    }

    /// Whether the operator accepts `[c]`, `[d]`, `[n]` and `[l]` options
    /// (every operator but `BETWEEN`).
    public var acceptsOptions: Bool { self != .between }
  }

  /// The string comparison options written in brackets after an operator.
  public struct Options: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public var rawValue: UInt8
    /// Creates options from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: case-insensitive.
    public static let caseInsensitive = Options(rawValue: 1 << 0)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = Options(rawValue: 1 << 1)
    /// `[n]`: the operands are already normalized; supersedes `[c]` and `[d]`.
    public static let normalized = Options(rawValue: 1 << 2)
    /// `[l]`: locale-sensitive.
    public static let localeSensitive = Options(rawValue: 1 << 3)

    /// The letters as the printout writes them, in the order `c d n l`;
    /// empty for no options.
    public var letters: String {
      var text = ""
      if contains(.caseInsensitive) { text += "c" }
      if contains(.diacriticInsensitive) { text += "d" }
      if contains(.normalized) { text += "n" }
      if contains(.localeSensitive) { text += "l" }
      return text
    }
  }
}
