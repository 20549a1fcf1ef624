/// The functions a predicate can call, as `NSExpression` names them.
///
/// A format string calls a function by its short name, `average(scores)`,
/// or by its selector, `average:(scores)`, `modulus:by:(7, 2)`. The printout
/// uses the selector form, as Apple's does.
///
/// ```swift
/// let syntax = try PredicateSyntax(parsing: "sqrt(area) > 3")
/// print(syntax)  // sqrt:(area) > 3
/// ```
public enum PredicateFunction: String, Hashable, Sendable, CaseIterable {
  /// `average:`: the mean of a collection of numbers.
  case average = "average:"
  /// `sum:`: the sum of a collection of numbers.
  case sum = "sum:"
  /// `count:`: the number of elements of a collection.
  case count = "count:"
  /// `min:`: the smallest element of a collection.
  case min = "min:"
  /// `max:`: the largest element of a collection.
  case max = "max:"
  /// `median:`: the median of a collection of numbers.
  case median = "median:"
  /// `mode:`: an array of the most frequent elements of a collection.
  case mode = "mode:"
  /// `stddev:`: the standard deviation of a collection of numbers.
  case standardDeviation = "stddev:"
  /// `sqrt:`: square root.
  case squareRoot = "sqrt:"
  /// `log:`: base-10 logarithm.
  case log = "log:"
  /// `ln:`: natural logarithm.
  case naturalLogarithm = "ln:"
  /// `exp:`: e raised to the argument.
  case exponential = "exp:"
  /// `ceiling:`: the smallest integral value not less than the argument.
  case ceiling = "ceiling:"
  /// `floor:`: the largest integral value not greater than the argument.
  case floor = "floor:"
  /// `abs:`: absolute value.
  case absoluteValue = "abs:"
  /// `trunc:`: the integral part.
  case truncate = "trunc:"
  /// `uppercase:`: a string in upper case.
  case uppercase = "uppercase:"
  /// `lowercase:`: a string in lower case.
  case lowercase = "lowercase:"
  /// `length:`: the number of characters of a string.
  case length = "length:"
  /// `noindex:`: its argument, unchanged (an index hint on Apple platforms).
  case noIndex = "noindex:"
  /// `distinct:`: the distinct elements of a collection, in order.
  case distinct = "distinct:"
  /// `random`: a random number in 0..<1.
  case random = "random"
  /// `random:`: a random element of a collection (short name `randomn`).
  case randomElement = "random:"
  /// `now`: the current date.
  case now = "now"
  /// `add:to:`.
  case add = "add:to:"
  /// `from:subtract:`.
  case subtract = "from:subtract:"
  /// `multiply:by:`.
  case multiply = "multiply:by:"
  /// `divide:by:`.
  case divide = "divide:by:"
  /// `modulus:by:`.
  case modulus = "modulus:by:"
  /// `raise:toPower:`.
  case raise = "raise:toPower:"
  /// `bitwiseAnd:with:`.
  case bitwiseAnd = "bitwiseAnd:with:"
  /// `bitwiseOr:with:`.
  case bitwiseOr = "bitwiseOr:with:"
  /// `bitwiseXor:with:`.
  case bitwiseXor = "bitwiseXor:with:"
  /// `leftshift:by:`.
  case leftShift = "leftshift:by:"
  /// `rightshift:by:`.
  case rightShift = "rightshift:by:"
  /// `onesComplement:`.
  case onesComplement = "onesComplement:"

  /// The selector, as printed: `"average:"`, `"modulus:by:"`, `"now"`.
  public var selector: String { rawValue }

  /// The number of arguments the function takes: one per colon.
  public var arity: Int { rawValue.utf8.count(where: { $0 == UInt8(ascii: ":") }) }

  /// The short name a format string may call the function by:
  /// `"average"`, `"modulus"`, `"randomn"`.
  public var shortName: String {
    switch self {
    case .randomElement: "randomn"
    case .subtract: "subtract"
    default: String(rawValue.prefix(while: { $0 != ":" }))
    }
  }

  /// Looks a function up by its short name or its selector.
  public init?(name: String) {
    if let function = PredicateFunction(rawValue: name) {
      self = function
    } else if let function = Self.byShortName[name] {
      self = function
    } else {
      return nil
    }
  }

  private static let byShortName: [String: PredicateFunction] = Dictionary(
    uniqueKeysWithValues: allCases.map { ($0.shortName, $0) })
}
