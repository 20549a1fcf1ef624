// What a save costs a ListMonitor, and what the list costs in memory.
//
//   swift run -c release --package-path Benchmarks ListMonitorTiming        # 1,000 and 100,000
//   swift run -c release --package-path Benchmarks ListMonitorTiming 10000  # other sizes
//   ListMonitorTiming --saves-only 100000 1000  # 1,000 monitored saves alone, for a profiler
//   ListMonitorTiming --cities 20 100000        # 20 cities (sections) instead of 50
//   ListMonitorTiming --unsectioned 100000      # the same list without sections
//
// For each size n: a context holds n people (50 cities unless --cities
// says otherwise, random scores); a list monitor lists all of them,
// sectioned by city (unless --unsectioned) and sorted by city then
// score, delivering at once (the `.immediate` scheduler, so that a save
// returns after the list's changes were computed and delivered). Each round
// saves 10 changed people: 5 get a new score (they move within their city),
// 5 a new name (updated in place). Three ways of following the same kind of
// save are timed, round after round in turn, so that the machine's noise
// falls on each alike:
//
//   monitor   the save with the monitor attached, minus
//   plain     the same kind of save on a twin context with no monitor
//             (what the monitor adds is their difference);
//   refetch   on the plain context, after its save: a fetch sorted as the
//             list, and `CollectionDifference` from the previous fetch's
//             identifiers (what one writes without a monitor).
//
// In two phases: first saves back to back (monitor, plain, monitor, ...: a
// service saving steadily, the list's upper levels in the caches), then
// each round with a refetch, whose walk of the twin's n people leaves the
// next monitored save with cold caches (the list read from memory).
//
// Prints the medians of each phase, the monitor's cost per changed object,
// its growth between the sizes, and the ratio of refetching to it. Then the
// heap bytes
// a monitor of 100,000 objects holds per listed object (glibc's mallinfo2,
// before and after creating the monitor: the snapshots share the objects'
// storage, so this is the list, its index and the monitor's watch).
//
// Every round checks its result: the monitor delivered at most 10 moves and
// updates (a person can be picked twice), and the refetch's difference holds
// at most 10 changes.

import BenchmarkSupport
import ContextWatching
import Dispatch
import Foundation
import MallocInfo
import ObjectGraph
import PredicateDSL
import Synchronization

let schema = BenchmarkSchemas.cityPeople

let arguments = Array(CommandLine.arguments.dropFirst())
/// The value after `flag` on the command line, if any.
func option(_ flag: String) -> Int? {
  arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
}
let cityCount = option("--cities") ?? 50
let isSectioned = !arguments.contains("--unsectioned")

func populate(_ count: Int) -> (ObjectContext, [ManagedObject]) {
  let context = ObjectContext(schema: schema, name: "people", notificationCenter: nil)
  var random = SeededGenerator(seed: 42)
  let people = try! context.performAndWait { context in
    let people = try (0..<count).map { index in
      try context.insert(
        "Person",
        values: [
          "name": .string("p\(index)"), "city": .string("C\(index % cityCount)"), "age": .int(Int64(index % 90)),
          "score": .double(Double.random(in: 0..<1_000, using: &random)),
        ])
    }
    _ = try context.save()
    return people
  }
  return (context, people)
}

let request = ListRequest(
  "Person", sortedBy: [.ascending("city"), .ascending("score")], sectionedBy: isSectioned ? "city" : nil)
let sortKeys: [ObjectFetchRequest.SortKey] = [.ascending("city"), .ascending("score")]

/// Changes 10 people of `people` and saves: 5 scores, 5 names.
func saveTenChanges(_ context: ObjectContext, _ people: [ManagedObject], round: Int, random: inout SeededGenerator) {
  try! context.performAndWait { context in
    for index in 0..<10 {
      let person = people[Int.random(in: 0..<people.count, using: &random)]
      if index < 5 {
        try person.setValue(.double(Double.random(in: 0..<1_000, using: &random)), forKey: "score")
      } else {
        try person.setValue(.string("r\(round)-\(index)"), forKey: "name")
      }
    }
    _ = try context.save()
  }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [UInt64]) -> Double {
  let sorted = values.sorted()
  return Double(sorted[sorted.count / 2])
}

struct Result {
  /// Saves back to back.
  var monitor: Double
  var plain: Double
  /// Each save after a refetch.
  var coldMonitor: Double
  var coldPlain: Double
  var refetch: Double

  /// What the monitor adds to a save, in nanoseconds.
  var added: Double { monitor - plain }
  var coldAdded: Double { coldMonitor - coldPlain }
}

func measure(_ count: Int, rounds: Int) -> Result {
  let (watched, watchedPeople) = populate(count)
  let (plain, plainPeople) = populate(count)
  let monitor = try! ListMonitor(context: watched, request: request, scheduler: .immediate)
  let delivered = Mutex<(moves: Int, updates: Int)>((0, 0))
  let token = monitor.observe { update in
    delivered.withLock { $0 = (update.changes.moved.count, update.changes.updated.count) }
  }
  var random = SeededGenerator(seed: 7)
  var plainRandom = SeededGenerator(seed: 7)
  var round = 0
  /// The monitored save, then the plain one, each timed.
  func saveBoth() -> (monitor: UInt64, plain: UInt64) {
    round += 1
    var start = now()
    saveTenChanges(watched, watchedPeople, round: round, random: &random)
    let monitor = now() - start
    let (moves, updates) = delivered.withLock { $0 }
    precondition((1...10).contains(moves + updates), "delivered \(moves) moves, \(updates) updates")
    start = now()
    saveTenChanges(plain, plainPeople, round: round, random: &plainRandom)
    return (monitor, now() - start)
  }

  var (monitorTimes, plainTimes) = ([UInt64](), [UInt64]())
  for _ in 0..<rounds {
    let times = saveBoth()
    monitorTimes.append(times.monitor)
    plainTimes.append(times.plain)
  }
  var previous = try! plain.performAndWait { try $0.fetch(ObjectFetchRequest(entity: "Person", sortedBy: sortKeys)) }
    .map(\.objectID)
  var (coldMonitorTimes, coldPlainTimes, refetchTimes) = ([UInt64](), [UInt64](), [UInt64]())
  for _ in 0..<rounds {
    let times = saveBoth()
    coldMonitorTimes.append(times.monitor)
    coldPlainTimes.append(times.plain)
    let start = now()
    let fetched = try! plain.performAndWait { try $0.fetch(ObjectFetchRequest(entity: "Person", sortedBy: sortKeys)) }
      .map(\.objectID)
    let difference = fetched.difference(from: previous)
    refetchTimes.append(now() - start)
    precondition(difference.count <= 10, "a difference of \(difference.count) changes")
    previous = fetched
  }
  withExtendedLifetime(token) {}
  return Result(
    monitor: median(monitorTimes), plain: median(plainTimes), coldMonitor: median(coldMonitorTimes),
    coldPlain: median(coldPlainTimes), refetch: median(refetchTimes))
}

func bytesPerListedObject(_ count: Int) -> Double {
  let (context, people) = populate(count)
  let before = malloc_info_bytes_in_use()
  let monitor = try! ListMonitor(context: context, request: request, scheduler: .immediate)
  let after = malloc_info_bytes_in_use()
  precondition(monitor.count == count)
  withExtendedLifetime((monitor, people)) {}
  return Double(after - before) / Double(count)
}

func text(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }

// The sizes: the numbers on the command line, less the value of --cities.
let sizes = arguments.enumerated().compactMap { index, argument in
  index > 0 && arguments[index - 1] == "--cities" ? nil : Int(argument)
}
print("\(cityCount) cities, \(isSectioned ? "sectioned by city" : "without sections")")
if CommandLine.arguments.contains("--saves-only") {
  // For profilers: monitored saves alone, on the first size.
  let (context, people) = populate(sizes.first ?? 100_000)
  let monitor = try! ListMonitor(context: context, request: request, scheduler: .immediate)
  var random = SeededGenerator(seed: 7)
  for round in 0..<(sizes.dropFirst().first ?? 1_000) { saveTenChanges(context, people, round: round, random: &random) }
  withExtendedLifetime(monitor) {}
  exit(0)
}
_ = measure(1_000, rounds: 50)  // warm-up: type metadata, caches
var results: [(Int, Result)] = []
for size in sizes.isEmpty ? [1_000, 100_000] : sizes {
  let result = measure(size, rounds: size >= 100_000 ? 300 : 1_000)
  results.append((size, result))
  print(
    "\(size) listed, saves back to back: save with monitor \(text(result.monitor / 1_000)) µs, "
      + "without \(text(result.plain / 1_000)) µs, monitor \(text(result.added / 1_000)) µs "
      + "(\(text(result.added / 10_000)) µs per changed object)")
  print(
    "\(size) listed, each save after a refetch: save with monitor \(text(result.coldMonitor / 1_000)) µs, "
      + "without \(text(result.coldPlain / 1_000)) µs, monitor \(text(result.coldAdded / 1_000)) µs "
      + "(\(text(result.coldAdded / 10_000)) µs per changed object); refetch + CollectionDifference "
      + "\(text(result.refetch / 1_000)) µs (\(text(result.refetch / max(result.coldAdded, 1)))x the monitor)")
}
if let first = results.first, let last = results.last, results.count > 1 {
  let growth = last.1.added / max(first.1.added, 1)
  let coldGrowth = last.1.coldAdded / max(first.1.coldAdded, 1)
  print(
    "growth of the monitor's cost from \(first.0) to \(last.0) listed: \(text(growth))x back to back, "
      + "\(text(coldGrowth))x after a refetch")
}
precondition(malloc_info_bytes_in_use() > 0, "mallinfo2() is not available here")
print("heap per listed object, 100,000 listed: \(text(bytesPerListedObject(100_000))) B")
