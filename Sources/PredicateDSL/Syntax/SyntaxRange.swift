/// Where a syntax node came from: a range of UTF-8 offsets into the text that
/// was parsed.
///
/// Nodes built in code rather than parsed carry ``SyntaxRange/synthesized``.
/// Syntax equality ignores ranges, so a predicate parsed from its own
/// printout equals the original.
public struct SyntaxRange: Hashable, Sendable, CustomStringConvertible {
  /// The UTF-8 offset of the node's first byte.
  public var lowerBound: Int
  /// The UTF-8 offset just past the node's last byte.
  public var upperBound: Int

  /// Creates a range from two UTF-8 offsets.
  ///
  /// - Precondition: `lowerBound <= upperBound`.
  public init(_ lowerBound: Int, _ upperBound: Int) {
    precondition(lowerBound <= upperBound, "SyntaxRange \(lowerBound)..<\(upperBound) is inverted")
    self.lowerBound = lowerBound
    self.upperBound = upperBound
  }

  /// The range of a node that was not parsed from text.
  public static let synthesized = SyntaxRange(0, 0)

  /// The number of UTF-8 bytes the range covers.
  public var count: Int { upperBound - lowerBound }

  /// The smallest range that covers both `self` and `other`.
  public func union(_ other: SyntaxRange) -> SyntaxRange {
    SyntaxRange(Swift.min(lowerBound, other.lowerBound), Swift.max(upperBound, other.upperBound))
  }

  /// `lower..<upper`, in UTF-8 offsets.
  public var description: String { "\(lowerBound)..<\(upperBound)" }
}
