/// The stable identity of an object in an ``ObjectContext``.
///
/// Identifiers are unique in the process: two contexts never hand out the
/// same one, so the change values of several contexts can be merged. They
/// increase in insertion order.
public struct ObjectID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// The identifier's number.
  public let rawValue: UInt64

  /// Creates an identifier from its number, as read back from an encoding.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// Orders identifiers by number, which is insertion order.
  public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `#42`.
  public var description: String { "#\(rawValue)" }

  /// Reads an identifier encoded as its number.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(UInt64.self)
  }

  /// Writes the identifier as its number.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
