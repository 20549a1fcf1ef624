import Foundation
import ObjectGraph
public import PredicateDSL

/// The JSON conventions of `context-watch` (`eval`, `replay`, the watches
/// and lists files) and `pg-watch`: an object is a key-value record, an array an ordered
/// collection, `{"$set": [...]}` a set, `{"$date": seconds}` (or an ISO-8601
/// string) a date counted from 2001-01-01T00:00:00Z, `{"$uuid": "…"}` a
/// UUID, `{"$data": "base64"}` binary data; `true`/`false` are Booleans,
/// integers stay 64-bit integers and `null` is nil. JSON has no NaN or
/// infinity: `{"$double": "NaN"}`, `{"$double": "Infinity"}` and
/// `{"$double": "-Infinity"}` stand for them, and `{"$date": "Infinity"}`
/// and `{"$date": "-Infinity"}` for the dates PostgreSQL calls `infinity`
/// and `-infinity`.
extension JSONValue {
  /// A JSON value that does not stand for a filter value, such as
  /// `{"$set": 3}`.
  public struct ConversionError: Error, CustomStringConvertible {
    /// What is wrong, naming the tag and what it was given.
    public var description: String
  }

  /// The filter value this JSON stands for, in the conventions above.
  public func filterValue() throws(ConversionError) -> FilterValue {
    switch self {
    case .null: return .null
    case .bool(let flag): return .bool(flag)
    case .int(let number): return .int(number)
    case .double(let number): return .double(number)
    case .string(let text): return .string(text)
    case .array(let elements):
      var values: [FilterValue] = []
      values.reserveCapacity(elements.count)
      for element in elements { values.append(try element.filterValue()) }
      return .array(values)
    case .object(let members):
      if members.count == 1, let tagged = try Self.taggedValue(members[0].key, members[0].value) {
        return tagged
      }
      var record: [String: FilterValue] = [:]
      for member in members { record[member.key] = try member.value.filterValue() }
      return .record(record)
    }
  }

  private static func taggedValue(
    _ tag: String, _ payload: JSONValue
  ) throws(ConversionError)
    -> FilterValue?
  {
    switch (tag, payload) {
    case ("$set", .array(let elements)):
      var values: Set<FilterValue> = []
      for element in elements { values.insert(try element.filterValue()) }
      return .set(values)
    case ("$set", _):
      throw ConversionError(description: "\"$set\" needs an array, not \(payload.phrase)")
    case ("$date", .int(let seconds)):
      return .date(secondsSinceReferenceDate: Double(seconds))
    case ("$date", .double(let seconds)):
      return .date(secondsSinceReferenceDate: seconds)
    case ("$date", .string(let text)) where Self.nonFinite(text) != nil:
      return .date(secondsSinceReferenceDate: Self.nonFinite(text)!)
    case ("$date", .string(let text)):
      guard let date = Self.parseISO8601(text) else {
        throw ConversionError(description: "\"$date\" string \"\(text)\" is not an ISO-8601 date")
      }
      return .date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    case ("$date", _):
      throw ConversionError(
        description: "\"$date\" needs seconds since 2001-01-01 or an ISO-8601 string, not \(payload.phrase)")
    case ("$double", .string(let text)):
      guard let number = Self.nonFinite(text) else {
        throw ConversionError(
          description: "\"$double\" string \"\(text)\" is not NaN, Infinity or -Infinity (write finite numbers bare)")
      }
      return .double(number)
    case ("$double", _):
      throw ConversionError(
        description: "\"$double\" needs \"NaN\", \"Infinity\" or \"-Infinity\", not \(payload.phrase)")
    case ("$uuid", .string(let text)):
      guard let uuid = UUID(uuidString: text) else {
        throw ConversionError(description: "\"$uuid\" string \"\(text)\" is not a UUID")
      }
      return .uuid(UInt128(uuid: uuid))
    case ("$data", .string(let text)):
      guard let data = Data(base64Encoded: text) else {
        throw ConversionError(description: "\"$data\" string is not base64")
      }
      return .data(Array(data))
    case ("$uuid", _), ("$data", _):
      throw ConversionError(description: "\"\(tag)\" needs a string, not \(payload.phrase)")
    default:
      return nil
    }
  }

  /// The format arguments a file or a line gives in `field`: an array of
  /// values in the conventions above; absent or `null` gives none.
  ///
  /// - Throws: ``ConversionError`` when `field` is not an array
  ///   (`"args" is an array, not object`), or naming the element that is
  ///   not a value (`args[1]: "$set" needs an array, not number`).
  package static func formatArguments(_ value: JSONValue?, field: String) throws(ConversionError) -> [FilterValue] {
    switch value {
    case nil, .null?:
      return []
    case .array(let elements)?:
      var values: [FilterValue] = []
      values.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        do {
          values.append(try element.filterValue())
        } catch {
          throw ConversionError(description: "\(field)[\(index)]: \(error.description)")
        }
      }
      return values
    case let other?:
      throw ConversionError(description: "\"\(field)\" is an array, not \(other.phrase)")
    }
  }

  /// The number `NaN`, `Infinity` or `-Infinity` stands for; nil for any
  /// other text.
  static func nonFinite(_ text: String) -> Double? {
    switch text {
    case "NaN": .nan
    case "Infinity": .infinity
    case "-Infinity": -.infinity
    default: nil
    }
  }

  /// `NaN`, `Infinity` or `-Infinity`: the text of a number that is not
  /// finite.
  static func nonFiniteText(_ number: Double) -> String {
    number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity"
  }

  /// A date in one of the ISO-8601 forms `$date` takes: with seconds, with
  /// fractional seconds, or a day alone.
  static func parseISO8601(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withFullDate]
    return formatter.date(from: text)
  }
}

extension JSONValue {
  /// The JSON form of a value, the inverse of ``filterValue()``.
  public init(_ value: FilterValue) {
    switch value {
    case .null: self = .null
    case .bool(let flag): self = .bool(flag)
    case .int(let number): self = .int(number)
    case .double(let number) where !number.isFinite:
      self = .object([("$double", .string(Self.nonFiniteText(number)))])
    case .double(let number): self = .double(number)
    case .string(let text): self = .string(text)
    case .date(let seconds) where !seconds.isFinite:
      self = .object([("$date", .string(Self.nonFiniteText(seconds)))])
    case .date(let seconds): self = .object([("$date", .double(seconds))])
    case .uuid(let bits): self = .object([("$uuid", .string(UUID(bits: bits).uuidString))])
    case .data(let bytes): self = .object([("$data", .string(Data(bytes).base64EncodedString()))])
    case .array(let elements): self = .array(elements.map(JSONValue.init))
    case .set(let elements):
      self = .object([("$set", .array(elements.map(JSONValue.init).sorted { $0.serialized < $1.serialized }))])
    case .record(let entries):
      self = .object(entries.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) })
    }
  }
}
