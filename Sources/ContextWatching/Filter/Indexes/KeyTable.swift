import PredicateDSL

/// The watches an equality index files under each key, found by a value's
/// fingerprint: a lookup computes the fingerprint of the value in place
/// (no copy of it) and probes a ``ProbingTable``, at most three-quarters
/// full, whose buckets hold the fingerprint beside the first watches of
/// its chain: one bucket read, usually one cache line, and then the
/// watches it needs anyway.
///
/// Distinct keys with one fingerprint (two long strings whose hashes
/// collide, a number whose exact fingerprint is a short string's) share a
/// bucket and chain their watches (`KeyedWatches.collision`); a key's own
/// comparison (`IndexKey.matches`) tells them apart, without comparing
/// values when both fingerprints are exact and of one kind.
struct KeyTable {
  /// The first watches of each fingerprint's chain. 16-byte buckets: four
  /// to a cache line.
  private var chains = ProbingTable<MasterFilter.KeyedWatches>(maximumLoad: 75)

  var isEmpty: Bool { chains.isEmpty }

  /// The first watches of the chain filed under `fingerprint`.
  @inline(__always)
  private func head(_ fingerprint: UInt64) -> MasterFilter.KeyedWatches? { chains[fingerprint] }

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
    let keyed = MasterFilter.KeyedWatches(key: key)
    chains.modifyValue(for: key.fingerprint) { head in
      // Another key with this fingerprint, if any: the new one heads the chain.
      keyed.collision = head
      head = keyed
    }
    return keyed
  }

  /// Drops the (empty) watches filed under `keyed`'s key.
  mutating func remove(_ keyed: MasterFilter.KeyedWatches) {
    chains.modifyValue(for: keyed.key.fingerprint) { head in
      guard let first = head else { return }
      guard first === keyed else {
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
      // The next key of the chain heads it now; with none, the bucket frees.
      head = keyed.collision
    }
  }
}
