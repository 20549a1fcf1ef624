/// A word mixed with a hash table's seed by SplitMix64's finalizer, with its
/// published constants (as `Tests/TestSupport/SeededGenerator.swift` has them).
@inline(__always)
func mixedHash(_ word: UInt64, seed: Int) -> Int {
  var z = word ^ UInt64(truncatingIfNeeded: seed)
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return Int(truncatingIfNeeded: z ^ (z >> 31))
}
