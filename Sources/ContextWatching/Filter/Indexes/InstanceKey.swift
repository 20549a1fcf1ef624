import ObjectGraph

/// An object identifier as the instance index files it: hashed by mixing
/// its number with the table's seed (SplitMix64's finalizer), one word,
/// instead of a SipHash of it.
struct InstanceKey: Hashable {
  let rawValue: UInt64

  init(_ objectID: ObjectID) { rawValue = objectID.rawValue }

  func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

  func _rawHashValue(seed: Int) -> Int { mixedHash(rawValue, seed: seed) }
}
