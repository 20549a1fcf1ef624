import PredicateDSL

/// The bounds of a string range conjunct, in the order the predicates
/// compare strings without options: by Unicode scalar values, with no
/// normalization (`PredicateDSL`'s `TextComparison.literalOrder`). UTF-8
/// byte order is that order, so bounds are kept as UTF-8 and compared a
/// byte at a time: the decisions are the evaluator's exactly, for any
/// strings (combining sequences, non-normalized text, U+10FFFF).
///
/// `name BEGINSWITH 'abc'` is the range [`abc`, `abd`): a string has the
/// prefix exactly when it is at least the prefix and below the prefix with
/// its last byte raised by one. That upper bound is a byte string, not
/// always valid UTF-8 (`…\u{10FFFF}` ends in the byte BF, raised to C0),
/// which is why bounds are bytes and not strings: no valid UTF-8 string
/// ends in FF, so the raised byte always exists.
struct TextBounds {
  /// The lower bound's UTF-8, if any.
  private(set) var lower: [UInt8]?
  /// The upper bound's UTF-8 (or the raised prefix), if any.
  private(set) var upper: [UInt8]?
  /// Whether the lower bound is included (`>=`, `BETWEEN`, `BEGINSWITH`).
  private(set) var lowerIncluded = false
  /// Whether the upper bound is included (`<=`, `BETWEEN`).
  private(set) var upperIncluded = false

  /// Bounds from string constants.
  init(lower: (text: String, inclusive: Bool)?, upper: (text: String, inclusive: Bool)?) {
    if let lower {
      self.lower = Self.bytes(of: lower.text)
      lowerIncluded = lower.inclusive
    }
    if let upper {
      self.upper = Self.bytes(of: upper.text)
      upperIncluded = upper.inclusive
    }
  }

  /// The strings that begin with `prefix`; nil for the empty prefix, which
  /// no string begins with (`BEGINSWITH ''` is false, as `-hasPrefix:@""`
  /// is), so it is left to the evaluator.
  init?(prefix: String) {
    var bytes = Self.bytes(of: prefix)
    guard let last = bytes.last else { return nil }
    lower = bytes
    lowerIncluded = true
    // UTF-8 never holds FF (nor anything above F4): the raised byte exists.
    bytes[bytes.count - 1] = last + 1
    upper = bytes
  }

  /// The bounds a string passes exactly when it passes both `self` and
  /// `other`: the greater lower bound and the lesser upper bound, the
  /// excluded one where two are equal.
  func intersection(_ other: TextBounds) -> TextBounds {
    var result = self
    if let theirs = other.lower {
      if let ours = lower {
        let order = Self.order(theirs, ours)
        if order > 0 {
          result.lower = theirs
          result.lowerIncluded = other.lowerIncluded
        } else if order == 0 {
          result.lowerIncluded = lowerIncluded && other.lowerIncluded
        }
      } else {
        result.lower = theirs
        result.lowerIncluded = other.lowerIncluded
      }
    }
    if let theirs = other.upper {
      if let ours = upper {
        let order = Self.order(theirs, ours)
        if order < 0 {
          result.upper = theirs
          result.upperIncluded = other.upperIncluded
        } else if order == 0 {
          result.upperIncluded = upperIncluded && other.upperIncluded
        }
      } else {
        result.upper = theirs
        result.upperIncluded = other.upperIncluded
      }
    }
    return result
  }

  /// Whether `value` lies within the bounds, as the predicate's
  /// comparisons see it: never for anything but a string.
  func contains(_ value: borrowing FilterValue) -> Bool {
    switch value {
    case .string(let text): Self.withUTF8(text) { contains($0) }
    default: false
    }
  }

  /// Whether a string, by its UTF-8, lies within the bounds.
  @inline(__always)
  func contains(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    if let lower {
      let order = lower.withUnsafeBufferPointer { Self.order(text, $0) }
      guard order > 0 || (order == 0 && lowerIncluded) else { return false }
    }
    if let upper {
      let order = upper.withUnsafeBufferPointer { Self.order(text, $0) }
      guard order < 0 || (order == 0 && upperIncluded) else { return false }
    }
    return true
  }

  /// -1, 0 or 1: the order of two byte strings, byte by byte, a prefix
  /// first.
  @inline(__always)
  static func order(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
    let common = min(lhs.count, rhs.count)
    var index = 0
    while index < common {
      let (a, b) = (lhs[index], rhs[index])
      if a != b { return a < b ? -1 : 1 }
      index += 1
    }
    return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
  }

  /// The first eight bytes, big-endian, zero-padded: heads order as their
  /// bytes do, except that equal heads leave the order to the bytes (a
  /// string shorter than eight bytes and the same with NUL bytes after it
  /// share a head).
  @inline(__always)
  static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var head: UInt64 = 0
    for index in 0..<8 { head = head << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    return head
  }

  /// The head of a byte array.
  static func head(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBufferPointer { head($0) } }

  /// The order of two byte arrays.
  static func order(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
    lhs.withUnsafeBufferPointer { a in rhs.withUnsafeBufferPointer { b in order(a, b) } }
  }

  /// A string's UTF-8, copied in one move from a native string's storage
  /// (`Array(text.utf8)` copies byte by byte).
  static func bytes(of text: String) -> [UInt8] {
    withUTF8(text) { Array($0) }
  }

  /// Calls `body` with a string's UTF-8, without copying a native string.
  @inline(__always)
  static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = text
    return copy.withUTF8(body)
  }
}
