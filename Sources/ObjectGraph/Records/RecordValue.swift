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

  /// Whether `type` is one of `Date`, `UUID`, `Data`, `Decimal` and `URL`,
  /// which ``foundationValue(_:from:)`` reads.
  ///
  /// Metatypes compare by identity, cheaply, and no `T?` is formed: an
  /// optional of a type known only at run time costs a metadata lookup.
  @inline(__always)
  static func isFoundationType<T>(_ type: T.Type) -> Bool {
    T.self == Date.self || T.self == UUID.self || T.self == Data.self || T.self == Decimal.self
      || T.self == URL.self
  }

  /// The Foundation value of `type` that `value` stands for.
  ///
  /// - Precondition: ``isFoundationType(_:)`` holds for `type`.
  /// - Throws: The failure's reason, without its place, when `value` cannot
  ///   be read as `type`.
  static func foundationValue<T>(_ type: T.Type, from value: FilterValue) throws(Mismatch) -> T {
    // Once `T` is known to be the type, the value is reinterpreted as it
    // (the same type, so the same layout) rather than cast.
    if T.self == Date.self {
      guard case .date(let seconds) = value else { throw mismatch(value, T.self) }
      return unsafeBitCast(Date(timeIntervalSinceReferenceDate: seconds), to: T.self)
    }
    if T.self == UUID.self {
      guard case .uuid(let bits) = value else { throw mismatch(value, T.self) }
      return unsafeBitCast(UUID(bits: bits), to: T.self)
    }
    if T.self == Data.self {
      guard case .data(let bytes) = value else { throw mismatch(value, T.self) }
      return unsafeBitCast(Data(bytes), to: T.self)
    }
    if T.self == URL.self {
      guard case .string(let text) = value else { throw mismatch(value, T.self) }
      guard let url = URL(string: text) else { throw Mismatch("the string \"\(text)\" is not a URL") }
      return unsafeBitCast(url, to: T.self)
    }
    precondition(T.self == Decimal.self, "\(T.self) is not a Foundation type a record reads")
    switch value {
    case .int(let number): return unsafeBitCast(Decimal(number), to: T.self)
    case .double(let number) where number.isFinite: return unsafeBitCast(Decimal(number), to: T.self)
    case .double(let number): throw Mismatch("the double \(number) cannot be read as Decimal")
    default: throw mismatch(value, T.self)
    }
  }

  /// `a string cannot be read as Int`.
  @inline(never)
  static func mismatch<T>(_ value: FilterValue, _ type: T.Type) -> Mismatch {
    Mismatch("\(describe(value)) cannot be read as \(T.self)")
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
  @inline(__always)
  static func integer<T: FixedWidthInteger>(_ type: T.Type, from value: FilterValue) throws(Mismatch) -> T {
    guard case .int(let number) = value else { throw mismatch(value, T.self) }
    guard let fitted = T(exactly: number) else { throw Mismatch("the integer \(number) does not fit \(T.self)") }
    return fitted
  }

  /// A double read from a double value, or from an integer value it holds
  /// exactly (a whole `Double` is written back to an integer attribute as
  /// the integer, so a rounded one would change it).
  @inline(__always)
  static func double<T>(from value: FilterValue, as type: T.Type) throws(Mismatch) -> Double {
    switch value {
    case .double(let number): return number
    case .int(let number):
      guard let exact = Double(exactly: number) else {
        throw Mismatch("the integer \(number) does not fit \(T.self) exactly")
      }
      return exact
    default: throw mismatch(value, T.self)
    }
  }

  /// A float read from a double or integer value, refused when the value
  /// is beyond `Float`'s range (rather than read as an infinity).
  @inline(__always)
  static func float(from value: FilterValue) throws(Mismatch) -> Float {
    if case .int(let number) = value, Float(exactly: number) == nil {
      throw Mismatch("the integer \(number) does not fit Float exactly")
    }
    let number = try double(from: value, as: Float.self)
    let float = Float(number)
    guard float.isFinite || !number.isFinite else { throw Mismatch("the number \(number) does not fit Float") }
    return float
  }

  /// The double a `Float` is written as: the one nearest its shortest
  /// decimal form (`0.1` for `Float(0.1)`, not `0.10000000149011612`), so
  /// that a double read into a `Float` and written back unchanged is the
  /// value it was when it is the double nearest a `Float`'s shortest
  /// decimal form, as decimal values and the values this writes are.
  static func double(writing value: Float) -> Double {
    Double(value.description) ?? Double(value)
  }

  /// A Boolean read from a Boolean value.
  @inline(__always)
  static func bool(from value: FilterValue) throws(Mismatch) -> Bool {
    guard case .bool(let flag) = value else { throw mismatch(value, Bool.self) }
    return flag
  }

  /// A string read from a string value.
  @inline(__always)
  static func string(from value: FilterValue) throws(Mismatch) -> String {
    guard case .string(let text) = value else { throw mismatch(value, String.self) }
    return text
  }

  /// Why a value and a Swift type do not fit, without the place.
  struct Mismatch: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
  }
}
