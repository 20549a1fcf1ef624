/// A value that a predicate reads or compares: the constants of a parsed
/// predicate, the arguments substituted for `%@`, and the values of objects.
///
/// `FilterValue` is a plain, `Sendable` value type with no Foundation types in
/// it, so it crosses queues and modules freely. Dates are seconds since
/// Foundation's reference date (2001-01-01T00:00:00Z), UUIDs are their 128
/// bits, binary data is bytes.
///
/// ```swift
/// let arguments: [FilterValue] = ["Alice", 30, .date(secondsSinceReferenceDate: 0)]
/// let syntax = try PredicateParser.parse(
///   "name == %@ AND age > %d AND created > %@", arguments: arguments)
/// ```
///
/// Equality and hashing are *structural*: `.int(1)` and `.double(1.0)` are
/// different values here, because they print differently. Comparison with
/// Apple's semantics (numbers by value, booleans as 1 and 0) belongs to
/// evaluation, not to this type.
public enum FilterValue: Hashable, Sendable {
  /// No value: the `nil` / `NULL` literal, or a missing key.
  case null
  /// A Boolean. Predicates compare it as the number 1 or 0, as `NSNumber` does.
  case bool(Bool)
  /// A 64-bit integer, kept exact.
  case int(Int64)
  /// A double-precision floating-point number. Never NaN in a parsed
  /// predicate: a NaN argument is rejected by the parser.
  case double(Double)
  /// A string.
  case string(String)
  /// A point in time, as seconds since 2001-01-01T00:00:00Z.
  case date(secondsSinceReferenceDate: Double)
  /// A UUID, as its 128 bits in big-endian order (the first byte of the
  /// textual form is the most significant). Stored out of line, so that
  /// the enum keeps 8-byte alignment: with a 16-byte-aligned `UInt128`
  /// inline, every value (and every box or array holding one) would be
  /// 16-byte aligned, and allocated through `posix_memalign`.
  indirect case uuid(UInt128)
  /// Binary data.
  case data([UInt8])
  /// An ordered collection.
  case array([FilterValue])
  /// An unordered collection of distinct values.
  case set(Set<FilterValue>)
  /// A key-value record, read through key paths (a dictionary).
  case record([String: FilterValue])
}

extension FilterValue {
  /// A short name of the value's type, as error messages print it:
  /// `"string"`, `"integer"`, `"array"`.
  public var typeName: String {
    switch self {
    case .null: "nil"
    case .bool: "boolean"
    case .int: "integer"
    case .double: "double"
    case .string: "string"
    case .date: "date"
    case .uuid: "UUID"
    case .data: "data"
    case .array: "array"
    case .set: "set"
    case .record: "record"
    }
  }

  /// Whether the value is `.null`.
  public var isNull: Bool {
    if case .null = self { true } else { false }
  }
}

extension FilterValue: ExpressibleByNilLiteral {
  /// Creates `.null`.
  public init(nilLiteral: ()) { self = .null }
}

extension FilterValue: ExpressibleByBooleanLiteral {
  /// Creates `.bool(value)`.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension FilterValue: ExpressibleByIntegerLiteral {
  /// Creates `.int(value)`.
  public init(integerLiteral value: Int64) { self = .int(value) }
}

extension FilterValue: ExpressibleByFloatLiteral {
  /// Creates `.double(value)`.
  public init(floatLiteral value: Double) { self = .double(value) }
}

extension FilterValue: ExpressibleByStringLiteral {
  /// Creates `.string(value)`.
  public init(stringLiteral value: String) { self = .string(value) }
}

extension FilterValue: ExpressibleByArrayLiteral {
  /// Creates `.array(elements)`.
  public init(arrayLiteral elements: FilterValue...) { self = .array(elements) }
}

extension FilterValue: ExpressibleByDictionaryLiteral {
  /// Creates `.record` from key-value pairs; a later duplicate key wins.
  public init(dictionaryLiteral elements: (String, FilterValue)...) {
    self = .record(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
