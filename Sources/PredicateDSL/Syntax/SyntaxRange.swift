/// Where a syntax node came from: a range of UTF-8 offsets into the text that
/// was parsed.
///
/// Nodes built in code rather than parsed carry ``SyntaxRange/synthesized``.
/// Syntax equality ignores ranges, so a predicate parsed from its own
/// printout equals the original.
public struct SyntaxRange: Hashable, Sendable, CustomStringConvertible {
  // Offsets are kept in 32 bits (8 bytes, not 16, in every node): with
  // `ComparisonSyntax`'s one-byte fields after its operands, a predicate
  // node takes 72 bytes, which `TextLengthTests` checks. A node's size is
  // most of a tree's memory. The parser rejects text longer than
  // `maximumOffset` bytes.
  private var storedLowerBound: UInt32
  private var storedUpperBound: UInt32

  /// The largest offset a range can hold: 4,294,967,295, one less than
  /// 4 GiB, where `Int` has 64 bits (`Int.max` where it has 32).
  /// ``PredicateParser`` rejects longer text with
  /// ``PredicateParseError/Code/textTooLong``.
  public static let maximumOffset = Int(clamping: UInt32.max)

  /// The UTF-8 offset of the node's first byte.
  ///
  /// - Precondition: when set, `0...maximumOffset`. Setting one bound does
  ///   not check it against the other: a lower bound set past the upper one
  ///   leaves the range inverted (its `count` negative) until the upper one
  ///   is set too.
  public var lowerBound: Int {
    get { Int(storedLowerBound) }
    set { storedLowerBound = Self.stored(newValue) }
  }

  /// The UTF-8 offset just past the node's last byte.
  ///
  /// - Precondition: when set, `0...maximumOffset`. As with ``lowerBound``,
  ///   the other bound is not checked.
  public var upperBound: Int {
    get { Int(storedUpperBound) }
    set { storedUpperBound = Self.stored(newValue) }
  }

  /// Creates a range from two UTF-8 offsets.
  ///
  /// - Precondition: `0 <= lowerBound <= upperBound <= maximumOffset`.
  public init(_ lowerBound: Int, _ upperBound: Int) {
    precondition(
      0 <= lowerBound && lowerBound <= upperBound && upperBound <= Self.maximumOffset,
      "SyntaxRange \(lowerBound)..<\(upperBound) is inverted or outside 0...\(Self.maximumOffset)")
    storedLowerBound = UInt32(truncatingIfNeeded: lowerBound)
    storedUpperBound = UInt32(truncatingIfNeeded: upperBound)
  }

  private init(storedLowerBound: UInt32, storedUpperBound: UInt32) {
    self.storedLowerBound = storedLowerBound
    self.storedUpperBound = storedUpperBound
  }

  private static func stored(_ offset: Int) -> UInt32 {
    guard offset <= maximumOffset, let stored = UInt32(exactly: offset) else {
      preconditionFailure("SyntaxRange offset \(offset) is outside 0...\(maximumOffset)")
    }
    return stored
  }

  /// The range of a node that was not parsed from text.
  public static let synthesized = SyntaxRange(0, 0)

  /// The number of UTF-8 bytes the range covers.
  public var count: Int { upperBound - lowerBound }

  /// The smallest range that covers both `self` and `other`.
  public func union(_ other: SyntaxRange) -> SyntaxRange {
    SyntaxRange(
      storedLowerBound: Swift.min(storedLowerBound, other.storedLowerBound),
      storedUpperBound: Swift.max(storedUpperBound, other.storedUpperBound))
  }

  /// `lower..<upper`, in UTF-8 offsets.
  public var description: String { "\(lowerBound)..<\(upperBound)" }
}
