// How long a `DispatchQueue.async` hop takes on this machine, by how long
// the queue's worker thread has been idle: the floor under the watcher's
// save-to-delegate latency (issue #5), which no library code can lower;
// and the watcher's save-to-delegate latency measured the same way, so that
// the two can be compared at equal idle times.
//
//   swift run -c release HopProbe            # the hop alone
//   swift run -c release HopProbe watcher    # the hop, then the watcher's cases
//
// Each hop sample takes a timestamp, then enqueues a block that stores its
// own timestamp into an atomic the caller spins on (so the caller is never
// the one woken); the sample is the difference. The queue is a serial queue
// that targets another serial queue, as the watcher's delivery queue
// targets the delegate's. Between samples the caller sleeps for the gap, so
// the worker may go idle. 50 warm-up samples, then 3,000 (500 for the
// longest gap).
//
// A watcher sample does what the latency benchmark's does: it sets a new
// `score` (read by no watch) on the changed people, takes a timestamp just
// before `save()`, and spins until the delegate, on a DispatchQueue, stores
// its own timestamp first thing; then `flush()`, then the gap. Case (a): 100
// people, 10 `city == %@ AND age > %@` watches, the first person that
// matches one changes. Case (b): 10,000 people, 10,000 watches on 1,000
// cities, every 100th person changes. Figures: docs/benchmarks.md.

import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import Synchronization
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The p0, p50, p90 and p99 of samples taken with `gap` µs of sleep after
/// each.
func percentiles(gap: UInt32, samples: Int, _ sample: () -> UInt64) -> [UInt64] {
  var latencies: [UInt64] = []
  latencies.reserveCapacity(samples)
  for index in 0..<(samples + 50) {
    let latency = sample()
    if index >= 50 { latencies.append(latency) }
    if gap > 0 { usleep(gap) }
  }
  latencies.sort()
  return [0, 50, 90, 99].map { latencies[min(latencies.count - 1, latencies.count * $0 / 100)] }
}

func report(_ label: String, gap: UInt32, _ figures: [UInt64]) {
  let micros = figures.map { "\($0 / 1_000).\($0 % 1_000 / 100)" }
  print("\(label) | \(gap) | " + micros.joined(separator: " | "))
}

// MARK: The hop alone

let received = Atomic<UInt64>(0)
let delegateQueue = DispatchQueue(label: "delegate")
let deliveryQueue = DispatchQueue(label: "delivery", target: delegateQueue)

func hop() -> UInt64 {
  received.store(0, ordering: .relaxed)
  let start = DispatchTime.now().uptimeNanoseconds
  deliveryQueue.async { received.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
  var end: UInt64 = 0
  repeat { end = received.load(ordering: .acquiring) } while end == 0
  return end - start
}

// MARK: The watcher

/// Stores when its delivery starts, first thing.
final class Probe: ContextWatcherDelegate, Sendable {
  let arrival = Atomic<UInt64>(0)
  func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
    arrival.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
  }
}

/// A context of saved people watched by a watcher that delivers to a
/// delegate on a DispatchQueue.
final class Fixture {
  let context: ObjectContext
  let watcher: ContextWatcher
  let probe = Probe()
  let tokens: [WatchToken]
  let changed: [ManagedObject]
  var round = 0

  init(people: Int, changed changedCount: Int, watches: Int, cities: Int) {
    let schema = try! ObjectSchema([
      EntityDescription(
        "Person",
        attributes: [.init("name", .string), .init("city", .string), .init("age", .integer), .init("score", .double)])
    ])
    var generator = SeededGenerator(seed: 23)
    let context = ObjectContext(schema: schema, name: "probe", notificationCenter: nil)
    let watcher = ContextWatcher(context: context, target: .delegate(probe, on: .queue(DispatchQueue(label: "probe"))))
    (self.context, self.watcher) = (context, watcher)
    var thresholds: [(city: Int, age: Int64)] = []
    tokens = (0..<watches).map { index in
      let age = Int64.random(in: 18...69, using: &generator)
      thresholds.append((index % cities, age))
      return try! watcher.watch("Person", where: "city == %@ AND age > %@", .string("C\(index % cities)"), .int(age))
    }
    let objects = context.performAndWait { context in
      let objects = (0..<people).map { index in
        let city = Int.random(in: 0..<cities, using: &generator)
        let age = Int64.random(in: 18...80, using: &generator)
        return (
          try! context.insert(
            "Person", values: ["name": .string("P\(index)"), "city": .string("C\(city)"), "age": .int(age), "score": 0]),
          thresholds.contains { $0.city == city && age > $0.age }
        )
      }
      try! context.save()
      return objects
    }
    watcher.flush()
    changed =
      changedCount == 1
      ? [objects.first { $0.1 }!.0] : stride(from: 0, to: people, by: people / changedCount).map { objects[$0].0 }
  }

  /// One sample: save → the delegate's first statement, in nanoseconds.
  func sample() -> UInt64 {
    round += 1
    probe.arrival.store(0, ordering: .relaxed)
    let score = FilterValue.double(Double(round))
    let (context, changed) = (self.context, self.changed)
    let start = context.performAndWait { context in
      for object in changed { try! context.setValue(score, forKey: "score", of: object) }
      let start = DispatchTime.now().uptimeNanoseconds
      try! context.save()
      return start
    }
    var arrival: UInt64 = 0
    repeat { arrival = probe.arrival.load(ordering: .acquiring) } while arrival == 0
    watcher.flush()
    return arrival - start
  }
}

// MARK: Main

let withWatcher = CommandLine.arguments.dropFirst().first == "watcher"
print("case | idle gap (µs) | p0 | p50 | p90 | p99 (µs)")
for gap: UInt32 in withWatcher ? [20, 100, 1_000] : [0, 20, 100, 1_000, 10_000] {
  report("hop", gap: gap, percentiles(gap: gap, samples: gap >= 10_000 ? 500 : 3_000, hop))
}
if withWatcher {
  for (label, people, changed, watches, cities) in [
    ("(a) 1 object, 10 watches", 100, 1, 10, 10), ("(b) 100 objects, 10,000 watches", 10_000, 100, 10_000, 1_000),
  ] {
    let fixture = Fixture(people: people, changed: changed, watches: watches, cities: cities)
    for gap: UInt32 in [20, 100, 1_000] {
      report(label, gap: gap, percentiles(gap: gap, samples: 3_000, fixture.sample))
    }
    withExtendedLifetime(fixture.tokens) {}
  }
}
