import ContextWatching
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Watcher: classification")
struct ClassificationTests {
  @Test func insertsUpdatesEntersExitsAndDeletes() throws {
    let rig = Rig()
    let token = try rig.watcher.watch("Person", where: "age > %d", 30)
    var ann: ManagedObject!
    var bob: ManagedObject!
    let first = try #require(
      try rig.save { context in
        ann = try context.insert("Person", values: ["name": "Ann", "age": 40])
        bob = try context.insert("Person", values: ["name": "Bob", "age": 20])
      })
    #expect(first.names(.inserted) == ["Ann"])
    #expect(first.matches[ann.objectID] == [WatchMatch(watch: token.id, event: .inserted)])
    #expect(first.matches[bob.objectID] == nil)

    let second = try #require(
      try rig.save { _ in
        try ann.setValue(41, forKey: "age")
        try bob.setValue(35, forKey: "age")
      })
    #expect(second.names(.updated) == ["Ann"] && second.names(.entered) == ["Bob"])
    #expect(second.updated[0].change(forKey: "age")?.description == "age: 40 → 41")
    #expect(second.entered[0].before["age"] == 20)

    let third = try #require(try rig.save { _ in try ann.setValue(10, forKey: "age") })
    #expect(third.names(.exited) == ["Ann"] && third.updated.isEmpty && third.entered.isEmpty)

    // A save that touches no watched object delivers nothing.
    #expect(try rig.save { _ in try ann.setValue(11, forKey: "age") } == nil)

    let fourth = try #require(
      try rig.save { context in
        try context.delete(ann)
        try context.delete(bob)
      })
    #expect(fourth.names(.deleted) == ["Bob"])
    #expect(fourth.sequenceNumber == 5)
    #expect(rig.recorder.all.map(\.sequenceNumber) == [1, 2, 3, 5])
    withExtendedLifetime(token) {}
  }

  /// An object deleted after unsaved changes is judged on the values it
  /// was last saved with: those are what the consumer last saw match.
  @Test func deletedObjectsAreJudgedOnTheirSavedValues() throws {
    let rig = Rig()
    let token = try rig.watcher.watch("Person", where: "age > 60")
    var ann: ManagedObject!
    try rig.save { context in ann = try context.insert("Person", values: ["name": "Ann", "age": 70]) }
    let changes = try #require(
      try rig.save { context in
        try ann.setValue(20, forKey: "age")
        try context.delete(ann)
      })
    #expect(changes.names(.deleted) == ["Ann"])
    #expect(changes.deleted.first?["age"] == 70)
    #expect(changes.matches(for: ann.objectID) == [WatchMatch(watch: token.id, event: .deleted)])
  }

  @Test func subEntitiesAreWatchedThroughTheirParent() throws {
    let rig = Rig()
    let people = try rig.watcher.watch("Person", where: "age > 30")
    let employees = try rig.watcher.watch("Employee", where: "salary > 10")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Employee", values: ["name": "Eve", "age": 50, "salary": 20])
        try context.insert("Person", values: ["name": "Pat", "age": 50, "salary": .null].filter { $0.key != "salary" })
      })
    #expect(changes.names(.inserted) == ["Eve", "Pat"])
    let eve = changes.inserted[0].objectID
    #expect(changes.matches[eve]?.map(\.watch) == [people.id, employees.id])
    #expect(changes.objectIDs(for: employees.id, .inserted) == [eve])
  }

  @Test func attributionNamesEveryWatchAndTheUnionIsDelivered() throws {
    let rig = Rig()
    let old = try rig.watcher.watch("Person", where: "age > 60")
    let oslo = try rig.watcher.watch("Person", where: "city == 'Oslo'")
    let either = try rig.watcher.watch("Person", where: "city IN {'Oslo', 'Rome'} OR age > 60")
    var ann: ManagedObject!
    let first = try #require(
      try rig.save { context in
        ann = try context.insert("Person", values: ["name": "Ann", "age": 70, "city": "Oslo"])
        try context.insert("Person", values: ["name": "Bob", "age": 20, "city": "Rome"])
        try context.insert("Person", values: ["name": "Cid", "age": 20, "city": "Bergen"])
      })
    #expect(first.names(.inserted) == ["Ann", "Bob"])
    #expect(first.matches[ann.objectID]?.map(\.watch) == [old.id, oslo.id, either.id])
    // Ann moves to Rome: she exits 'oslo', stays in the others.
    let second = try #require(try rig.save { _ in try ann.setValue("Rome", forKey: "city") })
    #expect(second.names(.exited) == ["Ann"] && second.names(.updated) == ["Ann"])
    #expect(
      second.matches[ann.objectID] == [
        WatchMatch(watch: old.id, event: .updated), WatchMatch(watch: oslo.id, event: .exited),
        WatchMatch(watch: either.id, event: .updated),
      ])
    let coreData = second.coreDataStyle
    #expect(coreData["updated"]?.map(\.objectID) == [ann.objectID])
    #expect(coreData["inserted"] == [] && coreData["deleted"] == [])
  }

  @Test func keyFiltersDecideWhichUpdatesCount() throws {
    let rig = Rig()
    let watched = try rig.watcher.watch(
      "Person", where: "age > 30", options: WatchOptions(events: [.updated], watchedKeys: ["city"]))
    let ignoring = try rig.watcher.watch(
      "Person", where: "age > 30", options: WatchOptions(events: [.updated], ignoredKeys: ["tags", "age"]))
    let plain = try rig.watcher.watch("Person", where: "age > 30", options: WatchOptions(events: [.updated]))
    var ann: ManagedObject!
    try rig.save { context in ann = try context.insert("Person", values: ["name": "Ann", "age": 40]) }

    func watchers(_ work: (ManagedObject) throws -> Void) throws -> [WatchID] {
      try rig.save { _ in try work(ann) }?.matches[ann.objectID]?.map(\.watch) ?? []
    }
    #expect(try watchers { try $0.setValue("Oslo", forKey: "city") } == [watched.id, ignoring.id, plain.id])
    #expect(try watchers { try $0.setValue("x", forKey: "tags") } == [plain.id])
    // `age` is ignored by the second watch, but its predicate reads it: never hidden.
    #expect(try watchers { try $0.setValue(41, forKey: "age") } == [ignoring.id, plain.id])
    // `lastSeen` is ignored by the schema for every watch.
    #expect(try watchers { try $0.setValue(5, forKey: "lastSeen") } == [])
    #expect(
      try watchers {
        try $0.setValue(6, forKey: "lastSeen")
        try $0.setValue("y", forKey: "tags")
      } == [plain.id])
  }

  @Test func eventAndInstanceFilters() throws {
    let rig = Rig()
    var ann: ManagedObject!
    try rig.save { context in ann = try context.insert("Person", values: ["name": "Ann", "age": 40]) }
    let exits = try rig.watcher.watch("Person", where: "age > 30", options: WatchOptions(events: [.exited, .deleted]))
    let onlyAnn = try rig.watcher.watch("Person", where: "age > 0", options: WatchOptions(objectIDs: [ann.objectID]))
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "Bob", "age": 50])
        try ann.setValue(20, forKey: "age")
      })
    #expect(changes.names(.inserted) == [])
    #expect(changes.names(.exited) == ["Ann"] && changes.names(.updated) == ["Ann"])
    #expect(changes.matches[ann.objectID]?.map(\.watch) == [exits.id, onlyAnn.id])
  }

  @Test func relatedObjectChangesMakeObjectsEnterAndExit() throws {
    let rig = Rig()
    let research = try rig.watcher.watch("Person", where: "department.name == 'R&D'")
    let acmeOld = try rig.watcher.watch("Company", where: "ANY employees.age > 60")
    var lab: ManagedObject!
    var ann: ManagedObject!
    var acme: ManagedObject!
    try rig.save { context in
      acme = try context.insert("Company", values: ["name": "Acme"])
      lab = try context.insert("Department", values: ["name": "Lab"])
      ann = try context.insert("Person", values: ["name": "Ann", "age": 50])
      try ann.setRelationship("department", to: lab)
      try ann.setRelationship("employer", to: acme)
    }
    let renamed = try #require(try rig.save { _ in try lab.setValue("R&D", forKey: "name") })
    #expect(renamed.names(.entered) == ["Ann"])
    #expect(renamed.entered[0].changedKeys == ["department"])
    #expect(renamed.matches[ann.objectID] == [WatchMatch(watch: research.id, event: .entered)])

    let older = try #require(try rig.save { _ in try ann.setValue(61, forKey: "age") })
    #expect(older.names(.entered) == ["Acme"])
    #expect(older.matches[acme.objectID] == [WatchMatch(watch: acmeOld.id, event: .entered)])

    let back = try #require(try rig.save { _ in try lab.setValue("Lab", forKey: "name") })
    #expect(back.names(.exited) == ["Ann"])
    // A change the predicate does not read reaches no one.
    #expect(
      try rig.save { context in
        try context.insert("Department", values: ["name": "Shop"])
      } == nil)
  }

  /// An update that changes no key its entity's watches read is matched
  /// once for both sides; a watch that reads through a relationship still
  /// sees its before and after, even when the object's own change is one
  /// nobody reads and its related object changes in the same save.
  @Test func updatesOfUnreadKeysAndOfRelatedObjectsInOneSave() throws {
    let rig = Rig()
    let older = try rig.watcher.watch("Person", where: "age > 30")
    var lab: ManagedObject!
    var ann: ManagedObject!
    var bob: ManagedObject!
    try rig.save { context in
      lab = try context.insert("Department", values: ["name": "Lab"])
      ann = try context.insert("Person", values: ["name": "Ann", "age": 50])
      bob = try context.insert("Person", values: ["name": "Bob", "age": 20])
      try ann.setRelationship("department", to: lab)
    }
    // Only attribute readers: a rename is an update for a match, nothing otherwise.
    let renamed = try #require(
      try rig.save { _ in
        try ann.setValue("Anna", forKey: "name")
        try bob.setValue("Bobby", forKey: "name")
      })
    #expect(renamed.names(.updated) == ["Anna"])
    #expect(renamed.entered.isEmpty && renamed.exited.isEmpty)
    #expect(renamed.matches[ann.objectID] == [WatchMatch(watch: older.id, event: .updated)])
    #expect(renamed.matches[bob.objectID] == nil)

    // With a relationship reader in the bucket, both sides are matched: Ann's
    // own change (`city`) is read by no watch, but her department's new
    // name makes her enter.
    let research = try rig.watcher.watch("Person", where: "department.name == 'R&D'")
    let moved = try #require(
      try rig.save { _ in
        try ann.setValue("Oslo", forKey: "city")
        try lab.setValue("R&D", forKey: "name")
      })
    #expect(
      moved.matches[ann.objectID] == [
        WatchMatch(watch: older.id, event: .updated), WatchMatch(watch: research.id, event: .entered),
      ])
  }

  /// What the unread-key shortcut must not miss: a key read only as a
  /// subscript, a change that Swift's string equality calls none but a
  /// predicate sees, and an update fed by hand whose changed keys leave a
  /// change out.
  @Test func theShortcutSeesEveryReadKey() throws {
    let rig = Rig()
    let indexed = try rig.watcher.watch("Person", where: #"{"x", "y", "z"}[age] == "y""#)
    let composed = try rig.watcher.watch("Person", where: "name == %@", .string("\u{E9}"))
    var ann: ManagedObject!
    try rig.save { context in
      ann = try context.insert("Person", values: ["name": .string("\u{E9}"), "age": 0])
    }
    // `age` is read only inside the subscript.
    let entered = try #require(try rig.save { _ in try ann.setValue(1, forKey: "age") })
    #expect(entered.matches[ann.objectID]?.contains(WatchMatch(watch: indexed.id, event: .entered)) == true)
    let exited = try #require(try rig.save { _ in try ann.setValue(2, forKey: "age") })
    #expect(exited.matches[ann.objectID]?.contains(WatchMatch(watch: indexed.id, event: .exited)) == true)

    // "e" and a combining acute: equal to Swift, a different string to a
    // predicate. `city`, which no watch reads, changes in the same save.
    let decomposed = try #require(
      try rig.save { context in
        try context.setValues(["name": .string("e\u{301}"), "city": "Oslo"], of: ann)
      })
    #expect(decomposed.matches[ann.objectID] == [WatchMatch(watch: composed.id, event: .exited)])

    // An update made by hand that names only `city`, though `age` changed too.
    let before = try #require(decomposed.updated.first?.after ?? decomposed.exited.first?.after)
    let after = try #require(
      try rig.context.run { _ in
        try ann.setValue(1, forKey: "age")
        return ann.snapshot()
      })
    let recorded = LockedState<[ContextChanges]>([])
    let fed = ContextWatcher(
      schema: WatcherFixtures.schema,
      target: .handler(on: .immediate) { changes in
        recorded.withLock { $0.append(changes) }
      })
    let handMade = try fed.watch("Person", where: #"{"x", "y", "z"}[age] == "y""#)
    fed.process(
      ContextSave(
        sequenceNumber: 1, author: nil, contextName: "by hand", inserted: [],
        updated: [ObjectUpdate(before: before, after: after, changedKeys: ["city"])], deleted: []))
    fed.flush()
    #expect(recorded.withLock { $0 }.first?.matches[ann.objectID] == [WatchMatch(watch: handMade.id, event: .entered)])
  }

  @Test func dependenciesFollowSeveralHops() throws {
    let rig = Rig()
    let acmeStaff = try rig.watcher.watch("Person", where: "department.company.name == 'Acme'")
    let acmeDepartments = try rig.watcher.watch("Department", where: "ANY members.employer.name == 'Acme'")
    var acme: ManagedObject!
    var initech: ManagedObject!
    var lab: ManagedObject!
    var ann: ManagedObject!
    try rig.save { context in
      acme = try context.insert("Company", values: ["name": "Acme"])
      initech = try context.insert("Company", values: ["name": "Initech"])
      lab = try context.insert("Department", values: ["name": "Lab"])
      ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try lab.setRelationship("company", to: initech)
      try ann.setRelationship("department", to: lab)
      try ann.setRelationship("employer", to: initech)
    }
    // The department moves to Acme: Ann, two hops away, enters.
    let moved = try #require(try rig.save { _ in try lab.setRelationship("company", to: acme) })
    #expect(moved.matches[ann.objectID] == [WatchMatch(watch: acmeStaff.id, event: .entered)])
    // Acme is renamed: Ann exits.
    let renamed = try #require(try rig.save { _ in try acme.setValue("Acme Inc", forKey: "name") })
    #expect(renamed.matches[ann.objectID] == [WatchMatch(watch: acmeStaff.id, event: .exited)])
    // Initech is renamed Acme: the department of a member employed there enters.
    let rebranded = try #require(try rig.save { _ in try initech.setValue("Acme", forKey: "name") })
    #expect(rebranded.matches[lab.objectID] == [WatchMatch(watch: acmeDepartments.id, event: .entered)])
    #expect(rebranded.matches[ann.objectID] == nil)  // her department's company is Acme Inc
  }

  @Test func explainTellsWhyClauseByClause() throws {
    let rig = Rig()
    let token = try rig.watcher.watch(
      "Person", where: "age > 60 AND (name BEGINSWITH 'A' OR city == 'Oslo')", options: WatchOptions(label: "seniors"))
    let text = try rig.context.run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
      return rig.watcher.explain(ann, for: token.id)?.description
    }
    #expect(
      text == """
        #\(try rig.context.run { try $0.objects(of: "Person")[0].objectID.rawValue }) does not match watch 'seniors'
          ✓ entity: Person is a Person
          ✗ age > 60    (age = 31)
          ✓ name BEGINSWITH "A" OR city == "Oslo"
            ✓ name BEGINSWITH "A"    (name = "Ann")
            ✗ city == "Oslo"    (city = nil)
        """)
    let company = try rig.context.run { try $0.insert("Company", values: ["name": "Acme"]).snapshot() }
    let other = rig.watcher.explain(company, for: token.id)
    #expect(other?.matches == false)
    #expect(other?.clauses.count == 1)
  }

  @Test func aWatcherCanBeFedChangeValues() throws {
    let recorder = Recorder()
    let watcher = ContextWatcher(schema: WatcherFixtures.schema, target: .delegate(recorder, on: .immediate))
    let token = try watcher.watch("Person", where: "age > 30")
    let context = WatcherFixtures.context("source")
    var saves: [ContextSave] = []
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann", "age": 40])
      saves.append(try #require(try context.save()))
    }
    for save in saves { watcher.process(save) }
    #expect(recorder.all.count == 1)
    #expect(recorder.last?.names(.inserted) == ["Ann"])
    withExtendedLifetime(token) {}
  }
}
