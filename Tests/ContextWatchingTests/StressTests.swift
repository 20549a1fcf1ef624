import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Several threads save into one context while thousands of watches look on
/// and other watches come and go; every delivery is checked against a
/// sequential oracle that evaluates each watch's predicate naively on the
/// save's snapshots.
@Suite("Watcher: stress against an oracle")
struct StressTests {
  struct Template: Sendable {
    var format: String
    var reads: Set<String>
    var arguments: @Sendable (inout SeededGenerator) -> [FilterValue]
  }

  static let cities: [FilterValue] = ["Oslo", "Rome", "Lima", "Kyiv", "Pune"]
  static let templates: [Template] = [
    Template(format: "age > %@", reads: ["age"]) { [.int(Int64.random(in: 0...90, using: &$0))] },
    Template(format: "city == %@", reads: ["city"]) { [$0.pick(cities)] },
    Template(format: "age BETWEEN {%@, %@}", reads: ["age"]) {
      let low = Int64.random(in: 0...60, using: &$0)
      return [.int(low), .int(low + 20)]
    },
    Template(format: "city IN {%@, %@} AND age < %@", reads: ["city", "age"]) {
      [$0.pick(cities), $0.pick(cities), .int(Int64.random(in: 10...90, using: &$0))]
    },
    Template(format: "name BEGINSWITH %@", reads: ["name"]) { [$0.pick(["A", "B", "C"])] },
    Template(format: "lastSeen > %@ OR city == nil", reads: ["lastSeen", "city"]) {
      [.int(Int64.random(in: 0...100, using: &$0))]
    },
  ]

  struct OracleWatch {
    var id: WatchID
    var filter: CompiledFilter<ObjectSnapshot>
    var ignored: Set<String>
  }

  /// The workload's size: small in the suite, any size by Scripts/stress.sh.
  static let scale = StressScale.current

  @Test(.timeLimit(.minutes(scale == .small ? 2 : 24 * 60)))
  func concurrentSavesAgreeWithTheOracle() async throws {
    let seed = SeededGenerator.seed(default: 0x5EED_CAFE)
    var random = SeededGenerator(seed: seed)
    let context = WatcherFixtures.context("stress")
    let saves = LockedState<[ContextSave]>([])
    let recorder = Recorder()
    let watcher = ContextWatcher(
      context: context, target: .delegate(recorder, on: .queue(DispatchQueue(label: "stress"))))
    // The oracle's copy of every save, in order (registered after the watcher: same save, same order).
    let log = context.addSaveObserver { save in saves.withLock { $0.append(save) } }

    var tokens: [WatchToken] = []
    var oracle: [OracleWatch] = []
    for _ in 0..<Self.scale.watches {
      let template = random.pick(Self.templates)
      let arguments = template.arguments(&random)
      tokens.append(try watcher.watch("Person", where: template.format, arguments: arguments))
      oracle.append(
        OracleWatch(
          id: tokens.last!.id,
          filter: try WatcherFixtures.schema.snapshotFilter(template.format, arguments: arguments, for: "Person"),
          ignored: Set(["lastSeen"]).subtracting(template.reads)))
    }

    let threads = Self.scale.threads
    let savesPerThread = Self.scale.saves / threads
    try await withThrowingTaskGroup(of: Void.self) { group in
      for thread in 0..<threads {
        let threadSeed = seed &+ UInt64(thread) &+ 1
        group.addTask {
          var random = SeededGenerator(seed: threadSeed)
          for _ in 0..<savesPerThread {
            let plan = (0..<6).map { _ in (Int.random(in: 0..<10, using: &random), random.next()) }
            try context.performAndWait { context in
              var rng = SeededGenerator(seed: plan[0].1)
              let people = try context.objects(of: "Person")
              for (action, _) in plan {
                switch action {
                case 0...3:
                  try context.insert(
                    rng.chance(0.3) ? "Employee" : "Person",
                    values: [
                      "name": rng.pick(["Ann", "Bob", "Cid", "Abe"]),
                      "age": .int(Int64.random(in: 0...90, using: &rng)),
                      "city": rng.chance(0.2) ? .null : rng.pick(Self.cities),
                    ])
                case 4...7 where !people.isEmpty:
                  let person = rng.pick(people)
                  guard !person.isDeleted else { continue }
                  switch Int.random(in: 0..<4, using: &rng) {
                  case 0: try person.setValue(.int(Int64.random(in: 0...90, using: &rng)), forKey: "age")
                  case 1: try person.setValue(rng.pick(Self.cities), forKey: "city")
                  case 2: try person.setValue(.int(Int64.random(in: 0...100, using: &rng)), forKey: "lastSeen")
                  default: try person.setValue(rng.pick(["Ann", "Bob", "Cid", "Abe"]), forKey: "name")
                  }
                case 8...9 where !people.isEmpty:
                  let person = rng.pick(people)
                  if !person.isDeleted { try context.delete(person) }
                default:
                  break
                }
              }
              try context.save()
            }
          }
        }
      }
      // Watches come and go while the saves run.
      group.addTask {
        var random = SeededGenerator(seed: seed &+ 99)
        var churn: [WatchToken] = []
        for round in 0..<Self.scale.churn {
          let template = random.pick(Self.templates)
          churn.append(try watcher.watch("Person", where: template.format, arguments: template.arguments(&random)))
          if round % 3 == 0, !churn.isEmpty { churn.remove(at: Int.random(in: 0..<churn.count, using: &random)) }
        }
      }
      try await group.waitForAll()
    }
    await watcher.flush()

    let recorded = saves.withLock { $0 }
    let deliveries = recorder.all
    #expect(recorded.map(\.sequenceNumber) == Array(1...(threads * savesPerThread)))
    // Exactly once, in save order.
    let numbers = deliveries.map(\.sequenceNumber)
    #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "seed \(seed)")
    let bySave = Dictionary(uniqueKeysWithValues: deliveries.map { ($0.sequenceNumber, $0) })
    let stable = Set(oracle.map(\.id))
    var checkedMatches = 0
    for save in recorded {
      let expected = try Self.oracle(save, oracle)
      var actual: [ObjectID: [WatchMatch]] = [:]
      for (id, matches) in bySave[save.sequenceNumber]?.matches ?? [:] {
        let kept = matches.filter { stable.contains($0.watch) }
        if !kept.isEmpty { actual[id] = kept }
      }
      #expect(actual == expected, "save \(save.sequenceNumber), seed \(seed) (replay with CONTEXTWATCHER_SEED)")
      checkedMatches += expected.values.map(\.count).reduce(0, +)
      #expect(bySave[save.sequenceNumber]?.failures.isEmpty ?? true)
    }
    #expect(checkedMatches > 1_000, "the workload should exercise the watches")
    withExtendedLifetime((tokens, log)) {}
  }

  static func oracle(_ save: ContextSave, _ watches: [OracleWatch]) throws -> [ObjectID: [WatchMatch]] {
    var result: [ObjectID: [WatchMatch]] = [:]
    func add(_ id: ObjectID, _ watch: WatchID, _ event: WatchEvent) {
      result[id, default: []].append(WatchMatch(watch: watch, event: event))
    }
    for watch in watches {
      for snapshot in save.inserted where try watch.filter.evaluate(snapshot) {
        add(snapshot.objectID, watch.id, .inserted)
      }
      for update in save.updated {
        let (was, now) = (try watch.filter.evaluate(update.before), try watch.filter.evaluate(update.after))
        if was && now {
          if update.changedKeys.contains(where: { !watch.ignored.contains($0) }) {
            add(update.objectID, watch.id, .updated)
          }
        } else if now {
          add(update.objectID, watch.id, .entered)
        } else if was {
          add(update.objectID, watch.id, .exited)
        }
      }
      for snapshot in save.deleted where try watch.filter.evaluate(snapshot) {
        add(snapshot.objectID, watch.id, .deleted)
      }
    }
    return result.mapValues { $0.sorted { $0.watch < $1.watch } }
  }
}
