// The list monitor's identifier table (through @testable import): random
// insertions, replacements and removals give the same answers as a
// `Dictionary`, including removals in the middle of long probe runs.

import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@testable import ContextWatching

@Suite("List monitor: identifier table")
struct ListedValuesTests {
  @Test("answers as a dictionary does", arguments: [1, 2, 3])
  func matchesDictionary(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var table = ListedValues()
    var reference: [ObjectID: [FilterValue]] = [:]
    // Few distinct identifiers, so that lookups, replacements and removals
    // of present and absent keys all happen often; the range grows so that
    // the table grows through several sizes.
    for step in 0..<20_000 {
      let id = ObjectID(rawValue: UInt64.random(in: 0...UInt64(64 + step / 10), using: &random))
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        let values: [FilterValue] = [.int(Int64(step))]
        table.set(values, for: id)
        reference[id] = values
      case 5..<8:
        table.remove(id)
        reference[id] = nil
      default:
        #expect(table[id] == reference[id])
      }
      #expect(table.count == reference.count)
    }
    for (id, values) in reference { #expect(table[id] == values) }
    for raw in 0...UInt64(2_100) where reference[ObjectID(rawValue: raw)] == nil {
      #expect(table[ObjectID(rawValue: raw)] == nil)
    }
  }

  @Test("keeps colliding keys reachable after removals")
  func collisions() {
    // Six identifiers that share their home slot in the first table (eight
    // slots): they form one probe run, and removals from its middle must
    // shift the rest back.
    let ids = Array((UInt64(0)..<10_000).lazy.filter { ListedValues.home($0, capacity: 8) == 5 }.prefix(6))
      .map(ObjectID.init(rawValue:))
    #expect(ids.count == 6)
    var table = ListedValues()
    for (index, id) in ids.enumerated() { table.set([.int(Int64(index))], for: id) }
    table.remove(ids[2])
    table.remove(ids[0])
    #expect(table.count == 4)
    for (index, id) in ids.enumerated() where index != 0 && index != 2 {
      #expect(table[id] == [.int(Int64(index))])
    }
    #expect(table[ids[0]] == nil)
    #expect(table[ids[2]] == nil)
  }
}
