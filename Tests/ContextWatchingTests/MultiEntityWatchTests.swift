import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import Testing

/// Watches of several entities, and of every entity (KSCoreDataObserver's
/// registrations): one watch, validated for each entity it names.
@Suite("Watcher: watches of several entities")
struct MultiEntityWatchTests {
  @Test func oneWatchReportsObjectsOfEachEntityItNames() throws {
    let rig = Rig()
    let named = try rig.watcher.watch(["Person", "Company"], where: "name BEGINSWITH %@", "A")
    #expect(rig.watcher.watchCount == 1)
    #expect(rig.watcher.label(of: named.id) == "Person, Company name BEGINSWITH %@")
    let changes = try #require(
      try rig.save { context in
        for (entity, name) in [
          ("Person", "Ann"), ("Employee", "Abe"), ("Company", "Acme"), ("Company", "Bolt"), ("Department", "Alpha"),
        ] {
          try context.insert(entity, values: ["name": .string(name)])
        }
      })
    #expect(changes.names(.inserted) == ["Ann", "Abe", "Acme"])
    #expect(changes.attribution.allSatisfy { $0.matches.map(\.watch) == [named.id] })
    // Updates and deletes too, whichever entity.
    let renamed = try #require(
      try rig.save { context in
        for company in try context.objects(of: "Company") { try company.setValue("Axis", forKey: "name") }
      })
    #expect(renamed.names(.updated) == ["Axis"] && renamed.names(.entered) == ["Axis"])
    #expect(renamed.attribution.map { $0.matches.map(\.watch) } == [[named.id], [named.id]])
  }

  /// An entity below another one named is covered by it: its objects are
  /// reported once.
  @Test func anEntityBelowANamedOneIsCoveredByIt() throws {
    let rig = Rig()
    let token = try rig.watcher.watch(["Employee", "Person", "Person"], where: "TRUEPREDICATE")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Employee", values: ["name": "Abe"])
      })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[token.id]])
  }

  /// The predicate and options must fit every entity named: the first
  /// that does not is named in the error, and nothing is added (not even
  /// a number: the next watch is the watcher's first).
  @Test func aWatchThatDoesNotFitOneEntityIsRefusedWhole() throws {
    let rig = Rig()
    let error = try #require(throws: WatchError.self) {
      try rig.watcher.watch(["Person", "Department"], where: "age > 3")
    }
    #expect(error.code == .unknownKey)
    #expect(error.entity == "Department")
    #expect(error.watch == "Person, Department age > 3")
    let keys = try #require(throws: WatchError.self) {
      try rig.watcher.watch(["Person", "Company"], where: "TRUEPREDICATE", options: WatchOptions(watchedKeys: ["age"]))
    }
    #expect(keys.code == .unknownKey && keys.entity == "Company")
    let unknown = try #require(throws: WatchError.self) {
      try rig.watcher.watch(["Person", "Robot"], where: "TRUEPREDICATE")
    }
    #expect(unknown.code == .unknownEntity && unknown.entity == "Robot")
    let empty = try #require(throws: WatchError.self) { try rig.watcher.watch([], where: "TRUEPREDICATE") }
    #expect(empty.code == .invalidOptions)
    let parse = try #require(throws: WatchError.self) { try rig.watcher.watch(["Person"], where: "age >") }
    #expect(parse.code == .invalidPredicate)
    #expect(rig.watcher.watchCount == 0)
    let first = try rig.watcher.watch("Person", where: "age > 3")
    #expect(first.id.number == 1)
    // Nothing of the refused watches matches.
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "Ann", "age": 5])
        try context.insert("Department", values: ["name": "Lab"])
      })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[first.id]])
  }

  /// Every entity, with a per-object handler: every object of the save, in
  /// identifier order, whatever its entity.
  @Test func aWatchOfEveryEntity() throws {
    let rig = Rig()
    let calls = LockedState<[String]>([])
    let everything = try rig.watcher.watchEveryEntity(
      where: "TRUEPREDICATE",
      handler: .eachObject { object, event, _ in calls.withLock { $0.append("\(event) \(object.entityName)") } })
    #expect(rig.watcher.watchCount == 1)
    #expect(rig.watcher.label(of: everything.id) == "every entity TRUEPREDICATE")
    let changes = try #require(
      try rig.save { context in
        let acme = try context.insert("Company", values: ["name": "Acme"])
        let lab = try context.insert("Department", values: ["name": "Lab"])
        try context.insert("Employee", values: ["name": "Abe"])
        try lab.setRelationship("company", to: acme)
      })
    #expect(changes.inserted.count == 3)
    #expect(calls.withLock { $0 } == ["inserted Company", "inserted Department", "inserted Employee"])
    // A predicate one entity cannot take is refused for every entity.
    let error = try #require(throws: WatchError.self) { try rig.watcher.watchEveryEntity(where: "age > 1") }
    #expect(error.code == .unknownKey)
    #expect(error.watch == "every entity age > 1")
  }

  /// Cancelling the watch removes it for every entity; the slots are
  /// reused by later watches without mixing them up.
  @Test func cancellingRemovesEveryEntitysPart() throws {
    let rig = Rig()
    let named = try rig.watcher.watch(["Person", "Company", "Department"], where: "name == 'X'")
    named.cancel()
    #expect(rig.watcher.watchCount == 0)
    let people = try rig.watcher.watch("Person", where: "name == 'X'")
    let companies = try rig.watcher.watch("Company", where: "name == 'X'")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "X"])
        try context.insert("Company", values: ["name": "X"])
        try context.insert("Department", values: ["name": "X"])
      })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[people.id], [companies.id]])
    #expect(rig.watcher.label(of: named.id) == nil)
  }

  /// `explain` judges an object with the part of the watch for its
  /// entity.
  @Test func explainUsesTheObjectsEntity() throws {
    let rig = Rig()
    let named = try rig.watcher.watch(["Person", "Company"], where: "name == 'Acme'")
    let acme = try rig.context.run { context in
      try context.insert("Company", values: ["name": "Acme"]).snapshot()
    }
    let explanation = try #require(rig.watcher.explain(acme, for: named.id))
    #expect(explanation.matches)
    #expect(explanation.watch == named.id)
  }

  /// A handler of a watch of several entities gets the objects of each in
  /// one call per save.
  @Test func aHandlerGetsEachEntitysObjectsInOneCall() throws {
    let rig = Rig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watcher.watch(
      ["Person", "Company"], where: "name BEGINSWITH 'A'",
      handler: .changes { changes in received.withLock { $0.append(changes) } })
    try rig.save { context in
      try context.insert("Company", values: ["name": "Acme"])
      try context.insert("Person", values: ["name": "Ann"])
    }
    #expect(received.withLock { $0 }.map { $0.inserted.map(\.entityName) } == [["Company", "Person"]])
    #expect(received.withLock { $0 }.first?.watch == token.id)
  }
}
