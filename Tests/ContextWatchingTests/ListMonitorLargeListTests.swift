// A list monitor of more objects than `ListState.touchThreshold`, whose
// saves first load the leaves their searches will read, against a fresh
// fetch after every save. Seeded; CONTEXTWATCHER_SEED replays.

import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@testable import ContextWatching

@Suite("List monitor: a list larger than the caches")
struct ListMonitorLargeListTests {
  /// Sectioned by city; a window deep in the list, where the searches
  /// that start in a leaf meet the window's bystanders; names first,
  /// descending (many share a prefix longer than a sort word holds, so
  /// the values decide), where a change of age alone keeps the name's
  /// word.
  static let configurations = [
    ListConfiguration(
      predicate: "age != 7", sortKeys: [("city", true), ("age", false)], sectionKey: "city", limit: nil),
    ListConfiguration(
      predicate: "age != 7", sortKeys: [("age", true), ("name", true)], sectionKey: nil, limit: 40,
      offset: ListState.touchThreshold - 400),
    ListConfiguration(predicate: nil, sortKeys: [("name", false), ("age", true)], sectionKey: nil, limit: nil),
  ]

  /// A large list's memory is mostly its leaves' elements: each is the
  /// object's snapshot and its two sort words, and nothing else (the
  /// values an order reads through relationships are kept apart, only for
  /// such orders). docs/benchmarks.md holds the bytes per listed object.
  @Test func aListedObjectIsItsSnapshotAndTwoSortWords() {
    #expect(
      MemoryLayout<ListedObject>.stride
        == MemoryLayout<ObjectSnapshot>.stride + MemoryLayout<ListSortKey>.stride)
    #expect(MemoryLayout<ListSortKey>.stride == 2 * MemoryLayout<UInt64>.stride)
  }

  @Test(arguments: configurations.indices)
  func everyDeliveryTurnsTheOldListIntoTheNewOneAndEqualsAFreshFetch(_ index: Int) throws {
    let configuration = Self.configurations[index]
    let seed = SeededGenerator.seed(default: 0x1A46 &+ UInt64(index))
    var writes = RandomWrites(random: SeededGenerator(seed: seed))
    let context = WatcherFixtures.context()
    try context.performAndWait { context in
      for _ in 0..<(ListState.touchThreshold + 500) {
        _ = try context.insert(
          "Person", values: ["name": .string(writes.name()), "age": writes.age(), "city": writes.city()])
      }
      _ = try context.save()
    }
    let monitor = try ListMonitor(context: context, request: configuration.request, scheduler: .immediate)
    // The list holds every matching object, the window's and the others.
    let matching = try context.performAndWait { context in
      try context.fetch("Person", where: configuration.predicate ?? "TRUEPREDICATE").count
    }
    #expect(matching > ListState.touchThreshold)
    #expect(monitor.count == min(configuration.limit ?? .max, matching - configuration.offset))
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    for save in 0..<12 {
      // Ten writes: new ages and cities move people, names update them in
      // place, an age of 7 takes one out, inserts and deletes.
      try context.performAndWait { context in
        let people = try context.objects(of: "Person")
        for _ in 0..<10 {
          let person = people.randomElement(using: &writes.random)!
          guard !person.isDeleted else { continue }
          switch Int.random(in: 0..<6, using: &writes.random) {
          case 0, 1: try person.setValue(writes.age(), forKey: "age")
          case 2: try person.setValue(writes.city(), forKey: "city")
          case 3: try person.setValue(.string(writes.name()), forKey: "name")
          case 4:
            _ = try context.insert(
              "Person", values: ["name": .string(writes.name()), "age": writes.age(), "city": writes.city()])
          default: try context.delete(person)
          }
        }
        _ = try context.save()
      }
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      let updates = recorder.take()
      #expect(updates.count <= 1)
      guard let update = updates.first else {
        #expect(previous == expected, "save \(save), seed \(seed), \(configuration): no delivery")
        continue
      }
      let now = ListPicture(update.content)
      #expect(previous.applying(update.changes) == now, "save \(save), seed \(seed), \(configuration)")
      #expect(now == expected, "save \(save), seed \(seed), \(configuration)")
      ListMonitorRandomTests.checkShape(update.changes)
      if now != expected { break }
      previous = now
    }
    withExtendedLifetime(token) {}
  }
}
