import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Watches with handlers of their own (KSCoreDataObserver's shape): each
/// gets its own objects, once per save, in save order.
@Suite("Watcher: per-watch handlers")
struct WatchHandlerTests {
  /// Records what handlers receive, from any queue.
  final class Inbox: Sendable {
    let changes = LockedState<[WatchChanges]>([])
    let objects = LockedState<[(ObjectID, WatchEvent, [String])]>([])

    var handler: WatchHandler { .changes { changes in self.changes.withLock { $0.append(changes) } } }
    var all: [WatchChanges] { changes.withLock { $0 } }
  }

  @Test func aHandlerGetsItsOwnWatchesObjectsAndTheTargetGetsEverything() throws {
    let rig = Rig()
    let (seniors, juniors) = (Inbox(), Inbox())
    let senior = try rig.watcher.watch("Person", where: "age >= 60", handler: seniors.handler)
    let junior = try rig.watcher.watch("Person", where: "age < 30", handler: juniors.handler)
    let plain = try rig.watcher.watch("Person", where: "name BEGINSWITH 'A'")
    var ann: ManagedObject!
    var bob: ManagedObject!
    let first = try #require(
      try rig.save { context in
        ann = try context.insert("Person", values: ["name": "Ann", "age": 61])
        bob = try context.insert("Person", values: ["name": "Bob", "age": 20])
        try context.insert("Person", values: ["name": "Cid", "age": 40])
      })
    #expect(first.names(.inserted) == ["Ann", "Bob"])
    #expect(seniors.all.map { $0.inserted.map(\.objectID) } == [[ann.objectID]])
    #expect(juniors.all.map { $0.inserted.map(\.objectID) } == [[bob.objectID]])
    #expect(seniors.all.first?.watch == senior.id)
    #expect(seniors.all.first?.sequenceNumber == first.sequenceNumber)

    // Bob enters the seniors and exits the juniors; Ann is updated and
    // then deleted.
    try rig.save { _ in
      try bob.setValue(70, forKey: "age")
      try ann.setValue(62, forKey: "age")
    }
    try rig.save { context in try context.delete(ann) }
    // A save the handler watches do not see reaches neither handler.
    try rig.save { context in try context.insert("Person", values: ["name": "Cyd", "age": 45]) }
    let seen = seniors.all
    #expect(seen.count == 3)
    #expect(seen[1].entered.map(\.objectID) == [bob.objectID])
    #expect(seen[1].updated.map(\.objectID) == [ann.objectID] && seen[1].updated[0].changedKeys == ["age"])
    #expect(seen[2].deleted.map(\.objectID) == [ann.objectID])
    #expect(juniors.all.count == 2 && juniors.all[1].exited.map(\.objectID) == [bob.objectID])
    withExtendedLifetime((senior, junior, plain)) {}
  }

  /// A watcher whose target is its watches' handlers delivers nothing
  /// itself; handlers run on the target's scheduler, or on their own.
  @Test func handlersRunOnTheirSchedulerOrTheWatchers() throws {
    let context = WatcherFixtures.context()
    let (shared, own) = (DispatchQueue(label: "shared"), DispatchQueue(label: "own"))
    let watcher = ContextWatcher(context: context, target: .watchHandlers(on: .queue(shared)))
    let log = LockedState<[String]>([])
    let onShared = try watcher.watch(
      "Person", where: "age > 0",
      handler: .changes { changes in
        dispatchPrecondition(condition: .onQueue(shared))
        log.withLock { $0.append("shared \(changes.sequenceNumber)") }
      })
    let onOwn = try watcher.watch(
      "Person", where: "age > 0",
      handler: .changes(on: .queue(own)) { changes in
        dispatchPrecondition(condition: .onQueue(own))
        log.withLock { $0.append("own \(changes.sequenceNumber)") }
      })
    let inline = try watcher.watch(
      "Person", where: "age > 0",
      handler: .changes(on: .immediate) { changes in log.withLock { $0.append("inline \(changes.sequenceNumber)") } })
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann", "age": 3])
      try context.save()
      // Immediate handlers have run by the time the save returns.
      #expect(log.withLock { $0 }.contains("inline 1"))
    }
    watcher.flush()
    #expect(Set(log.withLock { $0 }) == ["shared 1", "own 1", "inline 1"])
    #expect(watcher.backlog == 0)
    withExtendedLifetime((onShared, onOwn, inline)) {}
  }

  /// The per-object form: one call per object, in identifier order, with
  /// the event and the changed keys.
  @Test func theEachObjectFormGetsEveryObjectWithItsEventAndKeys() throws {
    let rig = Rig()
    let calls = LockedState<[[String]]>([])
    let token = try rig.watcher.watch(
      "Person", where: "age >= 18",
      handler: .eachObject { object, event, changedKeys in
        let name = if case .string(let name)? = object["name"] { name } else { "?" }
        calls.withLock { $0.append([name, event.description] + changedKeys) }
      })
    var people: [ManagedObject] = []
    try rig.save { context in
      for (name, age) in [("Ann", 30), ("Bob", 10), ("Cid", 40), ("Dan", 50)] {
        people.append(try context.insert("Person", values: ["name": .string(name), "age": .int(Int64(age))]))
      }
    }
    try rig.save { context in
      try people[0].setValue("Anna", forKey: "name")  // updated
      try people[1].setValue(20, forKey: "age")  // entered
      try people[2].setValue(5, forKey: "age")  // exited
      try context.delete(people[3])  // deleted
    }
    #expect(
      calls.withLock { $0 } == [
        ["Ann", "inserted"], ["Cid", "inserted"], ["Dan", "inserted"],
        ["Anna", "updated", "name"], ["Bob", "entered", "age"], ["Cid", "exited", "age"], ["Dan", "deleted"],
      ])
    withExtendedLifetime(token) {}
  }

  /// Many handler watches (past the short list the router searches): each
  /// gets exactly what attribution says it saw, save after save, in order.
  @Test func manyHandlersEachGetWhatAttributionSays() throws {
    let seed = SeededGenerator.seed(default: 0x4A_2D)
    var random = SeededGenerator(seed: seed)
    let rig = Rig()
    var inboxes: [(WatchToken, Inbox)] = []
    for bound in 0..<24 {
      let inbox = Inbox()
      let format = bound % 3 == 0 ? "age > %d" : (bound % 3 == 1 ? "age < %d" : "age == %d")
      let token = try rig.watcher.watch(
        "Person", where: format, .int(Int64(bound * 4)),
        handler: bound % 2 == 0
          ? inbox.handler
          : .changes(on: .queue(DispatchQueue(label: "h\(bound)"))) { changes in
            inbox.changes.withLock { $0.append(changes) }
          })
      inboxes.append((token, inbox))
    }
    var people: [ManagedObject] = []
    var deliveries: [ContextChanges] = []
    for round in 0..<60 {
      let delivery = try rig.save { context in
        if people.count < 5 || round % 4 == 0 {
          people.append(
            try context.insert("Person", values: ["name": "P", "age": .int(Int64.random(in: 0...100, using: &random))]))
        }
        for person in people where Bool.random(using: &random) {
          try person.setValue(.int(Int64.random(in: 0...100, using: &random)), forKey: "age")
        }
        if round % 9 == 8, let victim = people.indices.randomElement(using: &random) {
          try context.delete(people.remove(at: victim))
        }
      }
      if let delivery { deliveries.append(delivery) }
    }
    rig.watcher.flush()
    for (token, inbox) in inboxes {
      let expected = deliveries.compactMap { delivery -> WatchChanges? in
        var changes = WatchChanges(watch: token.id, sequenceNumber: delivery.sequenceNumber, author: delivery.author)
        let ids = { (event: WatchEvent) in Set(delivery.objectIDs(for: token.id, event)) }
        changes.inserted = delivery.inserted.filter { ids(.inserted).contains($0.objectID) }
        changes.updated = delivery.updated.filter { ids(.updated).contains($0.objectID) }
        changes.entered = delivery.entered.filter { ids(.entered).contains($0.objectID) }
        changes.exited = delivery.exited.filter { ids(.exited).contains($0.objectID) }
        changes.deleted = delivery.deleted.filter { ids(.deleted).contains($0.objectID) }
        return changes.isEmpty ? nil : changes
      }
      #expect(inbox.all == expected, "\(token.id), seed \(seed)")
      #expect(!expected.isEmpty)
    }
  }

  /// An object that enters through a relationship reaches the handler as
  /// it reaches the target: an entry whose changed key is the relationship.
  @Test func objectsEnteringThroughARelationshipReachTheHandler() throws {
    let rig = Rig()
    let inbox = Inbox()
    let token = try rig.watcher.watch("Person", where: "department.name == 'R&D'", handler: inbox.handler)
    var lab: ManagedObject!
    try rig.save { context in
      lab = try context.insert("Department", values: ["name": "Lab"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try ann.setRelationship("department", to: lab)
    }
    try rig.save { _ in try lab.setValue("R&D", forKey: "name") }
    rig.watcher.flush()
    #expect(inbox.all.count == 1)
    #expect(inbox.all.first?.entered.map(\.changedKeys) == [["department"]])
    withExtendedLifetime(token) {}
  }

  /// A cancelled watch's handler is not called for later saves, and a
  /// released handler watch costs the watcher nothing more.
  @Test func aCancelledWatchsHandlerStops() throws {
    let rig = Rig()
    let inbox = Inbox()
    let token = try rig.watcher.watch("Person", where: "age > 0", handler: inbox.handler)
    try rig.save { context in try context.insert("Person", values: ["name": "Ann", "age": 1]) }
    token.cancel()
    try rig.save { context in try context.insert("Person", values: ["name": "Bob", "age": 1]) }
    rig.watcher.flush()
    #expect(inbox.all.map(\.sequenceNumber) == [1])
    #expect(rig.watcher.watchCount == 0)
  }
}
