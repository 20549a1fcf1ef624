/// A position in a PostgreSQL database's write-ahead log (an LSN): where a
/// transaction committed.
///
/// Each save of a ``PostgresReplica`` carries the commit position of the
/// transaction it applied; positions grow with commit order. Printed and
/// parsed as PostgreSQL prints an LSN: `0/1504B58`.
///
/// ```swift
/// let position = try #require(PostgresPosition("0/1504B58"))
/// print(position)  // 0/1504B58
/// ```
public struct PostgresPosition: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// The log sequence number as one 64-bit number.
  public var rawValue: UInt64

  /// Creates a position from its 64-bit number.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// Parses PostgreSQL's text form, two hexadecimal halves around a slash
  /// (`0/1504B58`); nil for any other text.
  public init?(_ text: some StringProtocol) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, (1...8).contains(parts[0].count), (1...8).contains(parts[1].count),
      let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16)
    else { return nil }
    rawValue = high << 32 | low
  }

  /// `0/1504B58`, as PostgreSQL prints it.
  public var description: String {
    String(rawValue >> 32, radix: 16, uppercase: true) + "/"
      + String(rawValue & 0xFFFF_FFFF, radix: 16, uppercase: true)
  }

  /// Orders positions as the log does.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// Reads the text form, as `"0/1504B58"`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let position = Self(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not a log position like 0/1504B58")
    }
    self = position
  }

  /// Writes the text form, as `"0/1504B58"`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
