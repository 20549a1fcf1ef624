// Benchmarks of object monitors: what 10,000 object monitors
// on a context add to a save that changes one object.
//
// Two contexts hold the same 20,000 people; one has 10,000 object monitors
// (on people 0..<10,000), the other none. Each iteration saves a change of
// one person in each, in alternating order, and times `save()` alone (on
// the context's queue, from just before the call to its return):
//
// - "unmonitored": the changed person has no monitor. The monitors' watcher
//   classifies the save and finds nothing: the cost of having monitors.
// - "monitored": the changed person has one monitor. The save also routes
//   the change to it and enqueues its report (the report runs on the
//   monitor's queue, after the save returned; the sample waits for it,
//   outside the timing, and checks it).
//
// The difference of the medians of the two metrics is what the monitors
// add; the target is at most 1 µs for an unmonitored object.

import Benchmark
import BenchmarkSupport
import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Synchronization

/// Counts a monitor's didUpdate reports.
final class UpdateCounter: ObjectObserver {
  let count = Atomic<Int>(0)

  func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {
    count.add(1, ordering: .relaxed)
  }
}

// @unchecked Sendable: the benchmark runner runs one benchmark at a time,
// on one thread; the fixture's mutable state is touched only from there
// (and its contexts' queues, inside performAndWait, while that thread waits).
final class MonitorFixture: @unchecked Sendable {
  static let people = 20_000
  static let monitorCount = 10_000

  let plain: ObjectContext
  let watched: ObjectContext
  let plainObjects: [ObjectID]
  let watchedObjects: [ObjectID]
  let monitors: [ObjectMonitor]
  let counter = UpdateCounter()
  var round = 0

  init() {
    var generator = SeededGenerator(seed: 41)
    let values = (0..<Self.people).map { person($0, cities: 100, using: &generator) }
    func fill(_ context: ObjectContext) -> [ObjectID] {
      context.performAndWait { context in
        let ids = values.map { try! context.insert("Person", values: $0).objectID }
        try! context.save()
        return ids
      }
    }
    let plain = ObjectContext(schema: schema, name: "plain", notificationCenter: nil)
    let watched = ObjectContext(schema: schema, name: "monitored", notificationCenter: nil)
    (self.plain, self.watched) = (plain, watched)
    let (plainObjects, watchedObjects) = (fill(plain), fill(watched))
    (self.plainObjects, self.watchedObjects) = (plainObjects, watchedObjects)
    let queue = DispatchQueue(label: "ObjectMonitorBenchmarks.monitors")
    monitors = watchedObjects.prefix(Self.monitorCount).map { id in
      try! ObjectMonitor(context: watched, objectID: id, scheduler: .queue(queue))
    }
    for monitor in monitors { monitor.addObserver(counter) }
  }

  /// Saves a new score for a person of `context`; returns the time
  /// `save()` took, in nanoseconds.
  func save(_ context: ObjectContext, _ id: ObjectID, score: FilterValue) -> Int {
    context.performAndWait { context in
      try! context.setValue(score, forKey: "score", of: context.object(with: id)!)
      let start = DispatchTime.now().uptimeNanoseconds
      let save = try! context.save()
      let end = DispatchTime.now().uptimeNanoseconds
      precondition(save?.updated.count == 1)
      return Int(end - start)
    }
  }

  /// One pair of samples: the same change saved in the context without
  /// monitors and in the one with them, in alternating order.
  func sample(iteration: Int, monitored: Bool) -> (without: Int, with: Int) {
    // A different person each time: the monitored ones are 0..<10,000,
    // the others 10,000..<20,000.
    let index = (monitored ? 0 : Self.monitorCount) + iteration % Self.monitorCount
    round += 1
    let score = FilterValue.double(1_000 + Double(round))
    let before = counter.count.load(ordering: .relaxed)
    let pair: (without: Int, with: Int)
    if iteration % 2 == 0 {
      let without = save(plain, plainObjects[index], score: score)
      pair = (without, save(watched, watchedObjects[index], score: score))
    } else {
      let with = save(watched, watchedObjects[index], score: score)
      pair = (save(plain, plainObjects[index], score: score), with)
    }
    if monitored {
      monitors[index].flush()
      precondition(counter.count.load(ordering: .relaxed) == before + 1, "the monitor did not report the change")
      precondition(monitors[index].object?["score"] == score)
    } else {
      precondition(counter.count.load(ordering: .relaxed) == before, "a monitor reported another object's change")
    }
    return pair
  }
}

// nonisolated(unsafe): set up and read by the benchmarks, which the runner
// runs one at a time on one thread.
nonisolated(unsafe) var monitorFixture: MonitorFixture?

let saveWithoutMonitors = BenchmarkMetric.custom(
  "save() ns, no monitors", polarity: .prefersSmaller, useScalingFactor: false)
let saveWithMonitors = BenchmarkMetric.custom(
  "save() ns, 10,000 monitors", polarity: .prefersSmaller, useScalingFactor: false)

func registerObjectMonitorBenchmarks() {
  for monitored in [false, true] {
    Benchmark(
      "object monitors · save of one \(monitored ? "monitored" : "unmonitored") object, 10,000 monitors vs none",
      configuration: .init(
        metrics: [saveWithoutMonitors, saveWithMonitors], timeUnits: .nanoseconds,
        units: [saveWithoutMonitors: .count, saveWithMonitors: .count], warmupIterations: 100,
        maxDuration: .seconds(10), maxIterations: 20_000,
        setup: { if monitorFixture == nil { monitorFixture = MonitorFixture() } },
        teardown: { monitorFixture = nil })
    ) { benchmark in
      let (without, with) = monitorFixture!.sample(iteration: benchmark.currentIteration, monitored: monitored)
      benchmark.measurement(saveWithoutMonitors, without)
      benchmark.measurement(saveWithMonitors, with)
    }
  }
}
