internal import Foundation

/// The predicate functions, applied to argument values.
package enum FunctionCall {
  /// Whether a call may give a different result each time, so that it is
  /// never folded into a constant.
  package static func isDeterministic(_ function: PredicateFunction) -> Bool {
    switch function {
    case .random, .randomElement, .now: false
    default: true
    }
  }

  /// Calls `function` on argument values; `arguments` has the function's arity.
  package static func apply(_ function: PredicateFunction, _ arguments: [FilterValue]) throws(ValueFault) -> FilterValue
  {
    switch function {
    case .random: return .double(Double.random(in: 0..<1))
    case .now: return .date(secondsSinceReferenceDate: EvaluationTime.now ?? Date().timeIntervalSinceReferenceDate)
    case .add: return try Arithmetic.apply(.add, arguments[0], arguments[1])
    case .subtract: return try Arithmetic.apply(.subtract, arguments[0], arguments[1])
    case .multiply: return try Arithmetic.apply(.multiply, arguments[0], arguments[1])
    case .divide: return try Arithmetic.apply(.divide, arguments[0], arguments[1])
    case .raise: return try Arithmetic.apply(.power, arguments[0], arguments[1])
    case .bitwiseAnd: return try Arithmetic.apply(.bitwiseAnd, arguments[0], arguments[1])
    case .bitwiseOr: return try Arithmetic.apply(.bitwiseOr, arguments[0], arguments[1])
    case .bitwiseXor: return try Arithmetic.apply(.bitwiseXor, arguments[0], arguments[1])
    case .leftShift: return try Arithmetic.apply(.shiftLeft, arguments[0], arguments[1])
    case .rightShift: return try Arithmetic.apply(.shiftRight, arguments[0], arguments[1])
    case .modulus: return try Arithmetic.modulus(arguments[0], arguments[1])
    default: break
    }
    let argument = arguments[0]
    switch function {
    case .noIndex: return argument
    case .average, .sum, .count, .min, .max, .median, .mode, .standardDeviation, .distinct, .randomElement:
      return try collectionFunction(function, argument)
    case .uppercase, .lowercase, .length:
      if argument.isNull { return .null }
      guard case .string(let text) = argument else {
        throw .typeMismatch(
          "\(function.shortName) needs a string, found \(argument.typeName) \(argument.shortDescription)")
      }
      switch function {
      case .uppercase: return .string(text.uppercased())
      case .lowercase: return .string(text.lowercased())
      default: return .int(Int64(text.utf16.count))
      }
    default:
      return try numericFunction(function, argument)
    }
  }

  private static func collectionFunction(
    _ function: PredicateFunction, _ argument: FilterValue
  ) throws(ValueFault) -> FilterValue {
    guard let elements = argument.collectionElements else {
      throw ValueFault(
        .notACollection,
        "\(function.shortName) needs a collection, found \(argument.typeName) \(argument.shortDescription)")
    }
    switch function {
    case .count: return .int(Int64(elements.count))
    case .sum: return try Aggregates.sum(elements)
    case .average: return try Aggregates.average(elements)
    case .min: return try Aggregates.extreme(elements, keepingSmaller: true)
    case .max: return try Aggregates.extreme(elements, keepingSmaller: false)
    case .median: return try Aggregates.median(elements)
    case .standardDeviation: return try Aggregates.standardDeviation(elements)
    case .mode: return Aggregates.mode(elements)
    case .distinct: return .array(Aggregates.distinct(elements))
    default: return elements.randomElement() ?? .null
    }
  }

  private static func numericFunction(
    _ function: PredicateFunction, _ argument: FilterValue
  ) throws(ValueFault) -> FilterValue {
    if argument.isNull { return .null }
    guard let number = NumericValue(argument) else {
      throw .typeMismatch(
        "\(function.shortName) needs a number, found \(argument.typeName) \(argument.shortDescription)")
    }
    if case .int(let int) = number {
      switch function {
      case .ceiling, .floor, .truncate: return .int(int)
      case .absoluteValue:
        return int == .min ? .double(-Double(int)) : .int(Swift.abs(int))
      case .onesComplement: return .int(~int)
      default: break
      }
    }
    let x = number.doubleValue
    switch function {
    case .squareRoot: return .double(x.squareRoot())
    case .log: return .double(Foundation.log10(x))
    case .naturalLogarithm: return .double(Foundation.log(x))
    case .exponential: return .double(Foundation.exp(x))
    case .ceiling: return .double(x.rounded(.up))
    case .floor: return .double(x.rounded(.down))
    case .truncate: return .double(x.rounded(.towardZero))
    case .absoluteValue: return .double(Swift.abs(x))
    default:
      throw .typeMismatch(
        "\(function.shortName) needs an integer, found \(argument.typeName) \(argument.shortDescription)")
    }
  }
}
