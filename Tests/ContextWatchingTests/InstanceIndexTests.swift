import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Watches that name their objects (`WatchOptions.objectIDs`) are matched
/// through the instance index: what the watcher reports must equal
/// evaluating every watch directly on every object of every save.
@Suite("Watcher: the instance index agrees with direct evaluation")
struct InstanceIndexTests {
  /// One watch as the reference evaluates it.
  struct Reference {
    let id: WatchID
    let filter: CompiledFilter<ObjectSnapshot>
    let objectIDs: Set<ObjectID>?
    let events: WatchEvents

    /// What this watch sees of one object of a save, by direct evaluation.
    func event(inserted: ObjectSnapshot) throws -> WatchEvent? {
      try admits(inserted) && filter.evaluate(inserted) ? report(.inserted) : nil
    }

    func event(deleted: ObjectSnapshot) throws -> WatchEvent? {
      try admits(deleted) && filter.evaluate(deleted) ? report(.deleted) : nil
    }

    func event(updated update: ObjectUpdate) throws -> WatchEvent? {
      guard admits(update.after) else { return nil }
      let (was, now) = (try filter.evaluate(update.before), try filter.evaluate(update.after))
      return was && now ? report(.updated) : now ? report(.entered) : was ? report(.exited) : nil
    }

    private func admits(_ snapshot: ObjectSnapshot) -> Bool {
      snapshot.isKind(of: "Person") && (objectIDs?.contains(snapshot.objectID) ?? true)
    }

    private func report(_ event: WatchEvent) -> WatchEvent? { events.contains(WatchEvents(event)) ? event : nil }
  }

  /// Saves of a context, recorded: inserts, updates of indexed and other
  /// attributes, deletes, people and employees.
  static func recordedSaves(random: inout SeededGenerator) throws -> (saves: [ContextSave], ids: [ObjectID]) {
    let context = WatcherFixtures.context()
    let saves = LockedState<[ContextSave]>([])
    let observation = context.addSaveObserver { save in saves.withLock { $0.append(save) } }
    let ages: [FilterValue] = [nil, 0, 20, 29, 30, 31, 40, 45, 100]
    let cities: [FilterValue] = [nil, "Oslo", "Rome", "Paris"]
    var ids: [ObjectID] = []
    try context.run { context in
      for index in 0..<80 {
        let object = try context.insert(
          index % 3 == 0 ? "Employee" : "Person",
          values: ["name": .string("P\(index)"), "age": random.pick(ages), "city": random.pick(cities)])
        ids.append(object.objectID)
      }
      ids.append(try context.insert("Company", values: ["name": "Acme"]).objectID)
      try context.save()
      for round in 0..<30 {
        let people = try context.objects(of: "Person")
        for person in people where Int.random(in: 0..<4, using: &random) == 0 {
          try person.setValue(random.pick(ages), forKey: "age")
          if Bool.random(using: &random) { try person.setValue(random.pick(cities), forKey: "city") }
          if Int.random(in: 0..<5, using: &random) == 0 {
            try person.setValue(.string("Q\(round)"), forKey: "name")
          }
        }
        for person in people where Int.random(in: 0..<40, using: &random) == 0 { try context.delete(person) }
        for index in 0..<Int.random(in: 0...3, using: &random) {
          let object = try context.insert(
            "Person",
            values: ["name": .string("N\(round).\(index)"), "age": random.pick(ages), "city": random.pick(cities)])
          ids.append(object.objectID)
        }
        try context.save()
      }
    }
    withExtendedLifetime(observation) {}
    return (saves.withLock { $0 }, ids)
  }

  @Test func instanceWatchesMatchLikeTheirPredicatesOnTheirObjects() throws {
    let seed = SeededGenerator.seed(default: 0x1D5)
    var random = SeededGenerator(seed: seed)
    let (saves, ids) = try Self.recordedSaves(random: &random)
    let delivered = LockedState<[Int: ContextChanges]>([:])
    let watcher = ContextWatcher(
      schema: WatcherFixtures.schema,
      target: .handler(on: .immediate) { changes in delivered.withLock { $0[changes.sequenceNumber] = changes } })
    var references: [Reference] = []
    var tokens: [WatchToken] = []
    // Not in any save: an instance watch of it never matches.
    let stranger = ObjectID(rawValue: .max)
    for round in 0..<600 {
      let format = random.pick(IndexTests.formats)
      var options = WatchOptions()
      // Most name one to three objects (a company, or no object at all,
      // now and then); a few name none, and are matched as before.
      if round % 10 != 0 {
        var named: Set<ObjectID> = []
        for _ in 0..<Int.random(in: 1...3, using: &random) { named.insert(random.pick(ids)) }
        if round % 50 == 1 { named.insert(stranger) }
        options.objectIDs = round % 97 == 5 ? [] : named
      }
      if round % 7 == 3 { options.events = [.entered, .exited, .deleted] }
      let token = try watcher.watch("Person", where: format, options: options)
      let filter = try WatcherFixtures.schema.snapshotFilter(format, for: "Person")
      let reference = Reference(id: token.id, filter: filter, objectIDs: options.objectIDs, events: options.events)
      // Churn: some go, so that entries leave the index and slots are
      // reused.
      if round % 5 == 4 {
        token.cancel()
      } else {
        tokens.append(token)
        references.append(reference)
      }
    }
    var compared = 0
    for save in saves {
      watcher.process(save)
      let changes = delivered.withLock { $0[save.sequenceNumber] }
      func check(_ objectID: ObjectID, _ expected: [WatchMatch]) {
        let reported = changes?.matches(for: objectID) ?? []
        #expect(reported == expected, "save \(save.sequenceNumber), \(objectID), seed \(seed)")
        compared += expected.count
      }
      for snapshot in save.inserted {
        check(
          snapshot.objectID,
          try references.compactMap { reference in
            try reference.event(inserted: snapshot).map { WatchMatch(watch: reference.id, event: $0) }
          })
      }
      for update in save.updated {
        check(
          update.objectID,
          try references.compactMap { reference in
            try reference.event(updated: update).map { WatchMatch(watch: reference.id, event: $0) }
          })
      }
      for snapshot in save.deleted {
        check(
          snapshot.objectID,
          try references.compactMap { reference in
            try reference.event(deleted: snapshot).map { WatchMatch(watch: reference.id, event: $0) }
          })
      }
    }
    #expect(compared > 500)
    withExtendedLifetime(tokens) {}
  }

  /// 10,000 watches of one object each: a save of one object reports its
  /// own watches, and a cancelled watch leaves the index.
  @Test func manyWatchesOfOneObjectEach() throws {
    let rig = Rig()
    let ids = try rig.context.run { context in
      let ids = try (0..<10_000).map { index in
        try context.insert("Person", values: ["name": .string("P\(index)"), "age": 1]).objectID
      }
      try context.save()
      return ids
    }
    var tokens = try ids.map { id in
      try rig.watcher.watch("Person", where: "TRUEPREDICATE", options: WatchOptions(objectIDs: [id]))
    }
    let second = try rig.watcher.watch("Person", where: "age > 1", options: WatchOptions(objectIDs: [ids[7]]))
    let changes = try #require(
      try rig.save { context in
        try context.object(with: ids[7])!.setValue(2, forKey: "age")
      })
    #expect(
      changes.matches(for: ids[7]) == [
        WatchMatch(watch: tokens[7].id, event: .updated), WatchMatch(watch: second.id, event: .entered),
      ])
    tokens[7].cancel()
    let next = try #require(
      try rig.save { context in
        try context.object(with: ids[7])!.setValue(3, forKey: "age")
        try context.object(with: ids[8])!.setValue(3, forKey: "age")
      })
    #expect(next.attribution.map(\.objectID) == [ids[7], ids[8]])
    #expect(next.matches(for: ids[7]) == [WatchMatch(watch: second.id, event: .updated)])
    #expect(next.matches(for: ids[8]) == [WatchMatch(watch: tokens[8].id, event: .updated)])
    tokens.removeAll()
    #expect(try rig.save { context in try context.object(with: ids[8])!.setValue(4, forKey: "age") } == nil)
    #expect(rig.watcher.watchCount == 1)
  }
}
