/// A parsed predicate: the syntax tree of a format string such as
/// `age > 30 AND name BEGINSWITH[c] "a"`.
///
/// Parse text with ``PredicateParser/parse(_:arguments:limits:)``,
/// print it back with ``description`` (the canonical format string), and
/// replace `$VARIABLES` with ``substituting(_:)``.
///
/// ```swift
/// let syntax = try PredicateSyntax(parsing: "age >= %d AND NOT name == nil", arguments: [21])
/// print(syntax)  // age >= 21 AND NOT name == nil
/// ```
///
/// Every node keeps the ``SyntaxRange`` of the text it was parsed from.
/// Equality and hashing ignore ranges: two trees are equal when they mean the
/// same thing syntactically, wherever their text came from. In particular a
/// predicate parsed from its own printout equals the original.
public struct PredicateSyntax: Hashable, Sendable {
  /// What kind of predicate this node is.
  public var kind: Kind
  /// The text the node was parsed from.
  public var range: SyntaxRange

  /// Creates a node.
  public init(_ kind: Kind, range: SyntaxRange = .synthesized) {
    self.kind = kind
    self.range = range
  }

  /// The kinds of predicate node.
  public enum Kind: Hashable, Sendable {
    /// `TRUEPREDICATE` (`true`) or `FALSEPREDICATE` (`false`).
    case constant(Bool)
    /// A comparison such as `age > 30` or `ANY tags == "x"`.
    case comparison(ComparisonSyntax)
    /// `NOT p` (also written `!p`).
    indirect case not(PredicateSyntax)
    /// `a AND b AND …` (also `&&`). Chains at one level are flat; explicit
    /// parentheses nest.
    case and([PredicateSyntax])
    /// `a OR b OR …` (also `||`).
    case or([PredicateSyntax])
  }

  /// Two predicates are equal when their kinds are, wherever they came from.
  public static func == (lhs: PredicateSyntax, rhs: PredicateSyntax) -> Bool {
    lhs.kind == rhs.kind
  }

  /// Hashes the kind only, consistently with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
  }
}
