import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Collects what a context publishes, pending changes and saves, in order.
private final class Published: Sendable {
  let values = LockedState<[ContextSave]>([])
  var all: [ContextSave] { values.withLock { $0 } }
  var pending: [ContextSave] { all.filter { $0.kind == .pending } }
  func take() -> [ContextSave] {
    values.withLock { values in
      defer { values = [] }
      return values
    }
  }
}

private func observe(_ context: ObjectContext) -> (Published, [SaveObserverToken]) {
  let published = Published()
  let pending = context.addPendingChangesObserver { changes in published.values.withLock { $0.append(changes) } }
  let saves = context.addSaveObserver { save in published.values.withLock { $0.append(save) } }
  return (published, [pending, saves])
}

private func names(_ snapshots: [ObjectSnapshot]) -> [String] {
  snapshots.map { if case .string(let name)? = $0["name"] { name } else { "?" } }
}

@Suite("Context: pending changes")
struct PendingChangesTests {
  @Test func publishesInsertsUpdatesAndDeletesAgainstWhatItPublishedLast() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
      context.processPendingChanges()
      var changes = try #require(published.take().first)
      #expect(changes.kind == .pending && changes.sequenceNumber == 0)
      #expect(names(changes.inserted) == ["Ann"] && changes.updated.isEmpty && changes.deleted.isEmpty)

      try ann.setValue(32, forKey: "age")
      try ann.setValue(33, forKey: "age")
      context.processPendingChanges()
      changes = try #require(published.take().first)
      #expect(changes.inserted.isEmpty && changes.updated.count == 1)
      #expect(changes.updated[0].changedKeys == ["age"])
      #expect(changes.updated[0].before["age"] == 31 && changes.updated[0].after["age"] == 33)

      // Changed and changed back: nothing to publish.
      try ann.setValue(40, forKey: "age")
      try ann.setValue(33, forKey: "age")
      context.processPendingChanges()
      #expect(published.take().isEmpty)

      try ann.setValue(34, forKey: "age")
      try context.delete(ann)
      context.processPendingChanges()
      changes = try #require(published.take().first)
      // Deleted with the values last published, as a save reports those
      // last saved.
      #expect(changes.updated.isEmpty && changes.deleted.map { $0["age"] } == [33])

      // Inserted and deleted between two publications: nothing.
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try context.delete(bob)
      context.processPendingChanges()
      #expect(published.take().isEmpty)
    }
  }

  @Test func publishesAtTheEndOfEachBlockThatChangedSomething() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    let ann = try context.run { try $0.insert("Person", values: ["name": "Ann"]) }
    #expect(names(published.take().first?.inserted ?? []) == ["Ann"])
    _ = context.run { $0.registeredObjectCount }
    #expect(published.take().isEmpty)

    // Nested blocks publish at their own end too.
    try context.run { context in
      try context.performAndWait { _ in try ann.setValue(5, forKey: "age") }
      #expect(published.take().first?.updated.first?.changedKeys == ["age"])
      try ann.setValue("Anne", forKey: "name")
    }
    #expect(published.take().first?.updated.first?.changedKeys == ["name"])

    // A block that throws publishes what it changed before.
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try context.performAndWait { _ throws(Stop) in
        try? ann.setValue(6, forKey: "age")
        throw Stop()
      }
    }
    #expect(published.take().first?.updated.first?.after["age"] == 6)

    // perform(_:) publishes too.
    let done = DispatchSemaphore(value: 0)
    let id = ann.objectID
    context.perform { context in
      try? context.object(with: id)?.setValue(7, forKey: "age")
      done.signal()
    }
    done.wait()
    context.run { _ in }
    #expect(published.take().first?.updated.first?.after["age"] == 7)
  }

  @Test func aSavePublishesFirstThenSaves() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    try context.run { context in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try ann.setRelationship("employer", to: acme)
      try context.save(author: "importer")
    }
    let all = published.take()
    #expect(all.map(\.kind) == [.pending, .save])
    #expect(all[0].author == "importer" && all[0].sequenceNumber == 0 && all[1].sequenceNumber == 1)
    #expect(Set(names(all[0].inserted)) == ["Acme", "Ann"])
    // Nothing pending after a save: the block's end publishes nothing.
    #expect(published.take().isEmpty)
  }

  @Test func aFailedSaveStillPublishesAndChangesNothing() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    try context.run { context in
      let ann = try context.insert("Person", values: [:])  // name is required
      #expect(throws: ContextSaveError.self) { try context.save() }
      #expect(published.take().map(\.kind) == [.pending])
      #expect(ann.isInserted && context.hasChanges && context.sequenceNumber == 0)
      try ann.setValue("Ann", forKey: "name")
      try context.save()
      let all = published.take()
      #expect(all.map(\.kind) == [.pending, .save])
      #expect(all[0].updated.first?.changedKeys == ["name"] && names(all[1].inserted) == ["Ann"])
    }
  }

  @Test func aRollbackPublishesWhatItUndid() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    let (ann, bob) = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Person", values: ["name": "Bob", "age": 40])
      try context.save()
      return (ann, bob)
    }
    _ = published.take()
    try context.run { context in
      try ann.setValue(31, forKey: "age")
      try context.delete(bob)
      _ = try context.insert("Person", values: ["name": "Cid"])
      context.processPendingChanges()
      _ = published.take()
      try ann.setValue(32, forKey: "age")
      context.rollback()
      let changes = try #require(published.take().first)
      #expect(changes.kind == .pending)
      // From what observers last saw (31; 32 was never published) back to
      // the saved value.
      #expect(changes.updated.first?.before["age"] == 31 && changes.updated.first?.after["age"] == 30)
      #expect(names(changes.inserted) == ["Bob"] && names(changes.deleted) == ["Cid"])
    }
    #expect(published.take().isEmpty)
  }

  @Test func nothingIsTrackedWithoutAnObserver() throws {
    let context = Fixtures.context()
    let ann = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      context.processPendingChanges()
      try context.save()
      return ann
    }
    let published = Published()
    var token: SaveObserverToken? = context.addPendingChangesObserver { changes in
      published.values.withLock { $0.append(changes) }
    }
    try context.run { _ in try ann.setValue(3, forKey: "age") }
    #expect(published.take().count == 1)
    token?.cancel()
    token = nil
    try context.run { _ in try ann.setValue(4, forKey: "age") }
    #expect(published.take().isEmpty)
    // A later observer sees only the changes made after it came.
    let again = context.addPendingChangesObserver { changes in published.values.withLock { $0.append(changes) } }
    try context.run { _ in try ann.setValue("Anne", forKey: "name") }
    #expect(published.take().first?.updated.first?.changedKeys == ["name"])
    withExtendedLifetime(again) {}
  }

  @Test func pendingChangesEncodeTheirKind() throws {
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    try context.run { _ = try $0.insert("Person", values: ["name": "Ann"]) }
    let changes = try #require(published.take().first)
    let data = try JSONEncoder().encode(changes)
    #expect(String(decoding: data, as: UTF8.self).contains(#""kind":"pending""#))
    let decoder = JSONDecoder()
    decoder.userInfo[ObjectSnapshot.schemaUserInfoKey] = Fixtures.schema
    #expect(try decoder.decode(ContextSave.self, from: data) == changes)
    let bad = String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""pending""#, with: #""later""#)
    #expect(throws: DecodingError.self) { try decoder.decode(ContextSave.self, from: Data(bad.utf8)) }
  }

  /// Random edits, publications, saves and rollbacks: a replica that applies
  /// each publication holds exactly the live objects after it, and what the
  /// pending changes between two saves add up to is what the save reports.
  @Test func publicationsReplayToTheLiveGraph() throws {
    let seed = SeededGenerator.seed(default: 0x5eed_0034)
    var random = SeededGenerator(seed: seed)
    let context = Fixtures.context()
    let (published, tokens) = observe(context)
    defer { withExtendedLifetime(tokens) {} }
    // What pending observers were told, and what saves were.
    var replica: [ObjectID: ObjectSnapshot] = [:]
    var saved: [ObjectID: ObjectSnapshot] = [:]
    var sinceSave: [ObjectID: (before: ObjectSnapshot?, after: ObjectSnapshot?)] = [:]
    for step in 0..<400 {
      try context.run { context in
        let people = try context.objects(of: "Person")
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          switch Int.random(in: 0..<10, using: &random) {
          case 0...2 where people.count < 30:
            _ = try context.insert(
              "Person", values: ["name": .string("p\(step)"), "age": .int(Int64.random(in: 0...9, using: &random))])
          case 3...6 where !people.isEmpty:
            let person = people.randomElement(using: &random)!
            guard !person.isDeleted else { continue }
            try person.setValue(.int(Int64.random(in: 0...9, using: &random)), forKey: "age")
          case 7 where !people.isEmpty:
            let person = people.randomElement(using: &random)!
            if !person.isDeleted { try context.delete(person) }
          case 8 where people.count > 1:
            let (a, b) = (people.randomElement(using: &random)!, people.randomElement(using: &random)!)
            if !a.isDeleted && !b.isDeleted && a !== b { try a.setRelationship("passport", to: nil) }
            if !a.isDeleted { try a.setValue(.string("n\(step)"), forKey: "name") }
          default:
            if Bool.random(using: &random) { context.processPendingChanges() }
          }
        }
        switch Int.random(in: 0..<8, using: &random) {
        case 0: try context.save()
        case 1: context.rollback()
        default: break
        }
      }
      for value in published.take() {
        switch value.kind {
        case .pending:
          for snapshot in value.inserted {
            #expect(replica[snapshot.objectID] == nil, "seed \(seed): inserted twice")
            replica[snapshot.objectID] = snapshot
            sinceSave[snapshot.objectID, default: (nil, nil)].after = snapshot
          }
          for update in value.updated {
            #expect(replica[update.objectID] == update.before, "seed \(seed): update from another state")
            replica[update.objectID] = update.after
            sinceSave[update.objectID, default: (update.before, nil)].after = update.after
          }
          for snapshot in value.deleted {
            #expect(replica[snapshot.objectID] == snapshot, "seed \(seed): deleted from another state")
            replica[snapshot.objectID] = nil
            sinceSave[snapshot.objectID, default: (snapshot, nil)].after = nil
          }
        case .save:
          var expected: [ObjectID: (before: ObjectSnapshot?, after: ObjectSnapshot?)] = [:]
          for (id, net) in sinceSave where net.before != net.after { expected[id] = net }
          #expect(Set(value.inserted.map(\.objectID)) == Set(expected.filter { $0.value.before == nil }.keys))
          #expect(Set(value.deleted.map(\.objectID)) == Set(expected.filter { $0.value.after == nil }.keys))
          for snapshot in value.inserted { #expect(expected[snapshot.objectID]?.after == snapshot) }
          for update in value.updated {
            #expect(expected[update.objectID]?.before == update.before, "seed \(seed)")
            #expect(expected[update.objectID]?.after == update.after, "seed \(seed)")
          }
          #expect(
            value.updated.count == expected.filter { $0.value.before != nil && $0.value.after != nil }.count,
            "seed \(seed)")
          for snapshot in value.inserted { saved[snapshot.objectID] = snapshot }
          for update in value.updated { saved[update.objectID] = update.after }
          for snapshot in value.deleted { saved[snapshot.objectID] = nil }
          sinceSave = [:]
        }
      }
      // After each block, everything is published: the replica is the graph.
      let live = try context.run { context in
        Dictionary(uniqueKeysWithValues: try context.objects(of: "Person").map { ($0.objectID, $0.snapshot()) })
      }
      #expect(replica == live, "seed \(seed), step \(step)")
      if replica != live { return }
    }
  }
}
