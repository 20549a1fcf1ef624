internal import Foundation

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
