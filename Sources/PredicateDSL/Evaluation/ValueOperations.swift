internal import Foundation

// The operations of expressions on values, as pure functions: the compiler
// calls them at compile time to fold constants and captures them in
// evaluators otherwise. Each throws a `ValueFault` where Apple raises.

extension FilterValue {
  /// Key-value coding's `valueForKey:`: a record's entry (nil when
  /// missing), mapped over the elements of a collection; `self` is the
  /// value itself and a string's `length` its length in UTF-16 units, as
  /// `NSString`'s; nil on anything else.
  package func value(forKey key: String) -> FilterValue {
    switch self {
    case .record(let record): record[key] ?? .null
    case .array(let elements): .array(elements.map { $0.value(forKey: key) })
    case .set(let elements): .set(Set(elements.map { $0.value(forKey: key) }))
    case .string(let text) where key == "length": .int(Int64(text.utf16.count))
    default: key == "self" ? self : .null
    }
  }

  /// Applies the rest of a key path: keys, and the collection operators
  /// `@count`, `@sum`, `@avg`, `@min`, `@max` and the union operators, which
  /// apply the components after them to each element.
  package func applying(_ components: ArraySlice<String>) throws(ValueFault) -> FilterValue {
    var value = self
    var index = components.startIndex
    while index < components.endIndex {
      let component = components[index]
      index += 1
      if component.hasPrefix("@") {
        return try value.applyingCollectionOperator(component.dropFirst(), then: components[index...])
      }
      value = value.value(forKey: component)
    }
    return value
  }

  private func applyingCollectionOperator(
    _ name: Substring, then rest: ArraySlice<String>
  ) throws(ValueFault) -> FilterValue {
    if case .null = self { return .null }
    guard let elements = collectionElements else {
      throw ValueFault(.notACollection, "@\(name) needs a collection, found \(typeName) \(shortDescription)")
    }
    if name == "count" {
      return try FilterValue.int(Int64(elements.count)).applying(rest)
    }
    var values: [FilterValue] = []
    values.reserveCapacity(elements.count)
    for element in elements { values.append(try element.applying(rest)) }
    switch name {
    case "sum": return try Aggregates.sum(values)
    case "avg": return try Aggregates.average(values)
    case "min": return try Aggregates.extreme(values, keepingSmaller: true)
    case "max": return try Aggregates.extreme(values, keepingSmaller: false)
    case "unionOfObjects": return .array(values.filter { !$0.isNull })
    case "distinctUnionOfObjects": return .array(Aggregates.distinct(values.filter { !$0.isNull }))
    case "unionOfArrays", "distinctUnionOfArrays", "distinctUnionOfSets":
      var flattened: [FilterValue] = []
      for value in values where !value.isNull {
        guard let inner = value.collectionElements else {
          throw ValueFault(.notACollection, "@\(name) needs collections of collections, found \(value.typeName)")
        }
        flattened += inner
      }
      if name == "unionOfArrays" { return .array(flattened) }
      return name == "distinctUnionOfSets" ? .set(Set(flattened)) : .array(Aggregates.distinct(flattened))
    default:
      throw ValueFault(.typeMismatch, "unknown collection operator @\(name)")
    }
  }
}

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

/// Arithmetic with predicate semantics: integers stay exact and fall back to
/// doubles on overflow, integer division truncates, dates move by seconds.
package enum Arithmetic {
  static func add(_ lhs: NumericValue, _ rhs: NumericValue) -> NumericValue {
    if case .int(let a) = lhs, case .int(let b) = rhs {
      let (sum, overflow) = a.addingReportingOverflow(b)
      if !overflow { return .int(sum) }
    }
    return .double(lhs.doubleValue + rhs.doubleValue)
  }

  /// `lhs <operation> rhs`; nil when either side is nil.
  package static func apply(
    _ operation: ExpressionSyntax.ArithmeticOperator, _ lhs: FilterValue, _ rhs: FilterValue
  ) throws(ValueFault) -> FilterValue {
    if lhs.isNull || rhs.isNull { return .null }
    switch (operation, lhs, rhs) {
    case (.add, .date(let date), _):
      if let seconds = NumericValue(rhs) { return .date(secondsSinceReferenceDate: date + seconds.doubleValue) }
    case (.add, _, .date(let date)):
      if let seconds = NumericValue(lhs) { return .date(secondsSinceReferenceDate: date + seconds.doubleValue) }
    case (.subtract, .date(let date), .date(let other)):
      return .double(date - other)
    case (.subtract, .date(let date), _):
      if let seconds = NumericValue(rhs) { return .date(secondsSinceReferenceDate: date - seconds.doubleValue) }
    default:
      break
    }
    guard let a = NumericValue(lhs), let b = NumericValue(rhs) else {
      throw .typeMismatch(
        "cannot apply '\(operation.text)' to \(lhs.typeName) \(lhs.shortDescription) and \(rhs.typeName) \(rhs.shortDescription)"
      )
    }
    return try apply(operation, a, b).value
  }

  static func apply(
    _ operation: ExpressionSyntax.ArithmeticOperator, _ a: NumericValue, _ b: NumericValue
  ) throws(ValueFault) -> NumericValue {
    if case .int(let x) = a, case .int(let y) = b {
      switch operation {
      case .add:
        return add(a, b)
      case .subtract:
        let (result, overflow) = x.subtractingReportingOverflow(y)
        if !overflow { return .int(result) }
      case .multiply:
        let (result, overflow) = x.multipliedReportingOverflow(by: y)
        if !overflow { return .int(result) }
      case .divide:
        guard y != 0 else { throw ValueFault(.divisionByZero, "integer division of \(x) by zero") }
        let (result, overflow) = x.dividedReportingOverflow(by: y)
        if !overflow { return .int(result) }
      case .power:
        if let result = exactPower(x, y) { return .int(result) }
      case .bitwiseAnd: return .int(x & y)
      case .bitwiseOr: return .int(x | y)
      case .bitwiseXor: return .int(x ^ y)
      case .shiftLeft: return .int(x << y)
      case .shiftRight: return .int(x >> y)
      }
    }
    let x = a.doubleValue
    let y = b.doubleValue
    switch operation {
    case .add: return .double(x + y)
    case .subtract: return .double(x - y)
    case .multiply: return .double(x * y)
    case .divide: return .double(x / y)
    case .power: return .double(Foundation.pow(x, y))
    case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight:
      throw .typeMismatch(
        "'\(operation.text)' needs integers, found \(a.value.shortDescription) and \(b.value.shortDescription)")
    }
  }

  /// `base ** exponent` when it is an integer that fits.
  static func exactPower(_ base: Int64, _ exponent: Int64) -> Int64? {
    guard exponent >= 0 else { return nil }
    var result: Int64 = 1
    var factor = base
    var remaining = exponent
    while remaining > 0 {
      if remaining & 1 == 1 {
        let (product, overflow) = result.multipliedReportingOverflow(by: factor)
        if overflow { return nil }
        result = product
      }
      remaining >>= 1
      if remaining > 0 {
        let (square, overflow) = factor.multipliedReportingOverflow(by: factor)
        if overflow { return nil }
        factor = square
      }
    }
    return result
  }

  /// `-value`; nil stays nil.
  package static func negate(_ value: FilterValue) throws(ValueFault) -> FilterValue {
    switch NumericValue(value) {
    case .int(let int)?:
      let (result, overflow) = Int64(0).subtractingReportingOverflow(int)
      return overflow ? .double(-Double(int)) : .int(result)
    case .double(let double)?:
      return .double(-double)
    case nil:
      if value.isNull { return .null }
      throw .typeMismatch("cannot negate \(value.typeName) \(value.shortDescription)")
    }
  }

  static func modulus(_ lhs: FilterValue, _ rhs: FilterValue) throws(ValueFault) -> FilterValue {
    if lhs.isNull || rhs.isNull { return .null }
    guard let a = NumericValue(lhs), let b = NumericValue(rhs) else {
      throw .typeMismatch("modulus needs numbers, found \(lhs.typeName) and \(rhs.typeName)")
    }
    if case .int(let x) = a, case .int(let y) = b {
      guard y != 0 else { throw ValueFault(.divisionByZero, "modulus of \(x) by zero") }
      return .int(y == -1 ? 0 : x % y)
    }
    return .double(a.doubleValue.truncatingRemainder(dividingBy: b.doubleValue))
  }
}

/// `CAST(value, "Class")` for the classes it converts between.
package enum Casting {
  static let supportedClasses: Set<String> = ["NSNumber", "NSString", "NSDate", "NSUUID", "NSArray", "NSSet"]

  /// The number a string casts to, the one rule for constants folded while
  /// parsing and for values cast during evaluation: surrounding spaces
  /// ignored, an integer when the text is one that fits 64 bits, otherwise
  /// a double as Swift reads it (`1e999` is infinity, as `doubleValue`
  /// gives on Apple's platforms); nil for text that is not a number.
  static func number(from text: String) -> FilterValue? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let int = Int64(trimmed) { return .int(int) }
    if let double = Double(trimmed) { return .double(double) }
    return nil
  }

  /// `CAST(value, type)`; nil stays nil.
  package static func cast(_ value: FilterValue, to type: String) throws(ValueFault) -> FilterValue {
    if value.isNull { return .null }
    func fail() -> ValueFault {
      ValueFault(.invalidCast, "cannot cast \(value.typeName) \(value.shortDescription) to \(type)")
    }
    switch (type, value) {
    case ("NSNumber", .bool(let bool)): return .int(bool ? 1 : 0)
    case ("NSNumber", .int), ("NSNumber", .double): return value
    case ("NSNumber", .date(let seconds)): return .double(seconds)
    case ("NSNumber", .string(let text)):
      guard let number = number(from: text) else { throw fail() }
      return number
    case ("NSString", .string): return value
    case ("NSString", .int(let int)): return .string(String(int))
    case ("NSString", .bool(let bool)): return .string(bool ? "1" : "0")
    case ("NSString", .double(let double)):
      if let int = Int64(exactly: double) { return .string(String(int)) }
      return .string(String(double))
    case ("NSString", .uuid(let uuid)):
      return .string(UUIDText.format(uuid))
    case ("NSDate", .date): return value
    case ("NSDate", _):
      if let seconds = NumericValue(value) { return .date(secondsSinceReferenceDate: seconds.doubleValue) }
      throw fail()
    case ("NSUUID", .uuid): return value
    case ("NSUUID", .string(let text)):
      if let uuid = UUIDText.parse(text) { return .uuid(uuid) }
      throw fail()
    case ("NSArray", _):
      if case .array = value { return value }
      if case .set(let set) = value { return .array(Array(set)) }
      throw fail()
    case ("NSSet", _):
      guard let elements = value.collectionElements else { throw fail() }
      return .set(Set(elements))
    default:
      throw fail()
    }
  }
}

/// `base[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
package enum Indexing {
  /// `base[index]`: an array element or a record entry; nil base gives nil.
  package static func element(of base: FilterValue, at index: FilterValue) throws(ValueFault) -> FilterValue {
    switch (base, index) {
    case (.null, _): return .null
    case (.array(let elements), _):
      guard case .int(let position)? = NumericValue(index) else {
        throw .typeMismatch("an array index must be an integer, found \(index.typeName) \(index.shortDescription)")
      }
      guard position >= 0, position < elements.count else {
        throw ValueFault(
          .indexOutOfRange, "index \(position) is out of range for an array of \(elements.count) elements")
      }
      return elements[Int(position)]
    case (.record(let record), .string(let key)):
      return record[key] ?? .null
    default:
      throw .typeMismatch(
        "cannot index \(base.typeName) \(base.shortDescription) with \(index.typeName) \(index.shortDescription)")
    }
  }

  /// `[FIRST]`, `[LAST]`, `[SIZE]` (or `[…]` through `element(of:at:)`).
  package static func apply(_ index: ExpressionSyntax.Subscript, to base: FilterValue) throws(ValueFault) -> FilterValue
  {
    switch (index, base) {
    case (_, .null): return .null
    case (.first, .array(let elements)): return elements.first ?? .null
    case (.last, .array(let elements)): return elements.last ?? .null
    case (.size, _):
      if case .string = base { break }
      guard let elements = base.collectionElements else { break }
      return .int(Int64(elements.count))
    default: break
    }
    throw .typeMismatch("cannot apply \(index.text) to \(base.typeName) \(base.shortDescription)")
  }
}

extension ExpressionSyntax.Subscript {
  /// The subscript as written in error messages: `[FIRST]`, `[SIZE]`, `[…]`.
  var text: String {
    switch self {
    case .first: "[FIRST]"
    case .last: "[LAST]"
    case .size: "[SIZE]"
    case .at: "[…]"
    }
  }
}
