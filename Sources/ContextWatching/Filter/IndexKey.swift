import PredicateDSL

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

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A word mixed with a hash table's seed by SplitMix64's finalizer.
@inline(__always)
func mixedHash(_ word: UInt64, seed: Int) -> Int {
  var z = word ^ UInt64(truncatingIfNeeded: seed)
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return Int(truncatingIfNeeded: z ^ (z >> 31))
}

/// The watches an equality index files under each key, found by a value's
/// fingerprint: a lookup computes the fingerprint of the value in place
/// (no copy of it), hashes one word, and probes an open-addressing table
/// whose buckets hold the fingerprint beside the watches, so that a lookup
/// reads one bucket, usually one cache line, and then the watches it
/// needs anyway. (`Dictionary` keeps keys and values in separate arrays: a
/// lookup in a table too large for the caches missed twice.)
///
/// Distinct keys with one fingerprint (two long strings whose hashes
/// collide, a number whose exact fingerprint is a short string's) share a
/// bucket and chain their watches (`KeyedWatches.collision`); a key's own
/// comparison (`IndexKey.matches`) tells them apart, without comparing
/// values when both fingerprints are exact and of one kind.
///
/// Linear probing at a load of at most three quarters; removal shifts the
/// buckets after the freed one back (no tombstones), so a table that
/// watches come and go in never fills with dead buckets.
struct KeyTable {
  /// A fingerprint and the watches filed under it (the first of a chain);
  /// free when `watches` is nil. 16 bytes: four to a cache line.
  private struct Bucket {
    var fingerprint: UInt64
    var watches: MasterFilter.KeyedWatches?
  }

  /// A power of two buckets, or none before the first key.
  private var buckets: [Bucket] = []
  /// The occupied buckets (distinct fingerprints).
  private var occupied = 0
  /// The seed mixed into every fingerprint, as `Hasher` seeds
  /// `Dictionary`: which fingerprints crowd together is not known in
  /// advance. Held by each table, so that a lookup reads no global.
  private let seed = Self.processSeed

  /// This process's seed: random unless `SWIFT_DETERMINISTIC_HASHING` is
  /// set, as `Hasher`'s is.
  private static let processSeed: Int = {
    var hasher = Hasher()
    hasher.combine(0x4B45_5954_4142_4C45 as UInt64)
    return hasher.finalize()
  }()

  var isEmpty: Bool { occupied == 0 }

  /// The bucket a fingerprint starts probing at.
  @inline(__always)
  private func home(_ fingerprint: UInt64, mask: Int) -> Int {
    mixedHash(fingerprint, seed: seed) & mask
  }

  /// The position of the bucket holding `fingerprint`, or of the free one
  /// where it would go; the table must have a free bucket.
  @inline(__always)
  private func position(of fingerprint: UInt64) -> (Int, found: Bool) {
    let mask = buckets.count - 1
    var position = home(fingerprint, mask: mask)
    while buckets[position].watches != nil {
      if buckets[position].fingerprint == fingerprint { return (position, true) }
      position = (position + 1) & mask
    }
    return (position, false)
  }

  /// The first watches of the chain filed under `fingerprint`.
  @inline(__always)
  private func head(_ fingerprint: UInt64) -> MasterFilter.KeyedWatches? {
    guard !buckets.isEmpty else { return nil }
    let (position, found) = position(of: fingerprint)
    return found ? buckets[position].watches : nil
  }

  /// The watches filed under a value, read in place.
  @inline(__always)
  func watches(for value: borrowing FilterValue) -> MasterFilter.KeyedWatches? {
    let fingerprint = IndexKey.fingerprint(value)
    guard let first = head(fingerprint.0) else { return nil }
    // The common case: exact fingerprints of one kind are equal keys. (Read
    // field by field: calling the key's `matches` copied the key.)
    if fingerprint.1 != .hashed && first.key.exactness == fingerprint.1 { return first }
    return Self.chain(from: first, for: value, fingerprint: fingerprint)
  }

  /// The watches of a chain filed under `value`, past the common case.
  private static func chain(
    from first: MasterFilter.KeyedWatches, for value: borrowing FilterValue, fingerprint: (UInt64, IndexKey.Exactness)
  ) -> MasterFilter.KeyedWatches? {
    var keyed = first
    while !keyed.key.matches(value, fingerprint: fingerprint) {
      guard let next = keyed.collision else { return nil }
      keyed = next
    }
    return keyed
  }

  /// The watches filed under `key`.
  func watches(for key: IndexKey) -> MasterFilter.KeyedWatches? {
    var keyed = head(key.fingerprint)
    while let candidate = keyed, candidate.key != key { keyed = candidate.collision }
    return keyed
  }

  /// The watches filed under `key`, added empty if there are none.
  mutating func insert(_ key: IndexKey) -> MasterFilter.KeyedWatches {
    if let keyed = watches(for: key) { return keyed }
    if (occupied + 1) * 4 > buckets.count * 3 { grow() }
    let keyed = MasterFilter.KeyedWatches(key: key)
    let (position, found) = position(of: key.fingerprint)
    if found {
      // Another key with this fingerprint: the new one heads the chain.
      keyed.collision = buckets[position].watches
      buckets[position].watches = keyed
    } else {
      buckets[position] = Bucket(fingerprint: key.fingerprint, watches: keyed)
      occupied += 1
    }
    return keyed
  }

  /// Doubles the buckets (eight at first) and files every chain again.
  private mutating func grow() {
    var old = Array(repeating: Bucket(fingerprint: 0, watches: nil), count: max(8, buckets.count * 2))
    swap(&old, &buckets)
    // Each bucket moves out of the old array: iterating would copy each
    // (a retain), and dropping the array would release each again.
    while let bucket = old.popLast() {
      guard bucket.watches != nil else { continue }
      let (position, _) = position(of: bucket.fingerprint)
      buckets[position] = bucket
    }
  }

  /// Drops the (empty) watches filed under `keyed`'s key.
  mutating func remove(_ keyed: MasterFilter.KeyedWatches) {
    guard !buckets.isEmpty else { return }
    let (position, found) = position(of: keyed.key.fingerprint)
    guard found, let first = buckets[position].watches else { return }
    if first !== keyed {
      var previous = first
      while let next = previous.collision {
        if next === keyed {
          previous.collision = keyed.collision
          return
        }
        previous = next
      }
      return
    }
    if let next = keyed.collision {
      buckets[position].watches = next
      return
    }
    // Free the bucket, then move back each bucket after it that probing
    // would otherwise no longer reach: one whose home is not between the
    // hole and itself.
    let mask = buckets.count - 1
    var hole = position
    var next = (hole + 1) & mask
    while buckets[next].watches != nil {
      let home = home(buckets[next].fingerprint, mask: mask)
      if (next &- home) & mask >= (next &- hole) & mask {
        buckets[hole] = buckets[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    buckets[hole] = Bucket(fingerprint: 0, watches: nil)
    occupied -= 1
  }
}
