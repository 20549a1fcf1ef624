/// An operand of a comparison: a constant, a key path, a variable, an
/// arithmetic expression, a function call, an aggregate `{…}`, a `CAST`, a
/// `SUBQUERY`…
///
/// The parser keeps expressions in a canonical shape, so that equal meanings
/// have equal trees and the printout parses back to the same tree:
/// - `SELF.name` and `name` are both ``Kind-swift.enum/keyPath(_:)`` `"name"`;
///   a key path after any other base is one ``Kind-swift.enum/member(base:keyPath:)``.
/// - An aggregate of constants, `{1, 2}`, is the constant array `[1, 2]`.
/// - `CAST(<number>, "NSDate")` is a date constant; likewise a valid UUID
///   string cast to `"NSUUID"`, base64 text cast to `"NSData"`, an array
///   cast to `"NSSet"`, and key-value pairs cast to `"NSDictionary"`.
/// - A minus sign written directly before a number is part of the number.
///
/// Equality and hashing ignore ``range``.
public struct ExpressionSyntax: Hashable, Sendable {
  /// What kind of expression this node is.
  public var kind: Kind
  /// The text the node was parsed from.
  public var range: SyntaxRange

  /// Creates a node.
  public init(_ kind: Kind, range: SyntaxRange = .synthesized) {
    self.kind = kind
    self.range = range
  }

  /// The kinds of expression node.
  public enum Kind: Hashable, Sendable {
    /// A literal, or a value substituted for a format argument or variable.
    case constant(FilterValue)
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// A key path from the evaluated object, its components joined by dots:
    /// `"address.city"`, `"tags.@count"`. Components are stored without the
    /// `#` that escapes a reserved word.
    case keyPath(String)
    /// `$name`: a substitution variable, named without the `$`.
    case variable(String)
    /// A key path applied to an expression other than `SELF`:
    /// `$person.name`, `items[0].price`, `SUBQUERY(…).@count`.
    indirect case member(base: ExpressionSyntax, keyPath: String)
    /// `base[index]`, `base[FIRST]`, `base[LAST]`, `base[SIZE]`.
    indirect case index(base: ExpressionSyntax, Subscript)
    /// `{a, b, …}` with at least one element that is not constant.
    case aggregate([ExpressionSyntax])
    /// `-operand`.
    indirect case negation(ExpressionSyntax)
    /// `lhs op rhs` for `+ - * / **` and the bitwise `& | ^ << >>`.
    indirect case arithmetic(ArithmeticOperator, ExpressionSyntax, ExpressionSyntax)
    /// A call of one of the predicate functions: `sum:(scores)`, `now()`.
    case function(PredicateFunction, [ExpressionSyntax])
    /// `CAST(value, "TypeName")` that could not be folded into a constant.
    indirect case cast(ExpressionSyntax, type: String)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the
    /// collection for which the predicate holds, each bound to the variable.
    indirect case subquery(ExpressionSyntax, variable: String, PredicateSyntax)
    /// `TERNARY(condition, then, else)`.
    indirect case ternary(PredicateSyntax, ExpressionSyntax, ExpressionSyntax)
  }

  /// What goes between the brackets of an index expression.
  public enum Subscript: Hashable, Sendable {
    /// `[FIRST]`: the first element, or nil for an empty collection.
    case first
    /// `[LAST]`: the last element, or nil for an empty collection.
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[expression]`: an array index or a dictionary key.
    indirect case at(ExpressionSyntax)
  }

  /// The binary arithmetic and bitwise operators, by precedence level.
  public enum ArithmeticOperator: Hashable, Sendable, CaseIterable {
    /// `+`.
    case add
    /// `-`.
    case subtract
    /// `*`.
    case multiply
    /// `/`: integer division for two integers, else floating-point.
    case divide
    /// `**`.
    case power
    /// `&`.
    case bitwiseAnd
    /// `|`.
    case bitwiseOr
    /// `^`.
    case bitwiseXor
    /// `<<`.
    case shiftLeft
    /// `>>`.
    case shiftRight

    /// The operator as printed.
    public var text: String {
      switch self {
      case .add: "+"
      case .subtract: "-"
      case .multiply: "*"
      case .divide: "/"
      case .power: "**"
      case .bitwiseAnd: "&"
      case .bitwiseOr: "|"
      case .bitwiseXor: "^"
      case .shiftLeft: "<<"
      case .shiftRight: ">>"
      }
    }

    /// Binding strength: higher binds tighter. All levels bind tighter than
    /// comparisons, and every level is left-associative.
    public var precedence: Int {
      switch self {
      case .bitwiseOr: 1
      case .bitwiseXor: 2
      case .bitwiseAnd: 3
      case .shiftLeft, .shiftRight: 4
      case .add, .subtract: 5
      case .multiply, .divide: 6
      case .power: 7
      }
    }
  }

  /// Two expressions are equal when their kinds are, wherever they came from.
  public static func == (lhs: ExpressionSyntax, rhs: ExpressionSyntax) -> Bool {
    lhs.kind == rhs.kind
  }

  /// Hashes the kind only, consistently with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
  }
}
