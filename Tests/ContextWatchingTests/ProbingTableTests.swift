// The watcher's and the list monitor's hash table (through @testable
// import): random insertions, replacements and removals give the same
// answers as a `Dictionary`, including removals in the middle of probe runs
// that wrap around the end of the buckets.

import TestSupport
import Testing

@testable import ContextWatching

@Suite("Probing table")
struct ProbingTableTests {
  @Test("answers as a dictionary does", arguments: [(1, 75), (2, 80), (3, 90)])
  func matchesDictionary(seed: UInt64, maximumLoad: Int) {
    var random = SeededGenerator(seed: seed)
    var table = ProbingTable<Int>(maximumLoad: maximumLoad)
    var reference: [UInt64: Int] = [:]
    // Few distinct keys, so that lookups, replacements and removals of
    // present and absent keys all happen often; the range widens so that
    // the table grows through several sizes.
    for step in 0..<20_000 {
      let key = UInt64.random(in: 0...UInt64(64 + step / 10), using: &random)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        table.updateValue(step, for: key)
        reference[key] = step
      case 5..<8:
        table.updateValue(nil, for: key)
        reference[key] = nil
      default:
        #expect(table[key] == reference[key])
      }
      #expect(table.count == reference.count)
    }
    for (key, value) in reference { #expect(table[key] == value) }
    for key in 0...UInt64(2_100) where reference[key] == nil { #expect(table[key] == nil) }
  }

  @Test("keeps colliding keys reachable after removals, across the end of the buckets")
  func collisions() {
    var table = ProbingTable<Int>(minimumCapacity: 1, maximumLoad: 80)
    // Six keys with the last bucket of eight as their home: one probe run
    // that wraps around, which removals from its middle must shift back.
    let keys = Array((UInt64(0)..<100_000).lazy.filter { table.home($0, bucketCount: 8) == 7 }.prefix(6))
    #expect(keys.count == 6)
    for (index, key) in keys.enumerated() { table.updateValue(index, for: key) }
    #expect(table.count == 6)
    table.updateValue(nil, for: keys[2])
    table.updateValue(nil, for: keys[0])
    #expect(table.count == 4)
    for (index, key) in keys.enumerated() {
      #expect(table[key] == (index == 0 || index == 2 ? nil : index))
    }
  }
}
