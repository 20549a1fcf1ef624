// The registries of observers (through package access): removal does not
// scan the registrations, and delivery keeps registration order.

import Foundation
import PredicateDSL
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Object graph: registration list")
struct RegistrationListTests {
  /// One removal among 100,000 registrations looks at no more entries
  /// than a binary search does (17), where a scan looks at all of them.
  @Test func oneRemovalLooksAtLogarithmicallyManyEntries() {
    var list = RegistrationList<Int>()
    let ids = (0..<100_000).map { list.append($0) }
    #expect(list.remove(ids[73_123]) == 73_123)
    #expect(list.removalSteps <= 17)
    #expect(list.count == 99_999)
    #expect(list[ids[73_123]] == nil)
    #expect(list[ids[73_124]] == 73_124)
  }

  /// Releasing every one of 40,000 registrations, oldest first, newest
  /// first, or shuffled, looks at O(n log n) entries in all: at most
  /// 18 per registration here, against 20,000 on average for a scan.
  @Test(arguments: ["oldest first", "newest first", "shuffled"])
  func releasingEveryRegistrationCostsNLogN(order: String) {
    let count = 40_000
    var list = RegistrationList<Int>()
    var ids = (0..<count).map { list.append($0) }
    switch order {
    case "newest first": ids.reverse()
    case "shuffled":
      var generator = SeededGenerator(seed: 40)
      ids.shuffle(using: &generator)
    default: break
    }
    for id in ids { list.remove(id) }
    #expect(list.isEmpty)
    #expect(list.removalSteps <= 18 * count, "\(list.removalSteps) steps for \(count) removals")
  }

  @Test func iterationKeepsRegistrationOrderAcrossRemovalsAndCompactions() {
    var list = RegistrationList<Int>()
    var ids = (0..<1_000).map { list.append($0) }
    var expected = Array(0..<1_000)
    var generator = SeededGenerator(seed: 7)
    for round in 0..<900 {
      let position = Int.random(in: 0..<ids.count, using: &generator)
      list.remove(ids.remove(at: position))
      expected.remove(at: position)
      if round % 3 == 0 {
        ids.append(list.append(1_000 + round))
        expected.append(1_000 + round)
      }
      #expect(list.count == expected.count)
    }
    #expect(list.map { $0 } == expected)
    var visited: [Int] = []
    list.forEach { visited.append($0) }
    #expect(visited == expected)
    list.removeAll { $0 % 2 == 0 }
    #expect(list.map { $0 } == expected.filter { $0 % 2 != 0 })
  }

  @Test func removingTwiceOrAnUnknownIdentifierChangesNothing() {
    var list = RegistrationList<String>()
    let a = list.append("a")
    let b = list.append("b")
    #expect(list.remove(a) == "a")
    #expect(list.remove(a) == nil)
    #expect(list.remove(99) == nil)
    #expect(list.map { $0 } == ["b"])
    #expect(list.remove(b) == "b")
    #expect(list.isEmpty)
    #expect(list.append("c") > b)
  }

  /// A context's save observers hear each save in registration order,
  /// after thousands of others were registered and released around them.
  @Test func saveObserversHearSavesInRegistrationOrderAfterReleases() throws {
    let context = Fixtures.context()
    let heard = LockedState<[Int]>([])
    var tokens: [SaveObserverToken?] = (0..<3_000).map { index in
      context.addSaveObserver { _ in heard.withLock { $0.append(index) } }
    }
    for index in tokens.indices where index % 7 != 0 { tokens[index] = nil }
    tokens[14]?.cancel()
    try context.performAndWait { context in
      _ = try context.insert("Person", values: ["name": "Ann"])
      try context.save()
    }
    #expect(heard.withLock { $0 } == Array(stride(from: 0, to: 3_000, by: 7)).filter { $0 != 14 })
    withExtendedLifetime(tokens) {}
  }
}
