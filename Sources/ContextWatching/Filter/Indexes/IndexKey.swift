import PredicateDSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value as the equality index files it, with the predicates' own
/// equality (numbers by value whatever their type, strings by code units)
/// and a 64-bit fingerprint computed in this module: a lookup hashes one
/// word, and compares values only on a fingerprint match, strings by their
/// bytes.
///
/// Equal values have equal fingerprints: numbers that compare equal (`1`,
/// `1.0`, `true`) fingerprint as the same integer, and strings by their
/// UTF-8 bytes (equal code units, equal bytes).
///
/// Some fingerprints are exact, the value itself rather than a hash of it:
/// an integral number's (its integer, scrambled by a bijection) and a
/// string's of at most seven UTF-8 bytes (the bytes and their count,
/// packed). Two keys with exact fingerprints of the same kind are equal
/// exactly when their fingerprints are, so the common lookups (a short
/// name, an integer) never compare the values.
struct IndexKey: Hashable {
  let fingerprint: UInt64
  let value: FilterValue
  /// What kind of exact fingerprint this is, if any.
  let exactness: Exactness

  enum Exactness: UInt8 { case hashed, integral, shortString }

  init(_ value: FilterValue) {
    self.value = value
    (fingerprint, exactness) = Self.fingerprint(value)
  }

  static func == (lhs: IndexKey, rhs: IndexKey) -> Bool {
    guard lhs.fingerprint == rhs.fingerprint else { return false }
    if lhs.exactness == rhs.exactness && lhs.exactness != .hashed { return true }
    return valuesEqual(lhs.value, rhs.value)
  }

  /// Whether `value` is this key's value, as the index compares them;
  /// `fingerprint` is the value's.
  func matches(_ value: borrowing FilterValue, fingerprint: (UInt64, Exactness)) -> Bool {
    guard self.fingerprint == fingerprint.0 else { return false }
    if exactness == fingerprint.1 && exactness != .hashed { return true }
    return Self.valuesEqual(self.value, copy value)
  }

  private static func valuesEqual(_ a: FilterValue, _ b: FilterValue) -> Bool {
    switch (a, b) {
    case (.string(let a), .string(let b)): return bytesEqual(a, b)
    case (.int(let a), .int(let b)): return a == b
    default: return MembershipKey(a) == MembershipKey(b)
    }
  }

  func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

  /// What `Dictionary` and `Set` call to place a key: the fingerprint mixed
  /// with the table's seed by SplitMix64's finalizer, instead of the far
  /// costlier SipHash of the fingerprint. Nothing is lost:
  /// keys with equal fingerprints collide under any hash of the fingerprint.
  func _rawHashValue(seed: Int) -> Int { mixedHash(fingerprint, seed: seed) }

  /// A value's fingerprint, read in place.
  @inline(__always)
  static func fingerprint(_ value: borrowing FilterValue) -> (UInt64, Exactness) {
    switch value {
    case .null: return (0x6E75_6C6C, .hashed)
    case .bool(let flag): return (number(flag ? 1 : 0), .integral)
    case .int(let integer): return (number(integer), .integral)
    case .double(let double):
      if let integer = Int64(exactly: double) { return (number(integer), .integral) }
      return (double.bitPattern &* 0x9E37_79B9_7F4A_7C15, .hashed)
    case .string(let text): return bytes(text)
    case .date(let seconds): return ((seconds == 0 ? 0 : seconds.bitPattern) ^ 0xDA7E, .hashed)  // -0 == +0
    case .uuid(let bits): return (UInt64(truncatingIfNeeded: bits) ^ UInt64(truncatingIfNeeded: bits >> 64), .hashed)
    case .data(let data): return (UInt64(truncatingIfNeeded: data.count) ^ 0xDA7A, .hashed)
    case .array(let elements): return (UInt64(truncatingIfNeeded: elements.count) ^ 0xA77A, .hashed)
    case .set(let elements): return (UInt64(truncatingIfNeeded: elements.count) ^ 0x5E7, .hashed)
    case .record(let record): return (UInt64(truncatingIfNeeded: record.count) ^ 0x7EC, .hashed)
    }
  }

  @inline(__always)
  private static func number(_ integer: Int64) -> UInt64 { UInt64(bitPattern: integer) &* 0x9E37_79B9_7F4A_7C15 }

  /// A string of at most seven UTF-8 bytes packed with its count (exact);
  /// a longer one hashed by FNV-1a. Read in place when the string is
  /// native.
  @inline(__always)
  private static func bytes(_ text: borrowing String) -> (UInt64, Exactness) {
    func fingerprint<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> (UInt64, Exactness) {
      if bytes.count < 8 {
        var packed = UInt64(bytes.count) << 56
        var shift: UInt64 = 0
        for byte in bytes {
          packed |= UInt64(byte) << shift
          shift += 8
        }
        return (packed, .shortString)
      }
      var hash: UInt64 = 0xCBF2_9CE4_8422_2325
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
      return (hash, .hashed)
    }
    return text.utf8.withContiguousStorageIfAvailable { fingerprint($0) } ?? fingerprint(text.utf8)
  }

  /// Code-unit equality: equal UTF-8 bytes.
  private static func bytesEqual(_ a: String, _ b: String) -> Bool {
    let contiguous = a.utf8.withContiguousStorageIfAvailable { left in
      b.utf8.withContiguousStorageIfAvailable { right in
        left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
      }
    }
    return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
  }
}
