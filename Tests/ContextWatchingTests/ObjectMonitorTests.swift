import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Records what an object monitor reports, from any queue, with what the
/// monitor held at each call.
final class ObjectLog: ObjectObserver {
  /// `will <age> (held <age>)`, `did <age> [keys] (held <age>)`, `deleted <age> (held nil)`.
  let entries = LockedState<[String]>([])

  var all: [String] { entries.withLock { $0 } }

  static func age(_ snapshot: ObjectSnapshot?) -> String {
    guard let snapshot else { return "nil" }
    return snapshot["age"].map(\.description) ?? "?"
  }

  func objectMonitor(_ monitor: ObjectMonitor, willUpdate object: ObjectSnapshot) {
    entries.withLock { $0.append("will \(Self.age(object)) (held \(Self.age(monitor.object)))") }
  }

  func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {
    entries.withLock { $0.append("did \(Self.age(object)) \(changedKeys) (held \(Self.age(monitor.object)))") }
  }

  func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot) {
    entries.withLock { $0.append("deleted \(Self.age(object)) (held \(Self.age(monitor.object)))") }
  }
}

/// Only deletions: the other methods keep their default implementations.
final class DeletionLog: ObjectObserver {
  let deleted = LockedState<[ObjectID]>([])

  func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot) {
    deleted.withLock { $0.append(object.objectID) }
  }
}

@Suite("Monitors: ObjectMonitor")
struct ObjectMonitorTests {
  let context = WatcherFixtures.context()
  let queue = DispatchQueue(label: "monitor")

  func insert(_ values: [String: FilterValue], entity: String = "Person") throws -> ManagedObject {
    try context.run { context in
      let object = try context.insert(entity, values: values)
      try context.save()
      return object
    }
  }

  func save(_ work: (ObjectContext) throws -> Void) throws {
    try context.run { context in
      try work(context)
      try context.save()
    }
  }

  @Test func startsFromTheObjectsSnapshot() throws {
    let ann = try insert(["name": "Ann", "age": 30])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    #expect(monitor.objectID == ann.objectID)
    #expect(monitor.object == context.run { _ in ann.snapshot() })
  }

  @Test func refusesAnUnknownOrDeletedObject() throws {
    let ann = try insert(["name": "Ann", "age": 30])
    try save { context in try context.delete(ann) }
    for id in [ann.objectID, ObjectID(rawValue: .max)] {
      let error = try #require(throws: MonitorError.self) {
        try ObjectMonitor(context: context, objectID: id, scheduler: .queue(queue))
      }
      #expect(error.code == .unknownObject)
      #expect(
        error.message
          == "ObjectMonitor: no object \(id) in context 'watched' (never inserted, deleted, or rolled back)")
    }
  }

  /// willUpdate sees the old snapshot held, didUpdate the new one, with
  /// the changed keys; a deletion empties the monitor.
  @Test func willAndDidUpdateBracketTheChangeAndDeleteEmpties() throws {
    let ann = try insert(["name": "Ann", "age": 30])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let log = ObjectLog()
    monitor.addObserver(log)
    try save { _ in try ann.setValue(31, forKey: "age") }
    try save { _ in
      try ann.setValue(32, forKey: "age")
      try ann.setValue("Anna", forKey: "name")
    }
    try save { context in try context.delete(ann) }
    monitor.flush()
    #expect(
      log.all == [
        "will 30 (held 30)", "did 31 [\"age\"] (held 31)",
        "will 31 (held 31)", "did 32 [\"name\", \"age\"] (held 32)",
        "deleted 32 (held nil)",
      ])
    #expect(monitor.object == nil)
  }

  /// Every observer gets the changed keys: objects, closures and event
  /// sequences alike (CoreStore gives them to the first observer only).
  @Test(.timeLimit(.minutes(1)))
  func everyObserverGetsTheChangedKeys() async throws {
    let ann = try insert(["name": "Ann", "age": 30, "city": "Oslo"])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let (first, second) = (ObjectLog(), ObjectLog())
    let onlyDeletions = DeletionLog()
    monitor.addObserver(first)
    monitor.addObserver(onlyDeletions)
    monitor.addObserver(second)
    let closureEvents = LockedState<[ObjectMonitorEvent]>([])
    let token = monitor.observe { event in closureEvents.withLock { $0.append(event) } }
    var iterator = monitor.events.makeAsyncIterator()
    try save { _ in try ann.setValue("Bergen", forKey: "city") }
    try save { context in try context.delete(ann) }
    await monitor.flush()
    let expected = ["will 30 (held 30)", "did 30 [\"city\"] (held 30)", "deleted 30 (held nil)"]
    #expect(first.all == expected && second.all == expected)
    #expect(onlyDeletions.deleted.withLock { $0 } == [ann.objectID])
    var streamed: [ObjectMonitorEvent] = []
    while let event = await iterator.next() { streamed.append(event) }
    #expect(streamed == closureEvents.withLock { $0 })
    #expect(streamed.count == 3)
    guard case .didUpdate(let object, let keys) = streamed[1] else {
      Issue.record("expected didUpdate, got \(streamed[1])")
      return
    }
    #expect(object["city"] == "Bergen" && keys == ["city"])
    guard case .didDelete = streamed[2] else {
      Issue.record("expected didDelete, got \(streamed[2])")
      return
    }
    withExtendedLifetime(token) {}
  }

  /// Relationship changes are updates of the object with the
  /// relationship's key: a target added, removed, or deleted (which the
  /// object graph reports as an update of the object).
  @Test func relationshipChangesAreUpdatesWithTheirKey() throws {
    let acme = try insert(["name": "Acme"], entity: "Company")
    let (ann, bob) = (try insert(["name": "Ann", "age": 30]), try insert(["name": "Bob", "age": 40]))
    let monitor = try ObjectMonitor(context: context, objectID: acme.objectID, scheduler: .queue(queue))
    let keys = LockedState<[[String]]>([])
    let employees = LockedState<[Int]>([])
    let token = monitor.observe { event in
      guard case .didUpdate(let object, let changedKeys) = event else { return }
      keys.withLock { $0.append(changedKeys) }
      employees.withLock { $0.append(object.targets(of: "employees")?.objectIDs.count ?? -1) }
    }
    let saves = LockedState<[ContextSave]>([])
    let observation = context.addSaveObserver { save in saves.withLock { $0.append(save) } }
    try save { _ in try acme.add(ann, to: "employees") }
    try save { _ in try bob.setRelationship("employer", to: acme) }  // from the other side
    try save { _ in try acme.remove(ann, from: "employees") }
    try save { context in try context.delete(bob) }  // nullified: Acme loses Bob
    monitor.flush()
    #expect(keys.withLock { $0 } == [["employees"], ["employees"], ["employees"], ["employees"]])
    #expect(employees.withLock { $0 } == [1, 2, 1, 0])
    // What the monitor reports is what the object graph says: Acme is
    // updated with the relationship's key in each of those saves.
    for save in saves.withLock({ $0 }) {
      #expect(save.updated.first { $0.objectID == acme.objectID }?.changedKeys == ["employees"])
    }
    #expect(monitor.object?.targets(of: "employees") == .toMany([]))
    withExtendedLifetime((token, observation)) {}
  }

  @Test func releasedObserversAreDroppedAndRemovedOnesNotCalled() throws {
    let ann = try insert(["name": "Ann", "age": 30])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let (kept, removed) = (ObjectLog(), ObjectLog())
    weak var released: ObjectLog?
    do {
      let log = ObjectLog()
      released = log
      monitor.addObserver(log)
    }
    #expect(released == nil)
    monitor.addObserver(kept)
    monitor.addObserver(removed)
    monitor.removeObserver(removed)
    let closureCalls = LockedState(0)
    var token: ObserverToken? = monitor.observe { _ in closureCalls.withLock { $0 += 1 } }
    try save { _ in try ann.setValue(31, forKey: "age") }
    monitor.flush()
    token = nil
    try save { _ in try ann.setValue(32, forKey: "age") }
    monitor.flush()
    #expect(kept.all.count == 4)
    #expect(removed.all.isEmpty)
    #expect(closureCalls.withLock { $0 } == 2)
    #expect(token == nil)
  }

  /// A monitor does not keep its observers, nor does a token keep its
  /// monitor; a released monitor reports nothing more and ends its event
  /// sequences.
  @Test(.timeLimit(.minutes(1)))
  func aReleasedMonitorStopsAndEndsItsSequences() async throws {
    let ann = try insert(["name": "Ann", "age": 30])
    var monitor: ObjectMonitor? = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    weak let weakMonitor = monitor
    let calls = LockedState(0)
    let token = monitor!.observe { _ in calls.withLock { $0 += 1 } }
    let events = monitor!.events
    var iterator = events.makeAsyncIterator()
    await monitor!.flush()
    monitor = nil
    #expect(weakMonitor == nil)
    try save { _ in try ann.setValue(31, forKey: "age") }
    queue.sync {}
    #expect(calls.withLock { $0 } == 0)
    #expect(await iterator.next() == nil)
    // A sequence of a monitor that is gone ends at once.
    var late = events.makeAsyncIterator()
    #expect(await late.next() == nil)
    withExtendedLifetime(token) {}
  }

  /// Hundreds of saves: each reported once, in order, will before did.
  @Test func manySavesAreReportedOnceEachInOrder() throws {
    let ann = try insert(["name": "Ann", "age": 0])
    let bob = try insert(["name": "Bob", "age": 0])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let log = ObjectLog()
    monitor.addObserver(log)
    for age in 1...300 {
      try save { _ in
        try ann.setValue(.int(Int64(age)), forKey: "age")
        try bob.setValue(.int(Int64(age)), forKey: "age")
      }
      // Saves of other objects alone are not reported.
      try save { _ in try bob.setValue(.int(Int64(-age)), forKey: "age") }
    }
    monitor.flush()
    let expected = (1...300).flatMap { age in
      ["will \(age - 1) (held \(age - 1))", "did \(age) [\"age\"] (held \(age))"]
    }
    #expect(log.all == expected)
  }

  /// Changes to keys the schema ignores for the entity are not reported.
  @Test func changesOfIgnoredKeysAloneAreNotReported() throws {
    let ann = try insert(["name": "Ann", "age": 30])
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let log = ObjectLog()
    monitor.addObserver(log)
    try save { _ in try ann.setValue(5, forKey: "lastSeen") }
    try save { _ in
      try ann.setValue(6, forKey: "lastSeen")
      try ann.setValue(31, forKey: "age")
    }
    monitor.flush()
    #expect(log.all == ["will 30 (held 30)", "did 31 [\"age\", \"lastSeen\"] (held 31)"])
    #expect(monitor.object?["lastSeen"] == 6)
  }

  /// An object monitored before its insert is saved: the save reports the
  /// keys whose saved values differ from those it was monitored with.
  @Test func anObjectMonitoredBeforeItsInsertIsSaved() throws {
    let ann = try context.run { context in try context.insert("Person", values: ["name": "Ann", "age": 30]) }
    let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue))
    let log = ObjectLog()
    monitor.addObserver(log)
    try save { _ in }  // the insert as it was: nothing to report
    let bob = try context.run { context in try context.insert("Person", values: ["name": "Bob", "age": 40]) }
    let bobs = try ObjectMonitor(context: context, objectID: bob.objectID, scheduler: .queue(queue))
    let bobLog = ObjectLog()
    bobs.addObserver(bobLog)
    try save { _ in try bob.setValue(41, forKey: "age") }
    monitor.flush()
    bobs.flush()
    #expect(log.all.isEmpty)
    #expect(monitor.object?["age"] == 30)
    #expect(bobLog.all == ["will 40 (held 40)", "did 41 [\"age\"] (held 41)"])
  }

  /// An immediate monitor reports before the save returns; a main-actor
  /// monitor on the main actor.
  @MainActor
  @Test(.timeLimit(.minutes(1)))
  func immediateAndMainActorSchedulers() async throws {
    let ann = try insert(["name": "Ann", "age": 30])
    let inline = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .immediate)
    let onMain = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .mainActor)
    let inlineLog = ObjectLog()
    inline.addObserver(inlineLog)
    let mainEvents = LockedState<[String]>([])
    let token = onMain.observe { event in
      MainActor.preconditionIsolated()
      mainEvents.withLock { $0.append("\(event)".prefix(10).description) }
    }
    let id = ann.objectID
    try await context.perform { context in
      try context.object(with: id)?.setValue(31, forKey: "age")
      try context.save()
    }
    #expect(inlineLog.all == ["will 30 (held 30)", "did 31 [\"age\"] (held 31)"])
    await onMain.flush()
    #expect(mainEvents.withLock { $0.count } == 2)
    withExtendedLifetime(token) {}
  }

  /// Saves from many threads at once (the context serializes them) with
  /// monitors of several objects on several queues, two per object: each
  /// monitor reports every value its object was saved with, once, in save
  /// order.
  @Test(.timeLimit(.minutes(1)))
  func concurrentSavesWithMonitorsOnSeveralQueues() throws {
    let people = try (0..<6).map { index in try insert(["name": .string("P\(index)"), "age": 0]).objectID }
    let queues = (0..<3).map { DispatchQueue(label: "monitors \($0)") }
    let shared = DispatchQueue(label: "shared monitors", attributes: .concurrent)
    var monitors: [(ObjectMonitor, ObjectLog, Int)] = []
    for (index, person) in people.enumerated() {
      for copy in 0..<2 {
        let scheduler: DeliveryScheduler =
          copy == 0 ? .queue(queues[index % queues.count]) : .queue(shared)
        let monitor = try ObjectMonitor(context: context, objectID: person, scheduler: scheduler)
        let log = ObjectLog()
        monitor.addObserver(log)
        monitors.append((monitor, log, index))
      }
    }
    // The values each object was saved with, in save order (recorded on
    // the context's queue, as each save happens).
    let saved = LockedState<[[Int64]]>(Array(repeating: [], count: people.count))
    let counter = LockedState<Int64>(0)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<50 {
        try? context.run { context in
          let value = counter.withLock { next in
            next += 1
            return next
          }
          let chosen = [(thread + round) % people.count, (thread * 3 + round * 5) % people.count]
          for index in Set(chosen) {
            try context.object(with: people[index])!.setValue(.int(value), forKey: "age")
            saved.withLock { $0[index].append(value) }
          }
          try context.save()
        }
      }
    }
    for (monitor, _, _) in monitors { monitor.flush() }
    let values = saved.withLock { $0 }
    #expect(values.map(\.count).reduce(0, +) > 400)
    for (monitor, log, index) in monitors {
      let dids = log.all.filter { $0.hasPrefix("did") }.map { $0.split(separator: " ")[1] }.map { Int64($0)! }
      #expect(dids == values[index], "monitor of P\(index)")
      #expect(monitor.object?["age"] == values[index].last.map(FilterValue.int))
      let wills = log.all.filter { $0.hasPrefix("will") }.map { $0.split(separator: " ")[1] }.map { Int64($0)! }
      #expect(wills == [0] + values[index].dropLast())
    }
  }
}
