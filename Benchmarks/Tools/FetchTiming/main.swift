// A fetch through an indexed attribute against the same fetch scanning
// every object, and a list monitor's first fetch both ways.
//
//   swift run -c release --package-path Benchmarks FetchTiming
//
// Two contexts hold the same 100,000 people (100 cities, so a city is 1% of
// them; random ages 0..<90); in one, `city` and `age` are indexed. Rounds
// alternate between the contexts, so that the machine's noise falls on both
// alike, and the medians are compared:
//
//   fetch    `fetch("Person", where: "city == %@ AND age > %@")`, the city
//            and the age drawn anew each round: scanning (twice a round),
//            and through the index, each time after a scan;
//   request  the same fetch through the index from an `ObjectFetchRequest`
//            parsed before the clock starts;
//   nobody   the fetch for a city no one lives in: what a call costs
//            besides its candidates (parsing, compiling, the lookup);
//   range    `age < 1 AND city != %@`, a range on the indexed age (1.1%),
//            both ways;
//   monitor  creating a ListMonitor of the same predicate sorted by age,
//            both ways, and one listing nobody;
//   insert   populating each context (inserts and one save), once.
//
// Every round checks that both contexts found the same number of people.

import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL

func schema(indexed: Bool) -> ObjectSchema {
  try! ObjectSchema([
    EntityDescription(
      "Person",
      attributes: [
        .init("name", .string), .init("city", .string, isIndexed: indexed),
        .init("age", .integer, isIndexed: indexed),
      ])
  ])
}

func populate(indexed: Bool, count: Int) -> ObjectContext {
  let context = ObjectContext(schema: schema(indexed: indexed), name: "people", notificationCenter: nil)
  try! context.performAndWait { context in
    for index in 0..<count {
      try context.insert(
        "Person",
        values: [
          "name": .string("p\(index)"), "city": .string("C\(index * 7_919 % 100)"),
          "age": .int(Int64(index * 104_729 % 90)),
        ])
    }
    _ = try context.save()
  }
  return context
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [UInt64]) -> Double {
  let sorted = values.sorted()
  return Double(sorted[sorted.count / 2])
}

func text(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }

let count = CommandLine.arguments.dropFirst().compactMap { Int($0) }.first ?? 100_000
// Inserting (and saving) everyone, with and without the index on `city`.
var start = now()
let indexedContext = populate(indexed: true, count: count)
let indexedInsert = Double(now() - start)
start = now()
let scannedContext = populate(indexed: false, count: count)
let plainInsert = Double(now() - start)
var (fetchTimes, scanTimes, requestTimes, emptyTimes): ([UInt64], [UInt64], [UInt64], [UInt64]) = ([], [], [], [])
var monitorTimes: [[UInt64]] = [[], [], []]
var (rangeTimes, rangeScanTimes): ([UInt64], [UInt64]) = ([], [])

/// Times `age < 1 AND city == %@` (1.1% of the people, then a city),
/// returning how many it found.
func timedRange(_ context: ObjectContext, _ city: FilterValue, into times: inout [UInt64]) -> Int {
  let start = now()
  let people = try! context.performAndWait { try $0.fetch("Person", where: "age < 1 AND city != %@", city) }
  times.append(now() - start)
  return people.count
}

/// Times a fetch from format text, returning how many it found.
func timedFetch(_ context: ObjectContext, _ arguments: [FilterValue], into times: inout [UInt64]) -> Int {
  let start = now()
  let people = try! context.performAndWait {
    try $0.fetch("Person", where: "city == %@ AND age > %@", arguments[0], arguments[1])
  }
  times.append(now() - start)
  return people.count
}

for round in 0..<60 {
  let arguments: [FilterValue] = [.string("C\(round * 37 % 100)"), .int(Int64(round % 45))]
  // Each indexed fetch follows a scan, which leaves none of the
  // candidates in the cache.
  let found = timedFetch(scannedContext, arguments, into: &scanTimes)
  precondition(found > 0 && timedFetch(indexedContext, arguments, into: &fetchTimes) == found, "found \(found)")
  precondition(timedFetch(scannedContext, arguments, into: &scanTimes) == found)
  let request = try! ObjectFetchRequest(
    entity: "Person", predicate: "city == %@ AND age > %@", arguments: arguments)
  start = now()
  let requested = try! indexedContext.performAndWait { try $0.fetch(request) }
  requestTimes.append(now() - start)
  precondition(requested.count == found, "requested \(requested.count)")
  precondition(timedFetch(indexedContext, ["Nowhere", arguments[1]], into: &emptyTimes) == 0)
  let young = timedRange(scannedContext, arguments[0], into: &rangeScanTimes)
  precondition(young > 0 && timedRange(indexedContext, arguments[0], into: &rangeTimes) == young)
  guard round % 4 == 0 else { continue }
  // A list of nobody: what creating a monitor costs besides its fetch.
  for (which, (context, city)) in [
    (indexedContext, arguments[0]), (scannedContext, arguments[0]), (indexedContext, "Nowhere"),
  ]
  .enumerated() {
    let request = try! ListRequest(
      "Person", where: "city == %@ AND age > %@", arguments: [city, arguments[1]], sortedBy: [.ascending("age")])
    let start = now()
    let monitor = try! ListMonitor(context: context, request: request, scheduler: .immediate)
    monitorTimes[which].append(now() - start)
    precondition(monitor.count == (which == 2 ? 0 : found), "listed \(monitor.count)")
  }
}
let (indexed, scanned) = (median(fetchTimes), median(scanTimes))
print(
  "\(count) people, 1% per city: fetch through the index \(text(indexed / 1_000)) µs, scanning \(text(scanned / 1_000)) µs: "
    + "\(text(scanned / indexed))x")
print(
  "  from a parsed request \(text(median(requestTimes) / 1_000)) µs: \(text(scanned / median(requestTimes)))x; "
    + "a fetch selecting nobody \(text(median(emptyTimes) / 1_000)) µs")
print(
  "  a range, `age < 1 AND city != %@`: through the index \(text(median(rangeTimes) / 1_000)) µs, scanning "
    + "\(text(median(rangeScanTimes) / 1_000)) µs: \(text(median(rangeScanTimes) / median(rangeTimes)))x")
print(
  "inserting and saving \(count) people: \(text(indexedInsert / 1e6)) ms with the index, "
    + "\(text(plainInsert / 1e6)) ms without")
let (monitorIndexed, monitorScanned) = (median(monitorTimes[0]), median(monitorTimes[1]))
print(
  "list monitor's first fetch: through the index \(text(monitorIndexed / 1_000)) µs, scanning "
    + "\(text(monitorScanned / 1_000)) µs: \(text(monitorScanned / monitorIndexed))x; "
    + "a monitor listing nobody \(text(median(monitorTimes[2]) / 1_000)) µs")
