import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("Watcher: pending changes")
struct PendingWatchTests {
  private func pendingOptions(_ follows: ChangeKinds = .pending) -> WatchOptions {
    WatchOptions(follows: follows)
  }

  @Test func aPendingWatchSeesChangesBeforeTheSave() throws {
    let rig = Rig()
    let pending = try rig.watcher.watch("Person", where: "age > 30", options: pendingOptions())
    let saves = try rig.watcher.watch("Person", where: "age > 30")
    let ann = try rig.context.run { try $0.insert("Person", values: ["name": "Ann", "age": 40]) }
    rig.watcher.flush()
    var delivery = try #require(rig.recorder.last)
    #expect(delivery.cause == .pending && delivery.names(.inserted) == ["Ann"])
    #expect(delivery.objectIDs(for: pending.id, .inserted) == [ann.objectID])
    #expect(delivery.objectIDs(for: saves.id, .inserted).isEmpty)

    // Enter and exit work on pending changes: before is what was
    // published, after what is now.
    try rig.context.run { _ in try ann.setValue(20, forKey: "age") }
    rig.watcher.flush()
    delivery = try #require(rig.recorder.last)
    #expect(delivery.cause == .pending && delivery.names(.exited) == ["Ann"])
    #expect(delivery.exited.first?.before["age"] == 40)

    try rig.context.run { _ in try ann.setValue(50, forKey: "age") }
    rig.watcher.flush()
    #expect(rig.recorder.last?.names(.entered) == ["Ann"])

    // The save: the save watch sees the insert; the pending watch nothing
    // more (nothing was left to publish).
    let saved = try #require(try rig.save { _ in })
    #expect(saved.cause == .save && saved.sequenceNumber == 1)
    #expect(saved.objectIDs(for: saves.id, .inserted) == [ann.objectID])
    #expect(saved.matches(for: ann.objectID).map(\.watch) == [saves.id])
    #expect(rig.recorder.all.map(\.cause) == [.pending, .pending, .pending, .save])
  }

  /// The watcher subscribes to the context's pending changes while a
  /// watch follows them, and only then: the last such watch removed, by
  /// its token or by identifier, ends the subscription, and the context
  /// tracks nothing more for the watcher.
  @Test func theWatcherFollowsPendingChangesOnlyWhileAWatchDoes() throws {
    let rig = Rig()
    let saves = try rig.watcher.watch("Person", where: "age > 30")
    #expect(!rig.context.hasPendingChangesObservers)
    let first = try rig.watcher.watch("Person", where: "age > 30", options: pendingOptions())
    let second = try rig.watcher.watch(["Person", "Company"], where: "name == 'x'", options: pendingOptions(.all))
    #expect(rig.context.hasPendingChangesObservers)
    first.cancel()
    #expect(rig.context.hasPendingChangesObservers)
    rig.watcher.removeWatch(second.id)
    #expect(!rig.context.hasPendingChangesObservers)
    // With no watch following them, pending changes do not reach the
    // watcher: only the save does.
    try rig.save { context in _ = try context.insert("Person", values: ["name": "Ann", "age": 40]) }
    #expect(rig.recorder.all.map(\.cause) == [.save])

    // A watch that follows them again subscribes again; releasing its
    // token ends it again.
    var third: WatchToken? = try rig.watcher.watch("Person", options: pendingOptions())
    #expect(rig.context.hasPendingChangesObservers)
    try rig.save { context in _ = try context.insert("Person", values: ["name": "Bob", "age": 41]) }
    #expect(rig.recorder.all.map(\.cause) == [.save, .pending, .save])
    withExtendedLifetime(third) {}
    third = nil
    #expect(!rig.context.hasPendingChangesObservers)
    withExtendedLifetime(saves) {}
  }

  /// Watches that follow pending changes, added and removed on several
  /// threads at once, leave the watcher subscribed exactly while one is
  /// registered.
  @Test func addingAndRemovingPendingWatchesConcurrentlyKeepsTheSubscriptionRight() throws {
    let rig = Rig()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for round in 0..<200 {
        let token = try? rig.watcher.watch(
          "Person", where: "age > %d", arguments: [.int(Int64(round))], options: pendingOptions())
        token?.cancel()
      }
    }
    #expect(!rig.context.hasPendingChangesObservers)
    let last = try rig.watcher.watch("Person", options: pendingOptions())
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<200 {
        let token = try? rig.watcher.watch("Person", where: "age > 3", options: pendingOptions())
        token?.cancel()
      }
    }
    #expect(rig.context.hasPendingChangesObservers)
    last.cancel()
    #expect(!rig.context.hasPendingChangesObservers)
  }

  @Test func aWatchOfBothKindsGetsEachWithItsKind() throws {
    let rig = Rig()
    let both = try rig.watcher.watch("Person", options: pendingOptions(.all))
    try rig.save { context in _ = try context.insert("Person", values: ["name": "Ann"]) }
    let kinds = rig.recorder.all.map(\.cause)
    #expect(kinds == [.pending, .save])
    #expect(rig.recorder.all.allSatisfy { $0.objectIDs(for: both.id, .inserted).count == 1 })
  }

  @Test func relationshipsKeyFiltersAndAuthorsApplyToPendingChanges() throws {
    let rig = Rig(options: WatcherOptions(ignoredAuthors: ["sync"]))
    var options = pendingOptions()
    options.watchedKeys = ["city"]
    let cities = try rig.watcher.watch("Person", where: "age > 0", options: options)
    let acmeStaff = try rig.watcher.watch("Person", where: "employer.name == 'Acme'", options: pendingOptions())
    let (ann, acme) = try rig.context.run { context in
      let acme = try context.insert("Company", values: ["name": "Acne"])
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try ann.setRelationship("employer", to: acme)
      return (ann, acme)
    }
    try rig.context.run { _ in try ann.setValue(31, forKey: "age") }  // not a watched key
    try rig.context.run { _ in try acme.setValue("Acme", forKey: "name") }  // through the relationship
    rig.watcher.flush()
    let last = try #require(rig.recorder.last)
    #expect(last.cause == .pending)
    #expect(last.objectIDs(for: acmeStaff.id, .entered) == [ann.objectID])
    #expect(rig.recorder.all.allSatisfy { $0.objectIDs(for: cities.id, .updated).isEmpty })
    try rig.context.run { _ in try ann.setValue("Paris", forKey: "city") }
    rig.watcher.flush()
    #expect(rig.recorder.last?.objectIDs(for: cities.id, .updated) == [ann.objectID])

    // A change published under an ignored author is not delivered.
    let count = rig.recorder.all.count
    try rig.context.run { context in
      context.author = "sync"
      try ann.setValue("Rome", forKey: "city")
    }
    rig.watcher.flush()
    #expect(rig.recorder.all.count == count)
  }

  @Test func pendingDeliveriesHoldOnlyTheWatchesThatFollowThem() throws {
    let rig = Rig()
    let group = try rig.watcher.watch(["Person", "Company"], where: "name BEGINSWITH 'A'", options: pendingOptions())
    let saves = try rig.watcher.watch("Person")
    var inserts = WatchOptions(events: [.inserted])
    inserts.label = "inserts"
    let savedInserts = try rig.watcher.watch("Person", options: inserts)
    let (ann, acme) = try rig.context.run { context in
      (try context.insert("Person", values: ["name": "Ann"]), try context.insert("Company", values: ["name": "Acme"]))
    }
    rig.watcher.flush()
    let pending = try #require(rig.recorder.last)
    #expect(pending.cause == .pending)
    #expect(pending.attribution.map(\.objectID) == [ann.objectID, acme.objectID].sorted())
    #expect(pending.attribution.allSatisfy { $0.matches.map(\.watch) == [group.id] })
    let saved = try #require(try rig.save { _ in })
    #expect(saved.matches(for: ann.objectID).map(\.watch) == [saves.id, savedInserts.id])
    #expect(saved.matches(for: acme.objectID).isEmpty)
  }

  @Test func aWatchThatFollowsNothingIsRefused() throws {
    let rig = Rig()
    #expect {
      try rig.watcher.watch("Person", where: "age > 1", options: pendingOptions([]))
    } throws: { error in
      (error as? WatchError)?.code == .invalidOptions
    }
  }

  @Test func aWatchHandlerGetsTheKind() throws {
    let rig = Rig()
    let kinds = LockedState<[ChangeCause]>([])
    let token = try rig.watcher.watch(
      "Person", options: pendingOptions(.all),
      handler: .changes { changes in kinds.withLock { $0.append(changes.cause) } })
    try rig.save { context in _ = try context.insert("Person", values: ["name": "Ann"]) }
    #expect(kinds.withLock { $0 } == [.pending, .save])
    withExtendedLifetime(token) {}
  }

  /// Random edits with and without saves and rollbacks: a watch of pending
  /// changes and a watch of saves with the same predicate see what Core
  /// Data's two notifications would show. Between two saves, each object's
  /// pending deliveries add up to what the save delivers of it.
  @Test(arguments: ["age > 4", "city == 'Rome' OR age < 2", "employer.name == 'Acme'"])
  func pendingDeliveriesAddUpToTheSave(_ predicate: String) throws {
    let seed = SeededGenerator.seed(default: 0x5eed_3400)
    var random = SeededGenerator(seed: seed)
    let rig = Rig()
    let pending = try rig.watcher.watch("Person", where: predicate, options: pendingOptions())
    let saves = try rig.watcher.watch("Person", where: predicate)
    let companies = try rig.context.run { context in
      let companies = try ["Acme", "Bolt"].map { try context.insert("Company", values: ["name": .string($0)]) }
      try context.save()
      return companies
    }
    rig.watcher.flush()
    rig.recorder.deliveries.withLock { $0.removeAll() }

    /// Per object, since the last save: whether it matched then, and
    /// whether and how it matches now, as the pending deliveries told.
    struct Net {
      var matchedBefore: Bool
      var existedBefore: Bool
      var before: ObjectSnapshot?
      var after: ObjectSnapshot?
      var matchesNow: Bool
    }
    var net: [ObjectID: Net] = [:]
    var saveCount = 0
    var compared = 0
    for step in 0..<300 {
      try rig.context.run { context in
        let people = try context.objects(of: "Person")
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          let person = people.randomElement(using: &random)
          switch Int.random(in: 0..<10, using: &random) {
          case 0...1 where people.count < 25:
            _ = try context.insert(
              "Person", values: ["name": .string("p\(step)"), "age": .int(Int64.random(in: 0...9, using: &random))])
          case 2, 3:
            if let person, !person.isDeleted {
              try person.setValue(.int(Int64.random(in: 0...9, using: &random)), forKey: "age")
            }
          case 4:
            if let person, !person.isDeleted {
              try person.setValue(Bool.random(using: &random) ? "Rome" : "Oslo", forKey: "city")
            }
          case 5:
            if let person, !person.isDeleted {
              try person.setRelationship("employer", to: companies.randomElement(using: &random))
            }
          case 6:
            try companies[0].setValue(Bool.random(using: &random) ? "Acme" : "Acne", forKey: "name")
          case 7:
            if let person, !person.isDeleted { try context.delete(person) }
          case 8:
            context.processPendingChanges()
          default:
            break
          }
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: try context.save()
        case 1: context.rollback()
        default: break
        }
      }
      rig.watcher.flush()
      for delivery in rig.recorder.deliveries.withLock({ $0 }) {
        switch delivery.cause {
        case .pending:
          #expect(delivery.attribution.allSatisfy { $0.matches.allSatisfy { $0.watch == pending.id } })
          func note(
            _ id: ObjectID, was: Bool, existed: Bool, before: ObjectSnapshot?, after: ObjectSnapshot?, now: Bool
          ) {
            if net[id] == nil {
              net[id] = Net(matchedBefore: was, existedBefore: existed, before: before, after: after, matchesNow: now)
            } else {
              #expect(net[id]!.matchesNow == was, "seed \(seed): \(id) was \(was), last told \(net[id]!.matchesNow)")
              net[id]!.after = after
              net[id]!.matchesNow = now
            }
          }
          for snapshot in delivery.inserted {
            note(snapshot.objectID, was: false, existed: false, before: nil, after: snapshot, now: true)
          }
          for update in delivery.updated {
            note(update.objectID, was: true, existed: true, before: update.before, after: update.after, now: true)
          }
          for update in delivery.entered {
            note(update.objectID, was: false, existed: true, before: update.before, after: update.after, now: true)
          }
          for update in delivery.exited {
            note(update.objectID, was: true, existed: true, before: update.before, after: update.after, now: false)
          }
          for snapshot in delivery.deleted {
            note(snapshot.objectID, was: true, existed: true, before: snapshot, after: nil, now: false)
          }
        case .save:
          saveCount += 1
          #expect(delivery.attribution.allSatisfy { $0.matches.allSatisfy { $0.watch == saves.id } })
          var told: [ObjectID: (was: Bool, now: Bool, after: ObjectSnapshot?)] = [:]
          for snapshot in delivery.inserted { told[snapshot.objectID] = (false, true, snapshot) }
          for update in delivery.updated { told[update.objectID] = (true, true, update.after) }
          for update in delivery.entered { told[update.objectID] = (false, true, update.after) }
          for update in delivery.exited { told[update.objectID] = (true, false, update.after) }
          for snapshot in delivery.deleted { told[snapshot.objectID] = (true, false, nil) }
          for (id, change) in net {
            // Changed and changed back, or matched neither before nor now:
            // the save has nothing to tell.
            let unchanged =
              change.matchedBefore && change.matchesNow && change.before?.values == change.after?.values
              && change.before?.relationships == change.after?.relationships
            if unchanged || (!change.matchedBefore && !change.matchesNow) {
              #expect(told[id] == nil || told[id]!.was != told[id]!.now, "seed \(seed), save \(saveCount): \(id)")
              continue
            }
            let saved = told[id]
            compared += 1
            #expect(saved?.was == change.matchedBefore, "seed \(seed), save \(saveCount): \(id) before")
            #expect(saved?.now == change.matchesNow, "seed \(seed), save \(saveCount): \(id) now")
            if change.matchesNow { #expect(saved?.after == change.after, "seed \(seed): \(id) values") }
          }
          for id in told.keys where net[id] == nil {
            Issue.record("seed \(seed), save \(saveCount): \(id) saved, never pending")
          }
          net = [:]
        case .timePassed:
          Issue.record("no watch here compares with now(): \(delivery)")
        }
      }
      rig.recorder.deliveries.withLock { $0.removeAll() }
    }
    #expect(saveCount > 10 && compared > 25, "\(saveCount) saves, \(compared) objects compared")
  }
}
