import PredicateDSL

/// A value as the equality index files it: the predicates' own equality
/// key (`MembershipKey`: numbers by value, strings by code units) with a
/// 64-bit fingerprint computed in this module, so that a lookup hashes one
/// word instead of calling into the key's generic hashing, and compares the
/// keys themselves only on a fingerprint match.
///
/// Equal keys have equal fingerprints: numbers that compare equal (`1`,
/// `1.0`, `true`) fingerprint as the same integer, and strings by their
/// UTF-8 bytes (equal code units, equal bytes).
struct IndexKey: Hashable {
  let fingerprint: UInt64
  let key: MembershipKey

  init(_ value: FilterValue) {
    key = MembershipKey(value)
    fingerprint = Self.fingerprint(value)
  }

  init(_ key: MembershipKey, of value: FilterValue) {
    self.key = key
    fingerprint = Self.fingerprint(value)
  }

  static func == (lhs: IndexKey, rhs: IndexKey) -> Bool {
    lhs.fingerprint == rhs.fingerprint && lhs.key == rhs.key
  }

  func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

  private static func fingerprint(_ value: FilterValue) -> UInt64 {
    switch value {
    case .null: return 0x6E75_6C6C
    case .bool(let flag): return number(flag ? 1 : 0)
    case .int(let integer): return number(integer)
    case .double(let double):
      if let integer = Int64(exactly: double) { return number(integer) }
      return double.bitPattern &* 0x9E37_79B9_7F4A_7C15
    case .string(let text): return bytes(text)
    case .date(let seconds): return (seconds == 0 ? 0 : seconds.bitPattern) ^ 0xDA7E  // -0 == +0
    case .uuid(let bits): return UInt64(truncatingIfNeeded: bits) ^ UInt64(truncatingIfNeeded: bits >> 64)
    case .data(let data): return UInt64(truncatingIfNeeded: data.count) ^ 0xDA7A
    case .array(let elements): return UInt64(truncatingIfNeeded: elements.count) ^ 0xA77A
    case .set(let elements): return UInt64(truncatingIfNeeded: elements.count) ^ 0x5E7
    case .record(let record): return UInt64(truncatingIfNeeded: record.count) ^ 0x7EC
    }
  }

  @inline(__always)
  private static func number(_ integer: Int64) -> UInt64 { UInt64(bitPattern: integer) &* 0x9E37_79B9_7F4A_7C15 }

  /// FNV-1a over the UTF-8 bytes.
  private static func bytes(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }
}
