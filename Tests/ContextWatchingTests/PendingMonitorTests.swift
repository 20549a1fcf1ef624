import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("Monitors: pending changes", .serialized)
struct PendingMonitorTests {
  @Test func anObjectMonitorFollowingPendingChangesReportsThemOnce() throws {
    let context = WatcherFixtures.context()
    let ann = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try context.save()
      return ann
    }
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .immediate, follows: .pending)
    let log = ObjectLog()
    monitor.addObserver(log)
    try context.run { _ in try ann.setValue(31, forKey: "age") }
    #expect(log.all == ["will 30 (held 30)", "did 31 [\"age\"] (held 31)"])
    #expect(monitor.object?["age"] == 31)
    // The save brings what the monitor shows already: nothing to tell.
    try context.run { _ = try $0.save() }
    #expect(log.all.count == 2)
    // A rollback is told as the change back.
    try context.run { context in
      try ann.setValue(40, forKey: "age")
      context.processPendingChanges()
      context.rollback()
    }
    #expect(Array(log.all.suffix(2)) == ["will 40 (held 40)", "did 31 [\"age\"] (held 31)"])
    try context.run { try $0.delete(ann) }
    #expect(log.all.last == "deleted 31 (held nil)" && monitor.isObjectDeleted)
  }

  @Test func aSaveMonitorStillWaitsForTheSave() throws {
    let context = WatcherFixtures.context()
    let ann = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try context.save()
      return ann
    }
    let pending = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .immediate, follows: .pending)
    let saves = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .immediate)
    #expect(saves.follows == .saves && pending.follows == .pending)
    try context.run { _ in try ann.setValue(31, forKey: "age") }
    #expect(pending.object?["age"] == 31 && saves.object?["age"] == 30)
    try context.run { _ = try $0.save() }
    #expect(saves.object?["age"] == 31)
  }

  @Test func recordMonitorsForwardWhatTheyFollow() throws {
    let context = WatcherFixtures.context()
    let ann = try context.run { context in
      let ann = try context.insert(Resident(name: "Ann", city: "Lima", age: 30))
      try context.save()
      return ann
    }
    let object = try RecordObjectMonitor<Resident>(
      context: context, objectID: ann.objectID, scheduler: .immediate, follows: .pending)
    let list = try RecordListMonitor<Resident>(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate,
      follows: .pending)
    #expect(object.untyped.follows == .pending && list.untyped.follows == .pending)
    try context.run { context in
      try ann.setValue(31, forKey: "age")
      _ = try context.insert(Resident(name: "Bob", city: nil, age: 40))
    }
    #expect(try object.record?.age == 31)
    #expect(try list.records.map(\.name) == ["Ann", "Bob"])
    context.run { $0.rollback() }
    #expect(try object.record?.age == 30)
    #expect(try list.records.map(\.name) == ["Ann"])
  }

  @Test func monitorsThatFollowNothingAreRefused() throws {
    let context = WatcherFixtures.context()
    let ann = try context.run { try $0.insert("Person", values: ["name": "Ann"]) }
    #expect(throws: MonitorError.self) {
      try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .immediate, follows: [])
    }
    #expect(throws: MonitorError.self) {
      try ListMonitor(
        context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate,
        follows: [])
    }
  }

  /// Random blocks of writes, some saved, some rolled back: after each
  /// block the list equals a fresh fetch of the context as it is, each
  /// delivery turns the old list into the new one, and a save after the
  /// block's own publication tells nothing.
  @Test(arguments: ListConfiguration.all.indices)
  func aListFollowingPendingChangesEqualsAFreshFetchAfterEachBlock(_ index: Int) throws {
    let (configuration, seed, context, random) = try ListConfiguration.seededRun(index, seed: 0x34_57)
    let monitor = try ListMonitor(
      context: context, request: configuration.request, scheduler: .immediate, follows: .pending)
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    var writes = RandomWrites(random: random)
    for block in 0..<200 {
      let ending: RandomWrites.Ending
      switch Int.random(in: 0..<6, using: &writes.random) {
      case 0: ending = .rollback
      case 1, 2: ending = .save
      default: ending = .nothing
      }
      try writes.save(context, ending: ending)
      // One delivery at most: the block's publication (a save publishes
      // first, then brings values the list shows already).
      var updates = recorder.take()
      #expect(updates.count <= 1, "block \(block), seed \(seed)")
      if ending == .save && Bool.random(using: &writes.random) {
        // A save of changes already published.
        try context.run { context in
          try context.objects(of: "Person").first?.setValue(.int(Int64(block)), forKey: "lastSeen")
          context.processPendingChanges()
          try context.save()
        }
      }
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      let extra = recorder.take()
      #expect(extra.count <= 1, "block \(block), seed \(seed)")
      updates += extra
      for update in updates {
        let now = ListPicture(update.content)
        #expect(previous.applying(update.changes) == now, "block \(block), seed \(seed), \(configuration)")
        ListMonitorRandomTests.checkShape(update.changes)
        previous = now
      }
      #expect(previous == expected, "block \(block), seed \(seed), \(configuration)")
      #expect(ListPicture(monitor.content) == expected)
      if previous != expected { break }
    }
    withExtendedLifetime(token) {}
  }
}
