import ContextWatching
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// The master filter's indexes must never change what matches: for edge
/// values and many shapes of indexable conjuncts, what the watcher reports
/// equals evaluating each predicate directly.
@Suite("Watcher: indexes agree with direct evaluation")
struct IndexTests {
  static let formats = [
    "age > 30", "age >= 30", "age < 30", "age <= 30", "30 < age", "30.5 <= age", "age > 29.5",
    "age BETWEEN {20, 30}", "age BETWEEN {30, 20}", "age > 30 AND city == 'Oslo'", "city == 'Oslo' AND age < 40",
    "age == 30", "age == 30.0", "age IN {1, 30, 45}", "city IN {'Oslo', 'Rome'}", "city == nil", "age == nil",
    "age > 30 OR city == 'Rome'", "NOT age > 30", "age != 30", "age > -1", "age < 1e3",
    // Composite: an equality narrowed by a range; a repeated key filed once.
    "city == 'Oslo' AND age BETWEEN {10, 40}", "city IN {'Oslo', 'Oslo'} AND age > 10",
    "city IN {'Oslo', 'Rome'} AND age <= 30 AND name BEGINSWITH 'P'",
    // A nil element of IN matches nothing (IN is false for a nil value).
    "city IN {nil, 'Oslo'}", "age IN {nil}",
    // Constants on the left: turned around where the index can be used.
    "'Oslo' == city", "30 == age", "40 > age", "30 >= age AND 'Oslo' == city", "'Os' IN city",
    // Constant predicates and conjuncts: nothing left beside the index (the
    // shared TRUEPREDICATE), or nothing indexed at all.
    "TRUEPREDICATE", "FALSEPREDICATE", "city == 'Oslo' AND TRUEPREDICATE", "TRUEPREDICATE AND age > 30",
    "city == 'Oslo' AND FALSEPREDICATE",
    // Residuals of several conjuncts around the indexed ones, in any order.
    "name BEGINSWITH 'P' AND city == 'Oslo' AND age > 10 AND name ENDSWITH '0'",
    "age > 10 AND age < 90 AND city == 'Rome'", "age < 90 AND name != 'P1' AND age >= 20",
  ]
  static let ages: [FilterValue] = [nil, 0, 20, 29, 30, 31, 40, 45, 100, -5]

  @Test func everyIndexedShapeMatchesLikeItsPredicate() throws {
    let rig = Rig()
    var tokens: [(WatchID, CompiledFilter<ObjectSnapshot>)] = []
    var holders: [WatchToken] = []
    for format in Self.formats {
      let token = try rig.watcher.watch("Person", where: format)
      holders.append(token)
      tokens.append((token.id, try WatcherFixtures.schema.snapshotFilter(format, for: "Person")))
    }
    // Churn: add and remove many range watches so that stale entries are dropped and slots reused.
    for round in 0..<100 {
      let token = try rig.watcher.watch("Person", where: "age > %d", .int(Int64(round)))
      token.cancel()
    }
    let changes = try #require(
      try rig.save { context in
        for (index, age) in Self.ages.enumerated() {
          try context.insert(
            index % 2 == 0 ? "Person" : "Employee",
            values: [
              "name": .string("P\(index)"), "age": age,
              "city": index % 3 == 0 ? "Oslo" : (index % 3 == 1 ? "Rome" : FilterValue.null),
            ])
        }
      })
    for snapshot in changes.inserted {
      let expected: [WatchID] = try tokens.filter { try $0.1.evaluate(snapshot) }.map { $0.0 }
      let actual: [WatchID] = changes.matches[snapshot.objectID]?.map { $0.watch } ?? []
      #expect(actual == expected, "age \(snapshot["age"] ?? .null), city \(snapshot["city"] ?? .null)")
    }
    let all = try rig.context.run { try $0.objects(of: "Person").map { $0.snapshot() } }
    let unmatched = try all.filter { snapshot in try tokens.allSatisfy { try !$0.1.evaluate(snapshot) } }
    #expect(changes.inserted.count == all.count - unmatched.count)

    // Updates across the bounds: before and after both go through the indexes.
    let updates = try #require(
      try rig.save { context in
        for (index, person) in try context.objects(of: "Person").enumerated() {
          try person.setValue(Self.ages[(index + 3) % Self.ages.count], forKey: "age")
        }
      })
    for update in updates.updated + updates.entered + updates.exited {
      for (id, filter) in tokens {
        let (was, now) = (try filter.evaluate(update.before), try filter.evaluate(update.after))
        let event: WatchEvent? = was && now ? .updated : (now ? .entered : (was ? .exited : nil))
        let reported = updates.matches[update.objectID]?.first { $0.watch == id }?.event
        #expect(reported == event, "\(update.before["age"] ?? .null) → \(update.after["age"] ?? .null)")
      }
    }
    withExtendedLifetime(holders) {}
  }

  /// Random ranges of every width (integer and double bounds, narrow, wide,
  /// empty, one-sided) against random values: the range index reports what
  /// the predicates say.
  @Test func randomRangesAgreeWithTheirPredicates() throws {
    let seed = SeededGenerator.seed(default: 0xB0_0D5)
    var random = SeededGenerator(seed: seed)
    let rig = Rig()
    var watches: [(WatchID, CompiledFilter<ObjectSnapshot>)] = []
    var holders: [WatchToken] = []
    func bound(_ random: inout SeededGenerator) -> FilterValue {
      let magnitude = [1.0, 10, 1_000, 1e6, 1e12].randomElement(using: &random)!
      let value = Double.random(in: -magnitude...magnitude, using: &random)
      return Bool.random(using: &random) ? .int(Int64(value)) : .double(value.rounded() / 2)
    }
    for _ in 0..<400 {
      let (a, b) = (bound(&random), bound(&random))
      let format = random.pick(["age BETWEEN {%@, %@}", "age > %@ AND age <= %@", "age >= %@", "age < %@"])
      let arguments = format.contains("{") || format.contains("AND") ? [a, b] : [a]
      let token = try rig.watcher.watch("Person", where: format, arguments: arguments)
      holders.append(token)
      watches.append((token.id, try WatcherFixtures.schema.snapshotFilter(format, arguments: arguments, for: "Person")))
    }
    let changes = try #require(
      try rig.save { context in
        for index in 0..<200 {
          let value = bound(&random)
          let age: FilterValue = if case .double(let number) = value { .int(Int64(number)) } else { value }
          try context.insert("Person", values: ["name": .string("P\(index)"), "age": age])
        }
      })
    let (people, checked) = try Self.compare(watches, with: changes, in: rig, seed: seed)
    #expect(people == 200)
    #expect(checked > 1_000)
    withExtendedLifetime(holders) {}
  }

  /// Compares what a save reported for every person in the context,
  /// delivered or not (a missed match would leave one out), with each
  /// watch's predicate evaluated directly; returns how many people and
  /// matches were compared.
  static func compare(
    _ watches: [(WatchID, CompiledFilter<ObjectSnapshot>)], with changes: ContextChanges, in rig: Rig, seed: UInt64
  ) throws -> (people: Int, matches: Int) {
    let everyone = try rig.context.run { try $0.objects(of: "Person").map { $0.snapshot() } }
    var checked = 0
    for snapshot in everyone {
      let expected = try watches.filter { try $0.1.evaluate(snapshot) }.map { $0.0 }.sorted()
      #expect(changes.matches[snapshot.objectID]?.map { $0.watch } ?? [] == expected, "seed \(seed)")
      checked += expected.count
    }
    return (everyone.count, checked)
  }

  /// A range index whose watches are all gone is dropped; watches added
  /// afterwards start a new one and only they are reported.
  @Test func rangeIndexesEmptiedAndRefilled() throws {
    let rig = Rig()
    for bound in Int64(10)...Int64(60) {
      try rig.watcher.watch("Person", where: "age > %d", .int(bound)).cancel()
    }
    let fresh = try rig.watcher.watch("Person", where: "age < 30")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "Young", "age": 20])
        try context.insert("Person", values: ["name": "Old", "age": 70])
      })
    #expect(changes.names(.inserted) == ["Young"])
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[fresh.id]])
    #expect(rig.watcher.watchCount == 1)
  }

  /// The same under one key of a composite index, whose range indexes are
  /// kept sorted as each watch comes (moved into place) and exact as each
  /// goes (removed at once), with and without a residual to evaluate.
  /// Run twice: with the residual watches there when saving (candidates
  /// tested), and with them cancelled first (candidates collected).
  @Test(arguments: [false, true])
  func randomCompositeRangesAgreeWithTheirPredicates(cancellingResiduals: Bool) throws {
    let seed = SeededGenerator.seed(default: 0xC0_4D5)
    var random = SeededGenerator(seed: seed)
    let rig = Rig()
    var watches: [(WatchID, CompiledFilter<ObjectSnapshot>)] = []
    var holders: [WatchToken] = []
    var residuals: Set<WatchID> = []
    for round in 0..<400 {
      let (a, b) = (Int64.random(in: 0...100, using: &random), Int64.random(in: 0...100, using: &random))
      let shape = random.pick(["age BETWEEN {%@, %@}", "age > %@ AND age <= %@", "age >= %@", "age < %@", "age > %@"])
      // A third have more to their predicate than the key and the range (a
      // residual): the key's candidates are then tested, else collected as
      // matches. Cancellations move keys between the two.
      let residual = round % 3 == 0
      let format = "city == 'Oslo' AND " + shape + (residual ? " AND name ENDSWITH %@" : "")
      var arguments: [FilterValue] = shape.contains("{") || shape.contains("AND") ? [.int(a), .int(b)] : [.int(a)]
      if residual { arguments.append(.string(String(Int.random(in: 0...9, using: &random)))) }
      let token = try rig.watcher.watch("Person", where: format, arguments: arguments)
      if round % 4 == 3, let victim = holders.indices.randomElement(using: &random) {
        // Cancel an earlier one, anywhere in its list.
        holders.remove(at: victim).cancel()
        watches.remove(at: victim)
      }
      holders.append(token)
      watches.append((token.id, try WatcherFixtures.schema.snapshotFilter(format, arguments: arguments, for: "Person")))
      if residual { residuals.insert(token.id) }
    }
    if cancellingResiduals {
      for token in holders where residuals.contains(token.id) { token.cancel() }
      holders.removeAll { residuals.contains($0.id) }
      watches.removeAll { residuals.contains($0.0) }
      #expect(watches.count > 150)
    }
    let changes = try #require(
      try rig.save { context in
        for index in 0..<200 {
          let city: FilterValue = index % 5 == 0 ? "Rome" : "Oslo"
          try context.insert(
            "Person", values: ["name": .string("P\(index)"), "city": city, "age": .int(Int64(index % 103))])
        }
      })
    let (_, checked) = try Self.compare(watches, with: changes, in: rig, seed: seed)
    #expect(checked > 1_000)
  }

  /// A few removed range watches stay in the range index as stale entries
  /// until enough accumulate: until then, lookups must skip them, on both
  /// sides of a bound and at the bound itself.
  @Test func removedRangeWatchesAreNeverReported() throws {
    let rig = Rig()
    var kept: [Int64: WatchToken] = [:]
    for bound in Int64(20)...Int64(40) {
      let lower = try rig.watcher.watch("Person", where: "age >= %d", .int(bound))
      let upper = try rig.watcher.watch("Person", where: "age < %d", .int(bound))
      if bound % 3 == 0 {
        // Fewer removals than the index tolerates before it drops them.
        lower.cancel()
        upper.cancel()
      } else {
        kept[bound] = lower
        kept[-bound] = upper
      }
    }
    let changes = try #require(
      try rig.save { context in
        for age in [19, 21, 30, 33, 41] as [Int64] {
          try context.insert("Person", values: ["name": .string("P\(age)"), "age": .int(age)])
        }
      })
    for snapshot in changes.inserted {
      guard case .int(let age)? = snapshot["age"] else {
        Issue.record("no age")
        continue
      }
      let expected = kept.filter { bound, _ in bound > 0 ? age >= bound : age < -bound }.map(\.value.id).sorted()
      let actual = changes.matches[snapshot.objectID]?.map(\.watch) ?? []
      #expect(actual == expected, "age \(age)")
    }
    #expect(changes.inserted.count == 5)
  }

  /// The index keys strings by code units, as the predicates compare them:
  /// canonically equivalent spellings are different strings.
  @Test func equalityIndexComparesStringsByCodeUnits() throws {
    let rig = Rig()
    let composed = try rig.watcher.watch("Person", where: "city == %@", "Caf\u{E9}")
    let listed = try rig.watcher.watch("Person", where: "city IN {'x', %@}", "Cafe\u{301}")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "A", "city": "Caf\u{E9}"])
        try context.insert("Person", values: ["name": "B", "city": "Cafe\u{301}"])
      })
    #expect(changes.names(.inserted) == ["A", "B"])
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[composed.id], [listed.id]])
  }

  /// Watches under one key narrowed by different attributes: each range
  /// index keeps working as the others come and go, whichever was first.
  @Test func compositeKeysNarrowedByTwoAttributes() throws {
    let rig = Rig()
    let byAge = try rig.watcher.watch("Person", where: "city == 'Oslo' AND age > 30")
    let bySeen = try rig.watcher.watch("Person", where: "city == 'Oslo' AND lastSeen < 100")
    let alsoByAge = try rig.watcher.watch("Person", where: "city == 'Oslo' AND age <= 50")
    func matched() throws -> [String: [WatchID]] {
      let changes = try #require(
        try rig.save { context in
          try context.insert("Person", values: ["name": "Young", "city": "Oslo", "age": 20, "lastSeen": 50])
          try context.insert("Person", values: ["name": "Old", "city": "Oslo", "age": 40, "lastSeen": 500])
          try context.insert("Person", values: ["name": "Away", "city": "Rome", "age": 40, "lastSeen": 50])
        })
      return Dictionary(
        uniqueKeysWithValues: zip(changes.names(.inserted), changes.attribution.map { $0.matches.map(\.watch) }))
    }
    #expect(try matched() == ["Young": [bySeen.id, alsoByAge.id], "Old": [byAge.id, alsoByAge.id]])
    byAge.cancel()
    alsoByAge.cancel()
    #expect(try matched() == ["Young": [bySeen.id]])
    let again = try rig.watcher.watch("Person", where: "city == 'Oslo' AND age > 30")
    bySeen.cancel()
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "Older", "city": "Oslo", "age": 60, "lastSeen": 5])
      })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[again.id]])
  }

  /// Strings of up to seven UTF-8 bytes are keyed by their packed bytes,
  /// longer ones by a hash: around the boundary, prefixes, a NUL byte and
  /// the empty string, each value reaches exactly the watch on it.
  @Test func shortAndLongStringKeysReachOnlyTheirOwnWatches() throws {
    let rig = Rig()
    let cities = ["", "O", "Oslo", "Oslo\u{0}", "Abcdefg", "Abcdefgh", "Abcdefgi", "Abcdefg\u{E9}", "Tromsø"]
    var tokens: [WatchToken] = []
    for city in cities { tokens.append(try rig.watcher.watch("Person", where: "city == %@", .string(city))) }
    let changes = try #require(
      try rig.save { context in
        for (number, city) in cities.enumerated() {
          try context.insert("Person", values: ["name": .string("P\(number)"), "city": .string(city)])
        }
        try context.insert("Person", values: ["name": "Q", "city": "Osl"])
      })
    #expect(changes.names(.inserted) == cities.indices.map { "P\($0)" })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == tokens.map { [$0.id] })
  }

  /// Integers beyond 2^53 round when the range index picks where to start a
  /// scan; the slack must still reach a range as narrow as one value.
  @Test func rangesOfLargeIntegersAreFound() throws {
    let rig = Rig()
    let large: Int64 = (1 << 62) + 600
    let exact = try rig.watcher.watch("Person", where: "age BETWEEN {%@, %@}", .int(large), .int(large))
    let wide = try rig.watcher.watch("Person", where: "age BETWEEN {%@, %@}", .int(large - 5_000), .int(large + 1))
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": "Big", "age": .int(large)])
        try context.insert("Person", values: ["name": "Next", "age": .int(large + 1)])
      })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[exact.id, wide.id], [wide.id]])
  }
}
