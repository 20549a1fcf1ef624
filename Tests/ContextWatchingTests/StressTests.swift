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

  struct OracleWatch: Sendable {
    var id: WatchID
    var filter: CompiledFilter<ObjectSnapshot>
    var ignored: Set<String>
  }

  /// Checks each delivery against the oracle's answer for its save as soon
  /// as both are at hand, then forgets both: what a run keeps is bounded by
  /// how far deliveries lag behind saves, not by the number of saves (a
  /// delivery to thousands of watches holds thousands of matches).
  final class Checker: ContextWatcherDelegate, Sendable {
    struct State {
      /// The watches registered before the saves: the only ones the
      /// oracle knows (others come and go during the run).
      var stable: Set<WatchID> = []
      /// The oracle's matches of saves whose delivery has not arrived.
      var expected: [Int: [ObjectID: [WatchMatch]]] = [:]
      /// Deliveries (their matches of stable watches) whose save the oracle
      /// has not answered yet.
      var delivered: [Int: [ObjectID: [WatchMatch]]] = [:]
      var lastSave = 0
      var lastDelivery = 0
      var savesInOrder = true
      var deliveriesInOrder = true
      var mismatches: [Int] = []
      var failures = 0
      var oracleErrors = 0
      var checkedMatches = 0
    }

    let state = LockedState(State())

    /// The oracle's answer for a save, given on the saving thread.
    func saw(_ save: ContextSave, expected: [ObjectID: [WatchMatch]]) {
      state.withLock { state in
        state.savesInOrder = state.savesInOrder && save.sequenceNumber == state.lastSave + 1
        state.lastSave = save.sequenceNumber
        state.checkedMatches += expected.values.map(\.count).reduce(0, +)
        if let actual = state.delivered.removeValue(forKey: save.sequenceNumber) {
          if actual != expected { state.mismatches.append(save.sequenceNumber) }
        } else if !expected.isEmpty {
          state.expected[save.sequenceNumber] = expected
        } else {
          // No match: a delivery, if one comes, must be empty of stable
          // watches; mark the save answered.
          state.expected[save.sequenceNumber] = [:]
        }
      }
    }

    func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
      let matches = changes.matches
      state.withLock { state in
        var actual: [ObjectID: [WatchMatch]] = [:]
        for (id, matches) in matches {
          let kept = matches.filter { state.stable.contains($0.watch) }
          if !kept.isEmpty { actual[id] = kept }
        }
        state.deliveriesInOrder = state.deliveriesInOrder && changes.sequenceNumber > state.lastDelivery
        state.lastDelivery = changes.sequenceNumber
        state.failures += changes.failures.count
        if let expected = state.expected.removeValue(forKey: changes.sequenceNumber) {
          if actual != expected { state.mismatches.append(changes.sequenceNumber) }
        } else {
          state.delivered[changes.sequenceNumber] = actual
        }
      }
    }
  }

  /// The workload's size: small in the suite, any size by Scripts/stress.sh.
  static let scale = StressScale.current

  @Test(.timeLimit(.minutes(scale == .small ? 2 : 24 * 60)))
  func concurrentSavesAgreeWithTheOracle() async throws {
    let seed = SeededGenerator.seed(default: 0x5EED_CAFE)
    var random = SeededGenerator(seed: seed)
    let context = WatcherFixtures.context("stress")

    // Deliveries are checked as they come and may lag behind the saves:
    // a buffer that never drops, so that each save is delivered once.
    let check = Checker()
    let watcher = ContextWatcher(
      context: context, target: .delegate(check, on: .queue(DispatchQueue(label: "stress"))),
      options: WatcherOptions(bufferLimit: 1 << 24))

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
    let stableOracle = oracle
    check.state.withLock { $0.stable = Set(stableOracle.map(\.id)) }
    // The oracle answers each save on the saving thread (registered after
    // the watcher: same save, same order), while its delivery may have
    // arrived already; the checker compares whichever comes second.
    let log = context.addSaveObserver { save in
      do {
        check.saw(save, expected: try Self.oracle(save, stableOracle))
      } catch {
        check.state.withLock { $0.oracleErrors += 1 }
      }
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

    let result = check.state.withLock { $0 }
    #expect(result.lastSave == threads * savesPerThread && result.savesInOrder)
    // Exactly once, in save order; a save without a delivery must have
    // expected no match.
    #expect(result.deliveriesInOrder, "seed \(seed)")
    #expect(result.delivered.isEmpty, "deliveries for saves the oracle never saw, seed \(seed)")
    let undelivered = result.expected.filter { !$0.value.isEmpty }.keys.sorted()
    #expect(undelivered.isEmpty, "saves \(undelivered.prefix(10)) matched but were never delivered, seed \(seed)")
    #expect(
      result.mismatches.isEmpty, "saves \(result.mismatches.prefix(10)), seed \(seed) (replay with CONTEXTWATCHER_SEED)"
    )
    #expect(result.failures == 0 && result.oracleErrors == 0)
    #expect(result.checkedMatches > 1_000, "the workload should exercise the watches")
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
