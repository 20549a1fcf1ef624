import PredicateDSL

/// A listed object's first two sort values as two unsigned integers that
/// order as the values do, so that most comparisons of a list read two
/// words stored in the list itself, and never a value's storage.
///
/// Each word holds one sort key's value: in bits 63 to 1 its encoding
/// (``encode(_:)``), complemented for a descending key, so that for either
/// direction a smaller encoding means an earlier object; bit 0 is set when
/// the encoding is not exact. The encoding is monotone: a smaller encoding
/// always means a smaller value. Equal encodings mean equal values only
/// when both are exact; otherwise the values themselves decide
/// (``ListOrder`` compares them then), which happens for strings longer
/// than 7 bytes that share their first 7, numbers that agree in all but
/// their last 4 bits, and values of kinds without an encoding.
struct ListSortKey: Sendable {
  /// The first sort key's word.
  var first: UInt64
  /// The second sort key's word; 0 for a list with one sort key.
  var second: UInt64

  /// The word of `value` for a key sorted in `ascending` order or not.
  static func word(_ value: FilterValue, ascending: Bool) -> UInt64 {
    let (encoding, isExact) = encode(value)
    let directed = ascending ? encoding : ~encoding & (1 << 63 - 1)
    return directed << 1 | (isExact ? 0 : 1)
  }

  /// The order of two words of one key: -1, 0 or 1, or nil when their
  /// encodings tie without both being exact (the values decide).
  @inline(__always)
  static func order(_ x: UInt64, _ y: UInt64) -> Int? {
    let (a, b) = (x >> 1, y >> 1)
    if a != b { return a < b ? -1 : 1 }
    return (x | y) & 1 == 0 ? 0 : nil
  }

  /// Whether the object of `x` comes before the object of `y` when their
  /// words decide it; nil when they tie (the values, or the identifiers,
  /// decide).
  @inline(__always)
  static func isBefore(_ x: ListSortKey, _ y: ListSortKey) -> Bool? {
    // Two words whose encodings (bits 63 to 1) differ order as the words.
    if (x.first ^ y.first) >> 1 != 0 { return x.first < y.first }
    // Past a first word that ties exactly, the second decides the same way.
    if (x.first | y.first) & 1 == 0 && (x.second ^ y.second) >> 1 != 0 { return x.second < y.second }
    return nil
  }

  /// Encodes `value` in 63 bits, and whether the encoding is exact.
  ///
  /// Bits 62 to 60 are the kind, in the order ``ListOrder/order(_:_:)``
  /// gives the kinds: nil, numbers (booleans as 0 and 1), NaN, strings,
  /// dates, NaN dates, then every other kind. The other 60 bits order the
  /// values of a kind:
  /// - a number or a date: the top 60 bits of its double's order-preserving
  ///   bit pattern (an integer as the nearest double; exact when the double
  ///   is the integer and the 4 dropped bits are zero);
  /// - a string: its first 7 UTF-8 bytes, zero-padded, then its length up
  ///   to 8 (exact for at most 7 bytes): byte order, then the shorter first,
  ///   as ``ListOrder/order(_:_:)`` orders strings.
  static func encode(_ value: FilterValue) -> (word: UInt64, isExact: Bool) {
    switch value {
    case .null:
      return (0, true)
    case .bool(let flag):
      return number(flag ? 1 : 0, isRepresentable: true)
    case .int(let integer):
      let double = Double(integer)
      // `Int64(exactly:)` rejects 2⁶³, the double nearest to Int64.max.
      return number(double, isRepresentable: Int64(exactly: double) == integer)
    case .double(let double) where double.isNaN:
      return (kind(2), true)
    case .double(let double):
      return number(double, isRepresentable: true)
    case .string(let string):
      return text(string)
    case .date(let seconds) where seconds.isNaN:
      return (kind(5), true)
    case .date(let seconds):
      let (word, isExact) = number(seconds, isRepresentable: true)
      return (word & ~kind(7) | kind(4), isExact)
    default:
      return (kind(6), false)
    }
  }

  private static func kind(_ kind: UInt64) -> UInt64 { kind << 60 }

  /// A number of kind 1: its order-preserving bit pattern (the sign bit
  /// set for positive numbers, every bit flipped for negative ones), cut to
  /// 60 bits. Zero and negative zero are one value.
  private static func number(_ value: Double, isRepresentable: Bool) -> (word: UInt64, isExact: Bool) {
    let bits = (value == 0 ? 0.0 : value).bitPattern
    let ordered = bits & (1 << 63) == 0 ? bits | (1 << 63) : ~bits
    return (kind(1) | ordered >> 4, isRepresentable && ordered & 0b1111 == 0)
  }

  /// A string of kind 3: its first 7 UTF-8 bytes in bits 59 to 4, and its
  /// length up to 8 in bits 3 to 0.
  private static func text(_ string: String) -> (word: UInt64, isExact: Bool) {
    // The first 8 bytes through the UTF-8 view's iterator, which reads a
    // small string in place: `withUTF8` on a copy of the string copied it
    // (and retained a large one's storage).
    var prefix: UInt64 = 0
    var length = 0
    for byte in string.utf8 {
      if length == 7 {
        length = 8
        break
      }
      prefix |= UInt64(byte) << (8 * (6 - length))
      length += 1
    }
    return (kind(3) | prefix << 4 | UInt64(length), length <= 7)
  }
}
