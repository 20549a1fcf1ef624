/// The type of a stored attribute, as a schema declares it.
///
/// The object graph's schema uses these types for its attributes, and the
/// predicate compiler uses them to reject, when a predicate is compiled, a
/// comparison that could never be true or that would fail on every object:
/// `age BEGINSWITH "3"` for an integer `age`, or `name > 3` for a string.
public enum AttributeType: String, Hashable, Sendable, CaseIterable, Codable {
  /// A string.
  case string
  /// A 64-bit signed integer.
  case integer
  /// A double-precision floating-point number.
  case double
  /// A Boolean, compared as the number 1 or 0.
  case boolean
  /// A date.
  case date
  /// A UUID.
  case uuid
  /// Binary data.
  case data

  /// Whether values of the type compare as numbers: integers, doubles and
  /// Booleans.
  public var isNumeric: Bool {
    switch self {
    case .integer, .double, .boolean: true
    default: false
    }
  }

  /// Whether the object graph's sorted indexes and attribute filters order
  /// values of the type for `<`, `<=`, `>` and `>=`: integers, doubles,
  /// dates and strings. (Booleans compare as numbers in a predicate, but no
  /// index orders them.)
  @inlinable
  package var isOrdered: Bool {
    switch self {
    case .integer, .double, .date, .string: true
    default: false
    }
  }

  /// Whether a value of this type has this type: `.int(3)` is an
  /// ``integer``, and `nil` has every type (an optional value may be absent).
  public func admits(_ value: FilterValue) -> Bool {
    switch (self, value) {
    case (_, .null), (.string, .string), (.integer, .int), (.double, .double), (.boolean, .bool),
      (.date, .date), (.uuid, .uuid), (.data, .data):
      true
    default:
      false
    }
  }
}

/// What a compiler knows, before evaluation, about the value a key path reads.
///
/// A ``KeyResolver`` says it for each key path it resolves: a schema knows
/// that `age` is an integer and `employees` a to-many relationship; a
/// schema-less record knows nothing (``unknown``), and then every check waits
/// for evaluation, with Apple's semantics.
public indirect enum KeyValueType: Hashable, Sendable, CustomStringConvertible {
  /// Nothing is known: any value, or nil.
  case unknown
  /// An attribute of this type, or nil.
  case attribute(AttributeType)
  /// An ordered or unordered collection whose elements have this type.
  case collection(of: KeyValueType)
  /// A related object of this entity (a to-one relationship), or nil.
  case object(entity: String)

  /// The type as error messages name it: `"integer"`, `"collection of string"`,
  /// `"Department object"`.
  public var description: String {
    switch self {
    case .unknown: "value"
    case .attribute(let type): type.rawValue
    case .collection(let element): "collection of \(element)"
    case .object(let entity): "\(entity) object"
    }
  }
}
