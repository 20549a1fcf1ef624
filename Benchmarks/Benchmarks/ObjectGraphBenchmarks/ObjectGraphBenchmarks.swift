// Benchmarks of the object graph:
// - inserting 100,000 objects of five attributes and saving them once,
// - saving a change of one attribute on 10,000 of 100,000 saved objects,
// - fetching with a predicate from 100,000 objects, against the compiled
//   filter evaluated on the same objects in a plain loop.
// Each iteration is one batch (scaling factor one): the time shown is per
// 100,000 inserted objects, per 10,000 updates, per fetch of 100,000.
// Memory per object is measured by the ObjectGraphMemory executable.
//
// Figures and the commands that reproduce them: docs/benchmarks.md.

import Benchmark
import BenchmarkSupport
import Foundation
import ObjectGraph
import PredicateDSL

let objectCount = 100_000
let updateCount = 10_000

let schema = BenchmarkSchemas.datedPeople

/// Names of at most 15 UTF-8 bytes, which Swift stores inline in the
/// string (no heap allocation), so the values are exactly five
/// `FilterValue`s.
let names = ["Alice", "Albert", "Anna", "Ariane", "Bob", "Alexandre", "Amelie", "Aaron", "Caroline", "Ada"]

/// The attribute values of `count` people, as `insert(_:values:)` takes them.
func people(_ count: Int, seed: UInt64 = 42) -> [[String: FilterValue]] {
  var generator = SeededGenerator(seed: seed)
  return (0..<count).map { _ in
    [
      "name": .string(names[Int(generator.next() % UInt64(names.count))]),
      "age": .int(Int64.random(in: 18...80, using: &generator)),
      "score": .double(Double.random(in: 0...100, using: &generator)),
      "active": .bool(generator.next() % 10 != 0),
      "born": .date(secondsSinceReferenceDate: Double.random(in: -1e9...7e8, using: &generator)),
    ]
  }
}

/// Inserts `values` as people and saves them once; checks that the save
/// reports every one.
@discardableResult
func insertAndSave(_ values: [[String: FilterValue]], into context: ObjectContext) -> [ManagedObject] {
  context.performAndWait { context in
    var objects: [ManagedObject] = []
    objects.reserveCapacity(values.count)
    for person in values { objects.append(try! context.insert("Person", values: person)) }
    let save = try! context.save()
    precondition(save?.inserted.count == values.count, "save reported \(save?.inserted.count ?? 0) inserts")
    return objects
  }
}

/// Holds state built outside the measured region. Everything in it is used
/// only on its context's queue (inside `performAndWait`).
final class Fixture: @unchecked Sendable {
  let context: ObjectContext
  let objects: [ManagedObject]
  /// How many update rounds ran, so that each round sets a new value.
  var rounds = 0

  init(_ values: [[String: FilterValue]]) {
    context = ObjectContext(schema: schema, name: "benchmark", notificationCenter: nil)
    objects = insertAndSave(values, into: context)
  }
}

// MARK: Fetch versus compiled filter

let predicate = #"age > 40 AND name BEGINSWITH "A""#

/// 100,000 saved people, the fetch request and the compiled filter, with
/// the match count that both must find.
final class FetchFixture: @unchecked Sendable {
  let fixture = Fixture(people(objectCount))
  let request = try! ObjectFetchRequest(entity: "Person", predicate: predicate)
  let filter = try! schema.filter(predicate, for: "Person")
  let expected: Int

  init() {
    let (fixture, request, filter) = (self.fixture, self.request, self.filter)
    let (fetched, compiled, handWritten) = fixture.context.performAndWait { context in
      let fetched = try! context.fetch(request).count
      let compiled = try! filter.filter(context.objects(of: "Person")).count
      let handWritten = fixture.objects.count { object in
        guard case .int(let age)? = object["age"], case .string(let name)? = object["name"] else { return false }
        return age > 40 && name.hasPrefix("A")
      }
      return (fetched, compiled, handWritten)
    }
    precondition(
      fetched == compiled && compiled == handWritten,
      "fetch \(fetched), compiled \(compiled), hand-written \(handWritten)")
    precondition(fetched > 0 && fetched < objectCount, "\(fetched) matches")
    expected = fetched
  }
}

nonisolated(unsafe) var fetchFixture: FetchFixture?
nonisolated(unsafe) var updateFixture: Fixture?

/// Objects per second for a batch of `count` objects that took `duration`.
let objectsPerSecond = BenchmarkMetric.custom("objects/s", polarity: .prefersLarger, useScalingFactor: false)
/// A fetch's time in percent of the compiled filter's, timed back to back.
let fetchPercent = BenchmarkMetric.custom(
  "fetch time, % of compiled", polarity: .prefersSmaller, useScalingFactor: false)

func perSecond(_ count: Int, _ duration: Duration) -> Int {
  let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  return Int((Double(count) / seconds).rounded())
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal, objectsPerSecond],
    timeUnits: .microseconds,
    warmupIterations: 2,
    scalingFactor: .one,
    maxDuration: .seconds(5),
    maxIterations: 50
  )

  // One batch per iteration: a new context, 100,000 inserts, one save. The
  // values are built before timing; the context is freed after it.
  let batch = people(objectCount)
  Benchmark("insert+save 100k") { benchmark in
    let context = ObjectContext(schema: schema, name: "benchmark", notificationCenter: nil)
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    let saved = context.performAndWait { context in
      for person in batch { try! context.insert("Person", values: person) }
      return try! context.save()?.inserted.count
    }
    let elapsed = start.duration(to: clock.now)
    benchmark.stopMeasurement()
    precondition(saved == objectCount, "saved \(saved ?? 0) objects")
    benchmark.measurement(objectsPerSecond, perSecond(objectCount, elapsed))
    blackHole(context)
  }

  // The same, with each object's dictionary of values built in the loop,
  // as a caller that does not have them already would.
  Benchmark("insert+save 100k, values built in the loop") { benchmark in
    let context = ObjectContext(schema: schema, name: "benchmark", notificationCenter: nil)
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    let saved = context.performAndWait { context in
      for index in 0..<objectCount {
        try! context.insert(
          "Person",
          values: [
            "name": .string(names[index % names.count]), "age": .int(Int64(18 + index % 63)),
            "score": .double(Double(index % 1_000) / 10), "active": .bool(index % 10 != 0),
            "born": .date(secondsSinceReferenceDate: Double(index) * 1_000),
          ])
      }
      return try! context.save()?.inserted.count
    }
    let elapsed = start.duration(to: clock.now)
    benchmark.stopMeasurement()
    precondition(saved == objectCount, "saved \(saved ?? 0) objects")
    benchmark.measurement(objectsPerSecond, perSecond(objectCount, elapsed))
    blackHole(context)
  }

  // 100,000 people saved once in setup; each iteration gives every tenth
  // one a new score (a value it never had) and saves the 10,000 updates.
  Benchmark(
    "save updating 10k of 100k",
    configuration: .init(
      setup: { updateFixture = Fixture(people(objectCount, seed: 7)) },
      teardown: { updateFixture = nil })
  ) { benchmark in
    let fixture = updateFixture!
    fixture.rounds += 1
    let score = FilterValue.double(1_000 + Double(fixture.rounds))
    let clock = ContinuousClock()
    let start = clock.now
    let updated = fixture.context.performAndWait { context in
      for index in stride(from: 0, to: objectCount, by: objectCount / updateCount) {
        try! context.setValue(score, forKey: "score", of: fixture.objects[index])
      }
      let save = try! context.save()
      precondition(
        save?.updated.first?.changedKeys == ["score"] && save?.updated.last?.changedKeys == ["score"],
        "unexpected changes")
      return save?.updated.count
    }
    let elapsed = start.duration(to: clock.now)
    precondition(updated == updateCount, "saved \(updated ?? 0) updates")
    benchmark.measurement(objectsPerSecond, perSecond(updateCount, elapsed))
  }

  // The same predicate on the same 100,000 saved people: through a fetch
  // (compiles the predicate, walks the entity's members, collects the
  // matches), and through the compiled filter in a plain loop.
  let fetchConfiguration = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .mallocCountTotal, objectsPerSecond],
    timeUnits: .microseconds, warmupIterations: 3, maxDuration: .seconds(3), maxIterations: 200,
    setup: { if fetchFixture == nil { fetchFixture = FetchFixture() } })

  Benchmark("fetch 100k with predicate", configuration: fetchConfiguration) { benchmark in
    let fixture = fetchFixture!
    let clock = ContinuousClock()
    let start = clock.now
    let count = fixture.fixture.context.performAndWait { context in
      try! context.fetch(fixture.request).count
    }
    let elapsed = start.duration(to: clock.now)
    precondition(count == fixture.expected, "fetch found \(count), expected \(fixture.expected)")
    benchmark.measurement(objectsPerSecond, perSecond(objectCount, elapsed))
  }

  Benchmark("compiled filter over the same 100k objects", configuration: fetchConfiguration) { benchmark in
    let fixture = fetchFixture!
    let clock = ContinuousClock()
    let start = clock.now
    let count = fixture.fixture.context.performAndWait { _ in
      var count = 0
      for object in fixture.fixture.objects where try! fixture.filter.evaluate(object) { count += 1 }
      return count
    }
    let elapsed = start.duration(to: clock.now)
    precondition(count == fixture.expected, "compiled filter found \(count), expected \(fixture.expected)")
    benchmark.measurement(objectsPerSecond, perSecond(objectCount, elapsed))
  }

  // Both, back to back in each iteration (in alternating order), so that
  // the machine's load, which varies between benchmarks on a shared VM,
  // weighs on both alike: the metric is the fetch's time in percent of the
  // compiled filter's, pair by pair.
  var pairedConfiguration = fetchConfiguration
  pairedConfiguration.metrics = [.wallClock, fetchPercent]
  Benchmark("fetch ÷ compiled filter, paired", configuration: pairedConfiguration) { benchmark in
    let fixture = fetchFixture!
    let clock = ContinuousClock()
    func fetch() -> Duration {
      let start = clock.now
      let count = fixture.fixture.context.performAndWait { context in try! context.fetch(fixture.request).count }
      let elapsed = start.duration(to: clock.now)
      precondition(count == fixture.expected, "fetch found \(count), expected \(fixture.expected)")
      return elapsed
    }
    func compiled() -> Duration {
      let start = clock.now
      let count = fixture.fixture.context.performAndWait { _ in
        var count = 0
        for object in fixture.fixture.objects where try! fixture.filter.evaluate(object) { count += 1 }
        return count
      }
      let elapsed = start.duration(to: clock.now)
      precondition(count == fixture.expected, "compiled filter found \(count), expected \(fixture.expected)")
      return elapsed
    }
    let (fetched, evaluated): (Duration, Duration)
    if benchmark.currentIteration % 2 == 0 {
      fetched = fetch()
      evaluated = compiled()
    } else {
      evaluated = compiled()
      fetched = fetch()
    }
    benchmark.measurement(fetchPercent, Int((fetched / evaluated * 100).rounded()))
  }

  // The loop above, collecting the matches into an array as a fetch does.
  Benchmark("compiled filter over the same 100k objects, collecting matches", configuration: fetchConfiguration) {
    benchmark in
    let fixture = fetchFixture!
    let clock = ContinuousClock()
    let start = clock.now
    let count = fixture.fixture.context.performAndWait { _ in
      var matches: [ManagedObject] = []
      for object in fixture.fixture.objects where try! fixture.filter.evaluate(object) { matches.append(object) }
      return matches.count
    }
    let elapsed = start.duration(to: clock.now)
    precondition(count == fixture.expected, "compiled filter found \(count), expected \(fixture.expected)")
    benchmark.measurement(objectsPerSecond, perSecond(objectCount, elapsed))
  }
}
