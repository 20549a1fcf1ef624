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
  @Test func everyDeliveryTurnsTheOldListIntoTheNewOneAndEqualsAFreshFetch() throws {
    let configuration = ListConfiguration(
      predicate: "age != 7", sortKeys: [("city", true), ("age", false)], sectionKey: "city", limit: nil)
    let seed = SeededGenerator.seed(default: 0x1A46)
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
    #expect(monitor.count > ListState.touchThreshold)
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
        #expect(previous == expected, "save \(save), seed \(seed): no delivery")
        continue
      }
      let now = ListPicture(update.content)
      #expect(previous.applying(update.changes) == now, "save \(save), seed \(seed)")
      #expect(now == expected, "save \(save), seed \(seed)")
      ListMonitorRandomTests.checkShape(update.changes)
      if now != expected { break }
      previous = now
    }
    withExtendedLifetime(token) {}
  }
}
