// A driver for profiling the watcher under callgrind: the work
// of one benchmark, repeated, inside a function named `measuredLoop` so
// that callgrind can count it alone.
//
//   swift build -c release --product WatcherProfile
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredLoop*' \
//     .build/release/WatcherProfile process 100000 200
//
// Modes:
//   process WATCHES ROUNDS   `watcher.process(save)` of 100 updated people,
//                            `city == %@ AND age > %@` watches, ten per city
//   ranges ROUNDS            the same with 1,000 watches, a third of them
//                            `age BETWEEN {a, b}`
//   range-form FORM WATCHES ROUNDS  `watcher.process(save)` of 100 people,
//                            each with a new score and name, against WATCHES
//                            range watches of one FORM, about one match
//                            per object: `between` (`score BETWEEN {a, b}`,
//                            width 1, lower bounds uniform over WATCHES),
//                            `half-open` (`score >= a AND score < b`), `keyed`
//                            (`city == c AND score BETWEEN {a, b}`, 100 a
//                            city), `text` (`name >= a AND name < b`, names
//                            of ten digits, 1,000 numbers wide), `prefix`
//                            (`name BEGINSWITH p`, seven digits)
//   register-range-form FORM WATCHES  registers WATCHES range watches of
//                            one FORM (as `range-form`), parsing included
//   register WATCHES [CITIES]  adds WATCHES `city == %@` watches on CITIES
//                            cities (default: each its own; the registration
//                            benchmark's shape is 100000 10000)
//   preparsed WATCHES        the same through `watch(_:predicate:)`, parsed
//                            before the loop
//   composite WATCHES CITIES adds WATCHES `city == %@ AND age > %@` watches
//                            (the second registration benchmark's shape is
//                            100000 10000)
//   split ROUNDS [ordered]   wall clock, not for callgrind: each round times
//                            registering 100,000 composite watches on 10,000
//                            cities whole, then parsing their formats alone,
//                            then adding the parsed predicates alone, each on
//                            a new watcher (ns per watch; round 0 is a
//                            warm-up). `ordered` registers them in city
//                            order, so that a key's lists stay in the caches
//   remove WATCHES           cancels the tokens of WATCHES such watches
//   save ROUNDS              10,000 watches on a context of 10,000 people,
//                            delegate on a queue; each round changes 100
//                            people and saves (the saving side of the latency
//                            benchmark), then waits for the delivery
//   save1 ROUNDS             the same with 10 watches, 100 people, one
//                            changed person
//   list PEOPLE ROUNDS       a ListMonitor of PEOPLE people sectioned by
//                            city, sorted by city then score, delivering at
//                            once; each round changes 10 of them (5 scores,
//                            which move them, and 5 names) and saves
//   list-cold PEOPLE ROUNDS  the same, each round first reading 64 MiB
//                            (`evictCaches`) so that the save finds the
//                            caches cold: under `--cache-sim=yes`, the
//                            misses outside `evictCaches` are the save's
//   lists-one LISTS ROUNDS   LISTS small ListMonitors, as a live-query
//                            server holds them: `city == c AND score
//                            BETWEEN {a, a + 30}` sorted by score, 20 at
//                            most, on 2,000 people in 100 cities, each with a
//                            closure observer; each round gives one person a
//                            new score and saves, which reaches about a third
//                            of that city's lists (divide by what the run
//                            prints as reached for the cost a list's save)
//   list-outside PEOPLE ROUNDS [plain|alone|bare]  a ListMonitor of the
//                            PEOPLE people aged 50 or more (`age >= 50`,
//                            sectioned by city, sorted by city then score)
//                            beside one of the people over 80 (nobody), so
//                            that the context has a watcher either way; each
//                            round changes 10 people neither list holds,
//                            and saves: 5 get a new score (a key the request
//                            reads, not its predicate), 5 a new age under 50
//                            (a key its predicate reads: they stay out).
//                            `plain` makes the same saves with the second
//                            list alone: the difference is what such a save
//                            costs the monitor. `alone` keeps the first list
//                            alone, `bare` neither: their difference is what
//                            a context's watcher costs such a save
//   release-lists LISTS      LISTS ListMonitors of one context of 10
//                            people, each with a closure observer, then
//                            releases them all (monitor and token), in the
//                            order they were made: the measured loop is the
//                            teardown, whose cost per monitor must not grow
//                            with LISTS. Prints the wall clock per monitor
//
// Figures: docs/benchmarks.md.

import BenchmarkSupport
import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL

let schema = BenchmarkSchemas.cityPeople

func watches(_ count: Int, cities: Int, ranges: Bool) -> [(String, [FilterValue])] {
  var generator = SeededGenerator(seed: 5)
  var equalities = 0
  return (0..<count).map { index in
    if ranges && index % 3 == 2 {
      let low = Int64.random(in: 18...70, using: &generator)
      return ("age BETWEEN {%@, %@}", [.int(low), .int(low + Int64.random(in: 5...20, using: &generator))])
    }
    defer { equalities += 1 }
    return (
      "city == %@ AND age > %@",
      [.string("C\(equalities % cities)"), .int(Int64.random(in: 18...69, using: &generator))]
    )
  }
}

func people(_ count: Int, cities: Int, into context: ObjectContext) -> [ManagedObject] {
  var generator = SeededGenerator(seed: 11)
  return context.performAndWait { context in
    let objects = (0..<count).map { index in
      try! context.insert(
        "Person",
        values: [
          "name": .string("P\(index)"), "city": .string("C\(Int.random(in: 0..<cities, using: &generator))"),
          "age": .int(Int64.random(in: 18...80, using: &generator)),
          "score": .double(Double.random(in: 0...100, using: &generator)),
        ])
    }
    try! context.save()
    return objects
  }
}

// @unchecked Sendable: counted from one delivery queue at a time, and read
// after a flush, which orders the reads after the writes.
final class Counter: @unchecked Sendable {
  var matches = 0
}

/// A number written with ten digits: names sort as their numbers.
func tenDigits(_ number: Int) -> String {
  let text = String(number)
  return String(repeating: "0", count: max(0, 10 - text.count)) + text
}

/// The format and the arguments of `count` range watches of one form
/// (see `range-form` above).
func rangeFormWatches(_ form: String, _ count: Int, using generator: inout SeededGenerator) -> (String, [[FilterValue]])
{
  let format =
    switch form {
    case "between": "score BETWEEN {%@, %@}"
    case "half-open": "score >= %@ AND score < %@"
    case "keyed": "city == %@ AND score BETWEEN {%@, %@}"
    case "text": "name >= %@ AND name < %@"
    case "prefix": "name BEGINSWITH %@"
    default: fatalError("unknown range form \(form)")
    }
  let span = form == "keyed" ? 100.0 : Double(count)
  let values = (0..<count).map { index -> [FilterValue] in
    let low = Double.random(in: 0..<span, using: &generator)
    let number = Int.random(in: 0..<count * 1_000, using: &generator)
    switch form {
    case "keyed": return [.string("C\(index / 100)"), .double(low), .double(low + 1)]
    case "text": return [.string(tenDigits(number)), .string(tenDigits(number + 1_000))]
    case "prefix": return [.string(String(tenDigits(number).dropLast(3)))]
    default: return [.double(low), .double(low + 1)]
    }
  }
  return (format, values)
}

@inline(never)
func measuredLoop(_ rounds: Int, _ body: () -> Void) {
  for _ in 0..<rounds { body() }
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
let mode = arguments.first ?? "process"
let numbers = arguments.dropFirst().compactMap { Int($0) }

switch mode {
case "process", "ranges":
  let count = mode == "ranges" ? 1_000 : (numbers.first ?? 100_000)
  let rounds = mode == "ranges" ? (numbers.first ?? 50) : (numbers.dropFirst().first ?? 200)
  let cities = mode == "ranges" ? 100 : max(1, count / 10)
  let counter = Counter()
  let watcher = ContextWatcher(
    schema: schema,
    target: .handler(on: .immediate) { changes in
      for attributed in changes.attribution { counter.matches += attributed.matches.count }
    })
  let tokens = watches(count, cities: cities, ranges: mode == "ranges").map { format, arguments in
    try! watcher.watch("Person", where: format, arguments: arguments)
  }
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let objects = people(1_000, cities: cities, into: context)
  var generator = SeededGenerator(seed: 13)
  let save = context.performAndWait { context in
    for object in objects[..<100] {
      guard case .int(let age)? = object["age"] else { fatalError() }
      try! context.setValue(
        .int(18 + (age - 18 + 1 + Int64.random(in: 0..<62, using: &generator)) % 63), forKey: "age", of: object)
    }
    return try! context.save()!
  }
  measuredLoop(rounds) { watcher.process(save) }
  print("\(mode): \(count) watches, \(rounds) rounds, \(counter.matches / max(1, rounds)) matches per save")
  withExtendedLifetime(tokens) {}

case "range-form":
  let form = arguments.dropFirst().first ?? "between"
  let count = numbers.first ?? 100_000
  let rounds = numbers.dropFirst().first ?? 50
  let counter = Counter()
  let watcher = ContextWatcher(
    schema: schema,
    target: .handler(on: .immediate) { changes in
      for attributed in changes.attribution { counter.matches += attributed.matches.count }
    })
  var generator = SeededGenerator(seed: 7)
  let (format, values) = rangeFormWatches(form, count, using: &generator)
  let tokens = values.map { try! watcher.watch("Person", where: format, arguments: $0) }
  let cities = max(1, count / 100)
  let span = form == "keyed" ? 100.0 : Double(count)
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let objects = people(1_000, cities: cities, into: context)
  let save = context.performAndWait { context in
    for object in objects[..<100] {
      try! context.setValue(.double(Double.random(in: 0..<span, using: &generator)), forKey: "score", of: object)
      try! context.setValue(
        .string(tenDigits(Int.random(in: 0..<count * 1_000, using: &generator))), forKey: "name", of: object)
    }
    return try! context.save()!
  }
  // The first save sorts the index; the loop measures matching alone.
  watcher.process(save)
  counter.matches = 0
  measuredLoop(rounds) { watcher.process(save) }
  print("range \(form): \(count) watches, \(rounds) rounds, \(counter.matches / max(1, rounds)) matches per save")
  withExtendedLifetime(tokens) {}

case "register-range-form":
  let form = arguments.dropFirst().first ?? "between"
  let count = numbers.first ?? 100_000
  let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
  var generator = SeededGenerator(seed: 7)
  let (format, values) = rangeFormWatches(form, count, using: &generator)
  var tokens: [WatchToken] = []
  tokens.reserveCapacity(count)
  measuredLoop(1) {
    for value in values { tokens.append(try! watcher.watch("Person", where: format, arguments: value)) }
  }
  print("\(mode) \(form): \(count) watches, \(watcher.watchCount) held")

case "composite":
  let count = numbers.first ?? 100_000
  let cities = max(1, numbers.dropFirst().first ?? 10_000)
  let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
  let specs = watches(count, cities: cities, ranges: false)
  var tokens: [WatchToken] = []
  tokens.reserveCapacity(count)
  measuredLoop(1) {
    for (format, arguments) in specs {
      tokens.append(try! watcher.watch("Person", where: format, arguments: arguments))
    }
  }
  print("\(mode): \(count) watches, \(watcher.watchCount) held")

case "split":
  let rounds = numbers.first ?? 8
  var specs = watches(100_000, cities: 10_000, ranges: false)
  if arguments.contains("ordered") {
    // By city, then by bound: each insertion lands at the end of a list
    // that the previous one touched.
    func order(_ spec: (String, [FilterValue])) -> (String, Int64) {
      guard case .string(let city) = spec.1[0], case .int(let age) = spec.1[1] else { preconditionFailure() }
      return (city, age)
    }
    specs.sort { order($0) < order($1) }
  }
  func perWatch(_ start: UInt64) -> UInt64 { (DispatchTime.now().uptimeNanoseconds - start) / UInt64(specs.count) }
  for round in 0..<rounds {
    var watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
    var tokens: [WatchToken] = []
    tokens.reserveCapacity(specs.count)
    var start = DispatchTime.now().uptimeNanoseconds
    for (format, arguments) in specs {
      tokens.append(try! watcher.watch("Person", where: format, arguments: arguments))
    }
    let whole = perWatch(start)
    tokens.removeAll(keepingCapacity: true)
    var parsed: [PredicateSyntax] = []
    parsed.reserveCapacity(specs.count)
    start = DispatchTime.now().uptimeNanoseconds
    for (format, arguments) in specs { parsed.append(try! PredicateParser.parse(format, arguments: arguments)) }
    let parse = perWatch(start)
    watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
    start = DispatchTime.now().uptimeNanoseconds
    for predicate in parsed { tokens.append(try! watcher.watch("Person", predicate: predicate)) }
    let add = perWatch(start)
    print("round \(round): whole \(whole) ns, parse \(parse) ns, add \(add) ns per watch")
  }

case "register", "remove", "preparsed":
  let count = numbers.first ?? 100_000
  let distinct = max(1, numbers.dropFirst().first ?? count)
  let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
  let cities: [[FilterValue]] = (0..<count).map { [.string("C\($0 % distinct)")] }
  var tokens: [WatchToken] = []
  tokens.reserveCapacity(count)
  if mode == "preparsed" {
    let parsed = cities.map { try! PredicateParser.parse("city == %@", arguments: $0) }
    measuredLoop(1) { for predicate in parsed { tokens.append(try! watcher.watch("Person", predicate: predicate)) } }
  } else if mode == "register" {
    measuredLoop(1) {
      for city in cities { tokens.append(try! watcher.watch("Person", where: "city == %@", arguments: city)) }
    }
  } else {
    for city in cities { tokens.append(try! watcher.watch("Person", where: "city == %@", arguments: city)) }
    measuredLoop(1) { for token in tokens { token.cancel() } }
  }
  print("\(mode): \(count) watches, \(watcher.watchCount) left")

case "save", "save1":
  let rounds = numbers.first ?? 200
  let (watchCount, peopleCount, cities, step) = mode == "save" ? (10_000, 10_000, 1_000, 100) : (10, 100, 10, 100)
  // @unchecked Sendable: written on the delegate's serial queue, read after
  // watcher.flush(), which orders the read after every write.
  final class Probe: ContextWatcherDelegate, @unchecked Sendable {
    var matches = 0
    func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
      for attributed in changes.attribution { self.matches += attributed.matches.count }
    }
  }
  let probe = Probe()
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let watcher = ContextWatcher(context: context, target: .delegate(probe, on: .queue(DispatchQueue(label: "delegate"))))
  let tokens = watches(watchCount, cities: cities, ranges: false).map { format, arguments in
    try! watcher.watch("Person", where: format, arguments: arguments)
  }
  let objects = people(peopleCount, cities: cities, into: context)
  let changed = stride(from: 0, to: objects.count, by: step).map { objects[$0] }
  var round = 0
  measuredLoop(rounds) {
    round += 1
    context.performAndWait { context in
      for object in changed { try! context.setValue(.double(1_000 + Double(round)), forKey: "score", of: object) }
      try! context.save()
    }
    watcher.flush()
  }
  print("\(mode): \(rounds) rounds, \(probe.matches / max(1, rounds)) matches per save")
  withExtendedLifetime(tokens) {}

case "list", "list-cold":
  let count = numbers.first ?? 1_000
  let rounds = numbers.dropFirst().first ?? 100
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let objects = people(count, cities: 50, into: context)
  let monitor = try! ListMonitor(
    context: context,
    request: ListRequest("Person", sortedBy: [.ascending("city"), .ascending("score")], sectionedBy: "city"),
    scheduler: .immediate)
  var generator = SeededGenerator(seed: 17)
  var round = 0
  let eviction = mode == "list-cold" ? [Int](repeating: 1, count: 8 << 20) : []
  measuredLoop(rounds) {
    round += 1
    if !eviction.isEmpty { evictCaches(eviction) }
    context.performAndWait { context in
      for index in 0..<10 {
        let object = objects[Int.random(in: 0..<objects.count, using: &generator)]
        if index < 5 {
          try! context.setValue(.double(Double.random(in: 0...100, using: &generator)), forKey: "score", of: object)
        } else {
          try! context.setValue(.string("R\(round)-\(index)"), forKey: "name", of: object)
        }
      }
      try! context.save()
    }
  }
  print("list: \(monitor.count) listed, \(rounds) rounds")

case "lists-one":
  let count = numbers.first ?? 1_000
  let rounds = numbers.dropFirst().first ?? 200
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let objects = people(2_000, cities: 100, into: context)
  let reached = Counter()
  var generator = SeededGenerator(seed: 23)
  let lists = (0..<count).map { index in
    let low = Double.random(in: 0...70, using: &generator)
    let monitor = try! ListMonitor(
      context: context,
      request: try! ListRequest(
        "Person", where: "city == %@ AND score BETWEEN {%@, %@}",
        arguments: [.string("C\(index % 100)"), .double(low), .double(low + 30)],
        sortedBy: [.ascending("score")], limit: 20),
      scheduler: .immediate)
    let token = monitor.observe { _ in reached.matches += 1 }
    return (monitor, token)
  }
  measuredLoop(rounds) {
    context.performAndWait { context in
      let object = objects[Int.random(in: 0..<objects.count, using: &generator)]
      try! context.setValue(.double(Double.random(in: 0...100, using: &generator)), forKey: "score", of: object)
      try! context.save()
    }
  }
  print("lists-one: \(lists.count) lists, \(rounds) rounds, \(reached.matches) reached")

case "list-outside":
  let count = numbers.first ?? 20_000
  let rounds = numbers.dropFirst().first ?? 100
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  let objects = people(count, cities: 50, into: context)
  let outside = context.performAndWait { _ in
    objects.filter { if case .int(let age)? = $0["age"] { age < 50 } else { false } }
  }
  func monitor(_ format: String) -> ListMonitor {
    try! ListMonitor(
      context: context,
      request: try! ListRequest(
        "Person", where: format, sortedBy: [.ascending("city"), .ascending("score")], sectionedBy: "city"),
      scheduler: .immediate)
  }
  let variant = arguments.dropFirst(3).first ?? "both"
  let measured = variant == "both" || variant == "alone" ? monitor("age >= 50") : nil
  let other = variant == "both" || variant == "plain" ? monitor("age > 80") : nil
  precondition(measured.map { $0.count == count - outside.count } ?? true, "the list holds someone under 50")
  precondition(other.map { $0.count == 0 } ?? true, "someone is over 80")
  var generator = SeededGenerator(seed: 17)
  measuredLoop(rounds) {
    context.performAndWait { context in
      for index in 0..<10 {
        let object = outside[Int.random(in: 0..<outside.count, using: &generator)]
        if index < 5 {
          try! context.setValue(.double(Double.random(in: 0...100, using: &generator)), forKey: "score", of: object)
        } else {
          try! context.setValue(.int(Int64.random(in: 18..<50, using: &generator)), forKey: "age", of: object)
        }
      }
      try! context.save()
    }
  }
  print("list-outside (\(variant)): \(measured?.count ?? 0) listed, \(outside.count) outside, \(rounds) rounds")
  withExtendedLifetime(other) {}

case "release-lists":
  let count = numbers.first ?? 10_000
  let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
  _ = people(10, cities: 5, into: context)
  let request = ListRequest("Person", sortedBy: [.ascending("city"), .ascending("score")], sectionedBy: "city")
  var lists: [(ListMonitor, ObserverToken)] = (0..<count).map { _ in
    let monitor = try! ListMonitor(context: context, request: request, scheduler: .immediate)
    return (monitor, monitor.observe { _ in })
  }
  precondition(lists.allSatisfy { $0.0.count == 10 }, "a list does not hold the 10 people")
  let start = DispatchTime.now().uptimeNanoseconds
  measuredLoop(1) { lists = [] }
  let perList = (DispatchTime.now().uptimeNanoseconds - start) / UInt64(max(1, count))
  print("release-lists: \(count) lists released, \(perList) ns per list, \(lists.count) left")

default:
  fatalError("unknown mode \(mode)")
}

/// Reads one word of each cache line of `array`, pushing what the caches
/// held out of them.
@inline(never)
func evictCaches(_ array: [Int]) {
  var sum = 0
  for index in stride(from: 0, to: array.count, by: 8) { sum &+= array[index] }
  // Keeps the loads: the sum is the array's count over 8.
  precondition(sum == array.count / 8, "a word of the eviction buffer changed")
}
