import PredicateDSL

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
