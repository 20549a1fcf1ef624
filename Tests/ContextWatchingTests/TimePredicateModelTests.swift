import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@testable import ContextWatching

/// Random saves and clock moves against a model that re-evaluates every
/// object at every step: after each step, what each watch delivered (as a
/// set of matching objects) must be what the model finds.
@Suite("Watcher: time-relative predicates against a model")
struct TimePredicateModelTests {
  struct Values {
    var due: Double?
    var snooze: Double?
    var done: Bool
  }

  typealias Model = @Sendable (Values, Double) -> Bool

  static let watches: [(String, Model)] = [
    ("dueDate < now()", { values, now in values.due.map { $0 < now } ?? false }),
    (
      "dueDate <= now() + 10 AND done == NO",
      { values, now in (values.due.map { $0 <= now + 10 } ?? false) && !values.done }
    ),
    (
      "NOT (dueDate > now() - 5) OR done == YES",
      { values, now in !(values.due.map { $0 > now - 5 } ?? false) || values.done }
    ),
    (
      "dueDate == now() - 0.3 OR 0.1 + now() > snoozedUntil",
      { values, now in (values.due.map { $0 == now - 0.3 } ?? false) || (values.snooze.map { now + 0.1 > $0 } ?? false)
      }
    ),
    (
      "snoozedUntil >= now() AND now() + 2.5 > dueDate",
      { values, now in (values.snooze.map { $0 >= now } ?? false) && (values.due.map { now + 2.5 > $0 } ?? false) }
    ),
    ("dueDate != now()", { values, now in values.due.map { $0 != now } ?? true }),
  ]

  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func deliveriesFollowTheModel(seed fallback: UInt64) throws {
    let seed = SeededGenerator.seed(default: fallback)
    var random = SeededGenerator(seed: seed)
    let rig = TimedRig(now: 0)
    var tokens: [WatchToken] = []
    // Half the runs add the watches after some objects exist.
    let watchFirst = random.chance(0.5)
    var live: [ObjectID: Values] = [:]
    func randomDate() -> Double? {
      random.chance(0.15) ? nil : Double(Int.random(in: 0..<400, using: &random)) * 0.1
    }
    func randomValues() -> Values { Values(due: randomDate(), snooze: randomDate(), done: random.chance(0.3)) }
    func fields(_ values: Values) -> [String: FilterValue] {
      [
        "dueDate": values.due.map(date) ?? .null, "snoozedUntil": values.snooze.map(date) ?? .null,
        "done": .bool(values.done),
      ]
    }
    func addWatches() throws {
      for (format, _) in Self.watches { tokens.append(try rig.watcher.watch("Task", where: format)) }
      rig.settle()
    }
    if watchFirst { try addWatches() }
    for _ in 0..<5 {
      let values = randomValues()
      let id = try rig.save { try $0.insert("Task", values: ["name": "t"].merging(fields(values)) { $1 }).objectID }
      live[id] = values
    }
    if !watchFirst { try addWatches() }
    // What the deliveries say each watch holds; seeded with the model at
    // the start when the watches came after the objects.
    var held: [Set<ObjectID>] = Self.watches.map { _, model in
      watchFirst ? [] : Set(live.filter { model($0.value, rig.clock.now) }.keys)
    }
    if watchFirst {
      held = Self.watches.map { _, model in Set(live.filter { model($0.value, rig.clock.now) }.keys) }
    }
    var seen = rig.recorder.all.count

    for step in 0..<250 {
      let choice = Int.random(in: 0..<10, using: &random)
      var description = ""
      if choice < 4 {
        var moves: [String] = []
        try rig.context.run { context in
          for _ in 0..<Int.random(in: 1...3, using: &random) {
            let action = Int.random(in: 0..<4, using: &random)
            if action == 0 || live.isEmpty {
              let values = randomValues()
              let object = try context.insert("Task", values: ["name": "t"].merging(fields(values)) { $1 })
              live[object.objectID] = values
              moves.append("insert \(object.objectID) \(values)")
            } else if action == 3 {
              let id = random.pick(live.keys.sorted())
              try context.delete(context.object(with: id)!)
              live[id] = nil
              moves.append("delete \(id)")
            } else {
              let id = random.pick(live.keys.sorted())
              let values = randomValues()
              try context.setValues(fields(values), of: context.object(with: id)!)
              live[id] = values
              moves.append("update \(id) \(values)")
            }
          }
          try context.save()
        }
        rig.settle()
        description = moves.joined(separator: "; ")
      } else {
        let now = rig.clock.now
        var target: Double
        if random.chance(0.5), !live.isEmpty, let due = live[random.pick(live.keys.sorted())]?.due {
          // Onto a threshold, or just next to it.
          target = random.pick([due, due - 10, due + 5, due + 0.3, due - 2.5, due.nextUp, due - 0.1])
          target = random.chance(0.3) ? target.nextUp : target
        } else {
          target = now + random.pick([0, 0.05, 0.1, 0.3, 1, 2.5, 7, 0.7])
        }
        target = max(now, target)
        description = "advance to \(target)"
        _ = rig.advance(to: target)
      }
      let deliveries = rig.recorder.all.dropFirst(seen)
      seen = rig.recorder.all.count
      for changes in deliveries {
        if changes.cause == .timePassed {
          #expect(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty)
        }
        for attribution in changes.attribution {
          for match in attribution.matches {
            guard let position = tokens.firstIndex(where: { $0.id == match.watch }) else { continue }
            switch match.event {
            case .inserted, .entered, .updated: held[position].insert(attribution.objectID)
            case .exited, .deleted: held[position].remove(attribution.objectID)
            }
          }
        }
      }
      let now = rig.clock.now
      for (position, (format, model)) in Self.watches.enumerated() {
        let expected = Set(live.filter { model($0.value, now) }.keys)
        #expect(
          held[position] == expected,
          "seed \(seed), step \(step) (\(description)), at \(now), watch '\(format)': delivered \(held[position].sorted()), model \(expected.sorted())"
        )
        if held[position] != expected { return }
      }
    }
    withExtendedLifetime(tokens) {}
  }

  // MARK: Internals

  @Test func theCrossingQueueKeepsHeapOrderUnderRandomUpdates() throws {
    var random = SeededGenerator(seed: SeededGenerator.seed(default: 7))
    let context = ObjectContext(schema: TimedFixtures.schema, name: "q", notificationCenter: nil)
    let snapshots = try context.run { context in
      try (0..<64).map { _ in try context.insert("Task", values: ["name": "x"]).snapshot() }
    }
    var queue = CrossingQueue()
    var model: [ObjectID: Double] = [:]
    for _ in 0..<3000 {
      let snapshot = random.pick(snapshots)
      if random.chance(0.2) {
        queue.remove(snapshot.objectID)
        model[snapshot.objectID] = nil
      } else if random.chance(0.1), let first = queue.first {
        let popped = queue.popDue(at: first.time)
        #expect(popped?.time == model.values.min())
        model[popped!.objectID] = nil
      } else {
        let time = random.chance(0.1) ? nil : Double(Int.random(in: 0..<50, using: &random))
        queue.set(snapshot, crossingAt: time)
        model[snapshot.objectID] = time
      }
      #expect(queue.isValid)
      #expect(queue.count == model.count)
      #expect(queue.first?.time == model.values.min())
    }
  }

  @Test(arguments: [0, 0.1, -0.3, 2.5, 300, -300, 1e-9, 7.7])
  func theFirstTimeOfAThresholdIsExactUnderRounding(offset: Double) {
    var random = SeededGenerator(seed: SeededGenerator.seed(default: 11))
    let near = [0, 0.1, 1e-300, -0.1, Double.leastNonzeroMagnitude, 0.3, 10]
    for index in 0..<500 {
      let value =
        index < near.count
        ? near[index] : Double(Int.random(in: -100_000...100_000, using: &random)) * 0.01 + 800_000_000
      for strictly in [false, true] {
        let time = TimedPredicate.firstTime(offset, reaching: value, strictly: strictly)
        let reached = { (x: Double) in strictly ? x + offset > value : x + offset >= value }
        #expect(reached(time))
        #expect(!reached(time.nextDown))
      }
    }
  }
}
