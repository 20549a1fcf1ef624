internal import Foundation

/// The collection functions and operators: `@sum`, `average:`, `median:`…
enum Aggregates {
  static func numbers(_ values: [FilterValue], for name: String) throws(ValueFault) -> [NumericValue] {
    var numbers: [NumericValue] = []
    numbers.reserveCapacity(values.count)
    for value in values where !value.isNull {
      guard let number = NumericValue(value) else {
        throw .typeMismatch("\(name) needs numbers, found \(value.typeName) \(value.shortDescription)")
      }
      numbers.append(number)
    }
    return numbers
  }

  /// The sum; exact while every term is an integer and the sum fits.
  static func sum(_ values: [FilterValue]) throws(ValueFault) -> FilterValue {
    var total = NumericValue.int(0)
    for number in try numbers(values, for: "sum") { total = Arithmetic.add(total, number) }
    return total.value
  }

  /// The mean, a double; nil for no values.
  static func average(_ values: [FilterValue]) throws(ValueFault) -> FilterValue {
    let numbers = try numbers(values, for: "average")
    guard !numbers.isEmpty else { return .null }
    return .double(numbers.reduce(0) { $0 + $1.doubleValue } / Double(numbers.count))
  }

  /// The smallest or largest value by predicate ordering; nil values are
  /// skipped, and nil is the answer for no values.
  static func extreme(_ values: [FilterValue], keepingSmaller: Bool) throws(ValueFault) -> FilterValue {
    var best: FilterValue = .null
    for value in values where !value.isNull {
      if best.isNull {
        best = value
        continue
      }
      if let order = try FilterValue.predicateOrder(value, best), keepingSmaller ? order < 0 : order > 0 {
        best = value
      }
    }
    return best
  }

  static func median(_ values: [FilterValue]) throws(ValueFault) -> FilterValue {
    let numbers = try numbers(values, for: "median").sorted { NumericValue.compare($0, $1) ?? 0 < 0 }
    guard !numbers.isEmpty else { return .null }
    let middle = numbers.count / 2
    if numbers.count % 2 == 1 { return numbers[middle].value }
    return .double((numbers[middle - 1].doubleValue + numbers[middle].doubleValue) / 2)
  }

  /// The population standard deviation; nil for no values.
  static func standardDeviation(_ values: [FilterValue]) throws(ValueFault) -> FilterValue {
    let numbers = try numbers(values, for: "stddev").map(\.doubleValue)
    guard !numbers.isEmpty else { return .null }
    let mean = numbers.reduce(0, +) / Double(numbers.count)
    let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
    return .double(variance.squareRoot())
  }

  /// The most frequent values, in order of first appearance.
  static func mode(_ values: [FilterValue]) -> FilterValue {
    var counts: [MembershipKey: Int] = [:]
    for value in values { counts[MembershipKey(value), default: 0] += 1 }
    let highest = counts.values.max() ?? 0
    var seen: Set<MembershipKey> = []
    return .array(
      values.filter { value in
        let key = MembershipKey(value)
        return counts[key] == highest && seen.insert(key).inserted
      })
  }

  /// The values without repeats, in order of first appearance.
  static func distinct(_ values: [FilterValue]) -> [FilterValue] {
    var seen: Set<MembershipKey> = []
    return values.filter { seen.insert(MembershipKey($0)).inserted }
  }
}
