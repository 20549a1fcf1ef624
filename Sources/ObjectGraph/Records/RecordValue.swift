import Foundation
import PredicateDSL

/// The conversions between an attribute's stored value and the Swift types
/// a record may declare, shared by the record decoder and encoder.
///
/// Attribute types map to Swift types so: integer to every fixed-width
/// integer (when the value fits) and `Decimal`; double to `Double`,
/// `Float` and `Decimal`; boolean to `Bool`; string to `String` and `URL`;
/// date to `Date`; uuid to `UUID`; data to `Data`. A `RawRepresentable`
/// enum reads and writes its raw value.
enum RecordValue {
  /// `an integer`, `a string`, `nil`: what a stored value is, for messages.
  static func describe(_ value: FilterValue) -> String {
    switch value {
    case .null: "nil"
    case .bool: "a Boolean"
    case .int: "an integer"
    case .double: "a double"
    case .string: "a string"
    case .date: "a date"
    case .uuid: "a UUID"
    case .data: "binary data"
    case .array: "an array"
    case .set: "a set"
    case .record: "a record"
    }
  }

  /// The Foundation value of `type` that `value` stands for; nil when
  /// `type` is none of `Date`, `UUID`, `Data`, `Decimal` and `URL`.
  ///
  /// - Throws: The failure's reason, without its place, when `type` is one
  ///   of them but `value` cannot be read as it.
  static func foundationValue<T>(_ type: T.Type, from value: FilterValue) throws(Mismatch) -> T? {
    func mismatch() -> Mismatch { Mismatch("\(describe(value)) cannot be read as \(T.self)") }
    switch type {
    case is Date.Type:
      guard case .date(let seconds) = value else { throw mismatch() }
      return Date(timeIntervalSinceReferenceDate: seconds) as? T
    case is UUID.Type:
      guard case .uuid(let bits) = value else { throw mismatch() }
      return UUID(bits: bits) as? T
    case is Data.Type:
      guard case .data(let bytes) = value else { throw mismatch() }
      return Data(bytes) as? T
    case is Decimal.Type:
      switch value {
      case .int(let number): return Decimal(number) as? T
      case .double(let number) where number.isFinite: return Decimal(number) as? T
      case .double(let number): throw Mismatch("the double \(number) cannot be read as Decimal")
      default: throw mismatch()
      }
    case is URL.Type:
      guard case .string(let text) = value else { throw mismatch() }
      guard let url = URL(string: text) else { throw Mismatch("the string \"\(text)\" is not a URL") }
      return url as? T
    default:
      return nil
    }
  }

  /// The stored value of a Foundation value; nil when `value` is none of
  /// `Date`, `UUID`, `Data`, `Decimal` and `URL`. A `Decimal` is stored as
  /// an integer when `type` is integer and it is whole, else as a double.
  static func storedValue(of value: Any, for type: AttributeType?) -> FilterValue? {
    switch value {
    case let date as Date: return .date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    case let uuid as UUID: return .uuid(UInt128(uuid: uuid))
    case let data as Data: return .data(Array(data))
    case let url as URL: return .string(url.absoluteString)
    case let decimal as Decimal:
      if type == .integer, let whole = Int64(exactly: NSDecimalNumber(decimal: decimal)) { return .int(whole) }
      return .double(NSDecimalNumber(decimal: decimal).doubleValue)
    default: return nil
    }
  }

  /// A fixed-width integer read from an integer value.
  static func integer<T: FixedWidthInteger>(_ type: T.Type, from value: FilterValue) throws(Mismatch) -> T {
    guard case .int(let number) = value else { throw Mismatch("\(describe(value)) cannot be read as \(T.self)") }
    guard let fitted = T(exactly: number) else { throw Mismatch("the integer \(number) does not fit \(T.self)") }
    return fitted
  }

  /// A double read from a double or integer value.
  static func double(from value: FilterValue, as name: String) throws(Mismatch) -> Double {
    switch value {
    case .double(let number): return number
    case .int(let number): return Double(number)
    default: throw Mismatch("\(describe(value)) cannot be read as \(name)")
    }
  }

  /// Why a value and a Swift type do not fit, without the place.
  struct Mismatch: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
  }
}
