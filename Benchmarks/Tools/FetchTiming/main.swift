// A fetch through an indexed attribute against the same fetch scanning
// every object, and a list monitor's first fetch both ways.
//
//   swift run -c release --package-path Benchmarks FetchTiming
//
// Two contexts hold the same 100,000 people (100 cities, so a city is 1% of
// them; random ages 0..<90); in one, `city` is an indexed attribute. Rounds
// alternate between the contexts, so that the machine's noise falls on both
// alike, and the medians are compared:
//
//   fetch    `fetch("Person", where: "city == %@ AND age > %@")`, the city
//            and the age drawn anew each round;
//   request  the same fetch from an `ObjectFetchRequest` parsed before the
//            clock starts (indexed context only);
//   empty    the fetch for a city no one lives in: the cost of a call
//            that is not the candidates' (parsing, compiling, the lookup);
//   monitor  creating a ListMonitor of the same predicate sorted by age.
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
        .init("name", .string), .init("city", .string, isIndexed: indexed), .init("age", .integer),
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
let contexts = [populate(indexed: true, count: count), populate(indexed: false, count: count)]
var fetchTimes: [[UInt64]] = [[], []]
var monitorTimes: [[UInt64]] = [[], []]
var requestTimes: [UInt64] = []
var emptyTimes: [UInt64] = []
for round in 0..<60 {
  let arguments: [FilterValue] = [.string("C\(round * 37 % 100)"), .int(Int64(round % 45))]
  var found: [Int] = []
  for (which, context) in contexts.enumerated() {
    let start = now()
    let people = try! context.performAndWait {
      try $0.fetch("Person", where: "city == %@ AND age > %@", arguments[0], arguments[1])
    }
    fetchTimes[which].append(now() - start)
    found.append(people.count)
  }
  precondition(found[0] == found[1] && found[0] > 0, "found \(found)")
  let request = try! ObjectFetchRequest(
    entity: "Person", predicate: "city == %@ AND age > %@", arguments: arguments)
  var start = now()
  let requested = try! contexts[0].performAndWait { try $0.fetch(request) }
  requestTimes.append(now() - start)
  precondition(requested.count == found[0], "requested \(requested.count)")
  start = now()
  let nobody = try! contexts[0].performAndWait {
    try $0.fetch("Person", where: "city == %@ AND age > %@", "Nowhere", arguments[1])
  }
  emptyTimes.append(now() - start)
  precondition(nobody.isEmpty, "found \(nobody.count) in no city")
  guard round % 4 == 0 else { continue }
  for (which, context) in contexts.enumerated() {
    let request = try! ListRequest(
      "Person", where: "city == %@ AND age > %@", arguments: arguments, sortedBy: [.ascending("age")])
    let start = now()
    let monitor = try! ListMonitor(context: context, request: request, scheduler: .immediate)
    monitorTimes[which].append(now() - start)
    precondition(monitor.count == found[0], "listed \(monitor.count)")
  }
}
let (indexed, scanned) = (median(fetchTimes[0]), median(fetchTimes[1]))
print(
  "\(count) people, 1% per city: fetch through the index \(text(indexed / 1_000)) µs, scanning \(text(scanned / 1_000)) µs: "
    + "\(text(scanned / indexed))x")
print(
  "  from a parsed request \(text(median(requestTimes) / 1_000)) µs: \(text(scanned / median(requestTimes)))x; "
    + "a fetch selecting nobody \(text(median(emptyTimes) / 1_000)) µs")
let (monitorIndexed, monitorScanned) = (median(monitorTimes[0]), median(monitorTimes[1]))
print(
  "list monitor's first fetch: through the index \(text(monitorIndexed / 1_000)) µs, scanning "
    + "\(text(monitorScanned / 1_000)) µs: \(text(monitorScanned / monitorIndexed))x")
