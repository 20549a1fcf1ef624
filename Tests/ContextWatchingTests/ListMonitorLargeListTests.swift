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
      let label = "save \(save), seed \(seed), \(configuration)"
      guard Self.check(recorder.take(), previous: &previous, expected: expected, label) else { break }
    }
    withExtendedLifetime(token) {}
  }

  /// Checks a save's delivery (at most one) against the list before it
  /// and a fresh fetch after it, moving `previous` on; false once the list
  /// went wrong.
  static func check(
    _ updates: [ListMonitorUpdate], previous: inout ListPicture, expected: ListPicture, _ label: String
  ) -> Bool {
    #expect(updates.count <= 1, "\(label)")
    guard let update = updates.first else {
      #expect(previous == expected, "\(label): no delivery")
      return true
    }
    let now = ListPicture(update.content)
    #expect(previous.applying(update.changes) == now, "\(label)")
    #expect(now == expected, "\(label)")
    ListMonitorRandomTests.checkShape(update.changes)
    previous = now
    return now == expected
  }

  /// Sorted through a relationship, by department names that share more
  /// than a sort word holds (the comparisons read the values the list
  /// keeps apart): sectioned by department; descending in a window deep
  /// in the list; the department as a third key.
  static let pathConfigurations = [
    ListConfiguration(
      predicate: nil, sortKeys: [("department.name", true), ("name", true)], sectionKey: "department.name",
      limit: nil),
    ListConfiguration(
      predicate: "age != 7", sortKeys: [("department.name", false), ("name", true)], sectionKey: "department.name",
      limit: 40, offset: ListState.touchThreshold - 400),
    ListConfiguration(
      predicate: nil, sortKeys: [("age", true), ("department.name", true), ("name", true)], sectionKey: nil,
      limit: nil),
  ]

  @Test(arguments: pathConfigurations.indices)
  func aListSortedThroughARelationshipFollowsRenamesMovesAndDeletions(_ index: Int) throws {
    let configuration = Self.pathConfigurations[index]
    let seed = SeededGenerator.seed(default: 0x2B57 &+ UInt64(index))
    var writes = RandomWrites(random: SeededGenerator(seed: seed))
    let context = WatcherFixtures.context()
    let names = ["Department Dev", "Department Ops", "Department Design", "Department Sales", "Department QA"]
    try context.performAndWait { context in
      for name in names.prefix(3) { _ = try context.insert("Department", values: ["name": .string(name)]) }
      let departments = try context.objects(of: "Department")
      for _ in 0..<(ListState.touchThreshold + 500) {
        let person = try context.insert(
          "Person", values: ["name": .string(writes.name()), "age": writes.age(), "city": writes.city()])
        if Int.random(in: 0..<10, using: &writes.random) != 0 {
          try person.setRelationship("department", to: departments.randomElement(using: &writes.random))
        }
      }
      _ = try context.save()
    }
    let monitor = try ListMonitor(context: context, request: configuration.request, scheduler: .immediate)
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    #expect(previous == (try context.performAndWait { try configuration.expected(in: $0) }))
    for save in 0..<20 {
      try context.performAndWait { context in
        let people = try context.objects(of: "Person")
        var departments = try context.objects(of: "Department")
        if departments.count < 3 {
          _ = try context.insert("Department", values: ["name": .string(names.randomElement(using: &writes.random)!)])
          departments = try context.objects(of: "Department")
        }
        for _ in 0..<Int.random(in: 1...30, using: &writes.random) {
          let person = people.randomElement(using: &writes.random)!
          guard !person.isDeleted else { continue }
          switch Int.random(in: 0..<8, using: &writes.random) {
          case 0, 1: try person.setValue(writes.age(), forKey: "age")
          case 2:
            let department =
              Int.random(in: 0..<5, using: &writes.random) == 0
              ? nil : departments.filter { !$0.isDeleted }.randomElement(using: &writes.random)
            try person.setRelationship("department", to: department)
          case 3: try person.setValue(.string(writes.name()), forKey: "name")
          case 4:
            let newcomer = try context.insert(
              "Person", values: ["name": .string(writes.name()), "age": writes.age(), "city": writes.city()])
            try newcomer.setRelationship(
              "department", to: departments.filter { !$0.isDeleted }.randomElement(using: &writes.random))
          case 5:
            let live = departments.filter { !$0.isDeleted }
            if Int.random(in: 0..<40, using: &writes.random) == 0, live.count > 2 {
              try context.delete(live.randomElement(using: &writes.random)!)
            } else if Int.random(in: 0..<8, using: &writes.random) == 0 {
              try live.randomElement(using: &writes.random)!.setValue(
                .string(names.randomElement(using: &writes.random)!), forKey: "name")
            }
          default: try context.delete(person)
          }
        }
        _ = try context.save()
      }
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      let label = "save \(save), seed \(seed), \(configuration)"
      guard Self.check(recorder.take(), previous: &previous, expected: expected, label) else { break }
    }
    withExtendedLifetime(token) {}
  }
}
