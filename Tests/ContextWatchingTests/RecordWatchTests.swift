import ContextWatching
import Foundation
import ObjectGraph
import PredicateDSL
import Testing

/// Watches and lists named by a record type, whose deliveries read as
/// records.
@Suite("Records: watches and lists")
struct RecordWatchTests {
  struct Person: EntityRecord, Equatable {
    static let entityName = "Person"
    var name: String
    var age: Int?
  }

  @Test func aWatchOfARecordTypeDeliversObjectsThatReadAsRecords() throws {
    let rig = Rig()
    let received = LockedState<[Person]>([])
    let token = try rig.watcher.watch(
      Person.self, where: "age >= %d", 60,
      handler: .changes { changes in
        let entered = changes.inserted + changes.entered.map(\.after)
        received.withLock { $0 += entered.compactMap { try? $0.decode(Person.self) } }
      })
    try rig.save { context in
      try context.insert(Person(name: "Ann", age: 61))
      try context.insert(Person(name: "Bob", age: 20))
    }
    #expect(received.withLock { $0 } == [Person(name: "Ann", age: 61)])
    _ = token
  }

  @Test func aListOfARecordTypeReadsAsRecords() throws {
    let context = WatcherFixtures.context()
    try context.performAndWait { context in
      for (name, age) in [("Cy", 40), ("Ann", 30), ("Bob", 50)] { try context.insert(Person(name: name, age: age)) }
      _ = try context.save()
    }
    let request = try ListRequest(Person.self, where: "age >= %d", arguments: [35], sortedBy: [.ascending("name")])
    let monitor = try ListMonitor(context: context, request: request, scheduler: .immediate)
    let names = try (0..<monitor.count).map { try monitor.object(at: $0).decode(Person.self).name }
    #expect(names == ["Bob", "Cy"])
  }
}
