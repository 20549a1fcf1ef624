// Benchmarks of the context watcher:
// 1. a ZSContextWatcher-style baseline (one left-deep OR of 1,000
//    entity-guarded predicates, walked by TreeWalkingBaseline on a record
//    form of each changed object) against `watcher.process(save)` on
//    the same save, for two mixes of watches, with the ratio measured pair by
//    pair in the same iterations;
// 2. classification cost per changed object at 1,000 and 100,000 entity +
//    equality watches (and the growth, paired);
// 3. registering 100,000 watches (equality and range forms), and
//    removing them by cancelling tokens;
// 4. save-to-delegate latency on a DispatchQueue (one sample per iteration,
//    percentiles from the runner's table), and the same queue hop without a
//    watcher, the floor under it on this machine;
// 5. what 10,000 object monitors add to a save of one object
//    (ObjectMonitorBenchmarks.swift);
// Memory per watch is measured by the WatcherMemory executable
// (Benchmarks/Tools/WatcherMemory).
//
// Every benchmark checks its own result: the number of matches (object,
// watch) and of objects delivered, against a count made in plain Swift from
// the watch specifications before timing.
//
// Figures and the commands that reproduce them: docs/benchmarks.md.

import Benchmark
import BenchmarkSupport
import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Synchronization

// MARK: Data

let schema = BenchmarkSchemas.cityPeople

/// One watch, as a specification the benchmarks can also check by hand.
enum WatchSpec: Sendable {
  /// `city == %@ AND age > %@`: indexed on `city`, residual `age > minAge`.
  case cityAge(city: String, minAge: Int)
  /// `age BETWEEN {low, high}`: nothing to index.
  case ageRange(low: Int, high: Int)
  /// `city == %@`: indexed, no residual.
  case city(String)

  var format: String {
    switch self {
    case .cityAge: "city == %@ AND age > %@"
    case .ageRange: "age BETWEEN {%@, %@}"
    case .city: "city == %@"
    }
  }

  var arguments: [FilterValue] {
    switch self {
    case .cityAge(let city, let minAge): [.string(city), .int(Int64(minAge))]
    case .ageRange(let low, let high): [.int(Int64(low)), .int(Int64(high))]
    case .city(let city): [.string(city)]
    }
  }

  /// The predicate's value, written by hand.
  func matches(city: String, age: Int) -> Bool {
    switch self {
    case .cityAge(let wanted, let minAge): city == wanted && age > minAge
    case .ageRange(let low, let high): age >= low && age <= high
    case .city(let wanted): city == wanted
    }
  }
}

func cityName(_ index: Int) -> String { "C\(index)" }

/// `count` watches. Equality watches cycle through `cities` constants, so
/// each constant is shared by count / cities of them; thresholds are random.
/// With `ranges`, every third watch is an `age BETWEEN` range instead.
func watchSpecs(_ count: Int, cities: Int, ranges: Bool = false, seed: UInt64 = 5) -> [WatchSpec] {
  var generator = SeededGenerator(seed: seed)
  var equalities = 0
  return (0..<count).map { index in
    if ranges && index % 3 == 2 {
      let low = Int.random(in: 18...70, using: &generator)
      return .ageRange(low: low, high: low + Int.random(in: 5...20, using: &generator))
    }
    defer { equalities += 1 }
    return .cityAge(city: cityName(equalities % cities), minAge: Int.random(in: 18...69, using: &generator))
  }
}

/// A person's attribute values: the city is one of the watches' constants.
func person(_ index: Int, cities: Int, using generator: inout SeededGenerator) -> [String: FilterValue] {
  [
    "name": .string("P\(index)"), "city": .string(cityName(Int.random(in: 0..<cities, using: &generator))),
    "age": .int(Int64.random(in: 18...80, using: &generator)),
    "score": .double(Double.random(in: 0...100, using: &generator)),
  ]
}

extension ObjectSnapshot {
  var city: String {
    guard case .string(let city)? = self["city"] else { preconditionFailure("no city") }
    return city
  }
  var age: Int {
    guard case .int(let age)? = self["age"] else { preconditionFailure("no age") }
    return Int(age)
  }
}

/// Counts what a watcher delivers; runs on the saving thread (immediate
/// delivery), so plain fields do.
final class Counter: @unchecked Sendable {
  var deliveries = 0
  var objects = 0
  var matches = 0

  func reset() { (deliveries, objects, matches) = (0, 0, 0) }

  func count(_ changes: ContextChanges) {
    deliveries += 1
    objects += changes.attribution.count
    for attributed in changes.attribution { self.matches += attributed.matches.count }
  }
}

/// What a save must produce, counted by hand from the specifications.
struct Expected {
  /// (object, watch) pairs delivered: updated, entered or exited.
  var matches = 0
  /// Objects delivered.
  var objects = 0
  /// Objects whose new values match at least one watch: what the
  /// baseline's master predicate selects.
  var baselineObjects = 0

  init(_ save: ContextSave, _ specs: [WatchSpec]) {
    for update in save.updated {
      let (cityBefore, ageBefore) = (update.before.city, update.before.age)
      let (cityAfter, ageAfter) = (update.after.city, update.after.age)
      var seen = 0
      var after = false
      for spec in specs {
        let was = spec.matches(city: cityBefore, age: ageBefore)
        let now = spec.matches(city: cityAfter, age: ageAfter)
        if was || now { seen += 1 }
        if now { after = true }
      }
      matches += seen
      if seen > 0 { objects += 1 }
      if after { baselineObjects += 1 }
    }
  }
}

let peopleCount = 1_000
let changedCount = 100

/// A watcher fed change values directly, with its watches, one save of 100
/// updated people (new ages), and the baseline's master predicate with the
/// record form of each changed object.
final class ProcessFixture: @unchecked Sendable {
  let specs: [WatchSpec]
  let counter: Counter
  let watcher: ContextWatcher
  let tokens: [WatchToken]
  let save: ContextSave
  let expected: Expected
  /// `(entity == "Person" AND p1) OR p2 …`, left-deep, as ZSContextWatcher
  /// builds it by ORing each new watch onto the master predicate.
  let master: PredicateSyntax?
  /// The updated objects' new values as records, with an "entity" key.
  let records: [FilterValue]

  init(specs: [WatchSpec], cities: Int, baseline: Bool, seed: UInt64 = 11) {
    self.specs = specs
    let counter = Counter()
    let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { counter.count($0) })
    self.counter = counter
    self.watcher = watcher
    tokens = specs.map { spec in try! watcher.watch("Person", where: spec.format, arguments: spec.arguments) }
    precondition(watcher.watchCount == specs.count)

    var generator = SeededGenerator(seed: seed)
    let context = ObjectContext(schema: schema, name: "process", notificationCenter: nil)
    let save = context.performAndWait { context in
      let objects = (0..<peopleCount).map { index in
        try! context.insert("Person", values: person(index, cities: cities, using: &generator))
      }
      try! context.save()
      for object in objects[..<changedCount] {
        guard case .int(let age)? = object["age"] else { preconditionFailure() }
        let newAge = 18 + (age - 18 + 1 + Int64.random(in: 0..<62, using: &generator)) % 63
        try! context.setValue(.int(newAge), forKey: "age", of: object)
      }
      return try! context.save()!
    }
    precondition(save.updated.count == changedCount && save.updated.allSatisfy { $0.changedKeys == ["age"] })
    self.save = save
    let expected = Expected(save, specs)
    self.expected = expected
    precondition(expected.objects > 0 && expected.matches > expected.objects, "too few matches: \(expected)")

    records = save.updated.map { update in
      var values = update.after.attributeValues
      values["entity"] = .string("Person")
      return .record(values)
    }
    if baseline {
      let guardClause = try! PredicateParser.parse("entity == %@", arguments: ["Person"])
      var master: PredicateSyntax?
      for spec in specs {
        let predicate = try! PredicateParser.parse(spec.format, arguments: spec.arguments)
        let guarded = PredicateSyntax(.and([guardClause, predicate]))
        master = master.map { PredicateSyntax(.or([$0, guarded])) } ?? guarded
      }
      self.master = master
    } else {
      master = nil
    }
    // Both sides once before timing, checked.
    let found = ours()
    precondition(found == expected.matches, "watcher delivered \(found) matches, expected \(expected.matches)")
    if master != nil {
      let selected = baselineCount()
      precondition(
        selected == expected.baselineObjects, "baseline selected \(selected), expected \(expected.baselineObjects)")
    }
  }

  /// Runs the save through the watcher; checks and returns the matches
  /// delivered.
  @inline(never)
  func ours() -> Int {
    counter.reset()
    watcher.process(save)
    precondition(
      counter.deliveries == 1 && counter.objects == expected.objects && counter.matches == expected.matches,
      "delivered \(counter.deliveries) deliveries, \(counter.objects) objects, \(counter.matches) matches; expected \(expected)"
    )
    return counter.matches
  }

  /// The baseline: the master predicate on each changed object's record;
  /// the number of objects it selects.
  @inline(never)
  func baselineCount() -> Int {
    var count = 0
    for record in records where TreeWalkingBaseline.evaluate(master!, on: record) { count += 1 }
    return count
  }

  @inline(never)
  func baseline() {
    let count = baselineCount()
    precondition(count == expected.baselineObjects, "baseline selected \(count), expected \(expected.baselineObjects)")
  }
}

// MARK: Latency

/// Records when its delivery starts, first thing, and how many matches it
/// holds.
final class LatencyProbe: ContextWatcherDelegate, @unchecked Sendable {
  let arrival = Atomic<UInt64>(0)
  var matches = 0

  func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
    let now = DispatchTime.now().uptimeNanoseconds
    var count = 0
    for attributed in changes.attribution { count += attributed.matches.count }
    matches = count
    arrival.store(now, ordering: .releasing)
  }
}

/// A context of saved people, a watcher of it delivering to a delegate on a
/// DispatchQueue, and the people each sample changes (a new `score`, which
/// no watch reads, so every delivery holds the same matches).
final class LatencyFixture: @unchecked Sendable {
  let context: ObjectContext
  let changed: [ManagedObject]
  let probe: LatencyProbe
  let queue: DispatchQueue
  let watcher: ContextWatcher
  let tokens: [WatchToken]
  let expectedMatches: Int
  var round = 0

  init(people: Int, changed changedCount: Int, watches: Int, cities: Int) {
    var generator = SeededGenerator(seed: 23)
    let specs = watchSpecs(watches, cities: cities, seed: 29)
    let context = ObjectContext(schema: schema, name: "latency", notificationCenter: nil)
    let probe = LatencyProbe()
    let queue = DispatchQueue(label: "WatcherBenchmarks.delegate")
    let watcher = ContextWatcher(context: context, target: .delegate(probe, on: .queue(queue)))
    (self.context, self.probe, self.queue, self.watcher) = (context, probe, queue, watcher)
    tokens = specs.map { spec in try! watcher.watch("Person", where: spec.format, arguments: spec.arguments) }
    let objects = context.performAndWait { context in
      let objects = (0..<people).map { index in
        try! context.insert("Person", values: person(index, cities: cities, using: &generator))
      }
      try! context.save()
      return objects
    }
    watcher.flush()
    // The changed people: every (people / changed)th one; when only one
    // is changed, the first that matches a watch (a delivery is needed).
    let step = people / changedCount
    (changed, expectedMatches) = context.performAndWait { _ in
      let matchCount: (ManagedObject) -> Int = { object in
        guard case .string(let city)? = object["city"], case .int(let age)? = object["age"] else { return 0 }
        return specs.count { $0.matches(city: city, age: Int(age)) }
      }
      let chosen =
        changedCount == 1
        ? [objects.first { matchCount($0) > 0 }!] : stride(from: 0, to: people, by: step).map { objects[$0] }
      return (chosen, chosen.reduce(0) { $0 + matchCount($1) })
    }
    precondition(expectedMatches > 0)
  }

  /// One sample: changes the people, then times from just before `save()`
  /// to the start of the delegate's callback, waiting for it by spinning.
  /// Returns (latency, time for save() to return), in nanoseconds.
  func sample() -> (latency: Int, save: Int) {
    round += 1
    probe.arrival.store(0, ordering: .relaxed)
    let score = FilterValue.double(1_000 + Double(round))
    let (start, saved) = context.performAndWait { context in
      for object in changed { try! context.setValue(score, forKey: "score", of: object) }
      let start = DispatchTime.now().uptimeNanoseconds
      let save = try! context.save()
      let saved = DispatchTime.now().uptimeNanoseconds
      precondition(save?.updated.count == changed.count, "saved \(save?.updated.count ?? 0) updates")
      return (start, saved)
    }
    var arrival: UInt64 = 0
    let deadline = start + 5_000_000_000
    repeat {
      arrival = probe.arrival.load(ordering: .acquiring)
    } while arrival == 0 && DispatchTime.now().uptimeNanoseconds < deadline
    precondition(arrival != 0, "no delivery within 5 s")
    precondition(probe.matches == expectedMatches, "delivered \(probe.matches) matches, expected \(expectedMatches)")
    watcher.flush()  // the pipeline's bookkeeping after the callback, outside the sample
    return (Int(arrival - start), Int(saved - start))
  }
}

/// The floor under the latency: the same hop without a watcher, an async
/// block on a serial queue that targets another queue (as the watcher's
/// delivery queue targets the delegate's), timed from just before `async`
/// to the start of the block.
final class HopFixture: @unchecked Sendable {
  let arrival = Atomic<UInt64>(0)
  let queue = DispatchQueue(label: "WatcherBenchmarks.hop", target: DispatchQueue(label: "WatcherBenchmarks.target"))

  func sample() -> Int {
    arrival.store(0, ordering: .relaxed)
    let start = DispatchTime.now().uptimeNanoseconds
    queue.async { self.arrival.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
    var arrival: UInt64 = 0
    let deadline = start + 5_000_000_000
    repeat {
      arrival = self.arrival.load(ordering: .acquiring)
    } while arrival == 0 && DispatchTime.now().uptimeNanoseconds < deadline
    precondition(arrival != 0, "no block within 5 s")
    queue.sync {}  // the block has returned
    return Int(arrival - start)
  }
}

nonisolated(unsafe) var hopFixture: HopFixture?

// MARK: Registration

let registrationCount = 100_000

/// The arguments of 100,000 watches, built before timing.
struct Registrations: Sendable {
  let format: String
  let arguments: [[FilterValue]]
  let parsed: [PredicateSyntax]

  init(_ specs: [WatchSpec]) {
    self.init(format: specs[0].format, arguments: specs.map(\.arguments))
  }

  init(format: String, arguments: [[FilterValue]]) {
    self.format = format
    self.arguments = arguments
    parsed = arguments.map { try! PredicateParser.parse(format, arguments: $0) }
  }
}

/// The arguments of 100,000 range watches of one form (`score` spans
/// 0 to 100,000, ranges of width 1; names are numbers written with ten
/// digits, text ranges 1,000 of them wide, prefixes of seven digits).
func rangeRegistrations(_ format: String) -> Registrations {
  var generator = SeededGenerator(seed: 25)
  func digits(_ number: Int) -> String {
    let text = String(number)
    return String(repeating: "0", count: max(0, 10 - text.count)) + text
  }
  let arguments: [[FilterValue]] = (0..<registrationCount).map { index in
    let low = Double.random(in: 0..<Double(registrationCount), using: &generator)
    let number = Int.random(in: 0..<registrationCount * 1_000, using: &generator)
    switch format {
    case RangeFormats.keyed: return [.string(cityName(index / 100)), .double(low), .double(low + 1)]
    case RangeFormats.textRange: return [.string(digits(number)), .string(digits(number + 1_000))]
    case RangeFormats.prefix: return [.string(String(digits(number).dropLast(3)))]
    default: return [.double(low), .double(low + 1)]
    }
  }
  return Registrations(format: format, arguments: arguments)
}

/// The range forms whose registration is measured.
enum RangeFormats {
  static let between = "score BETWEEN {%@, %@}"
  static let halfOpen = "score >= %@ AND score < %@"
  /// 100 ranges under each of 1,000 cities.
  static let keyed = "city == %@ AND score BETWEEN {%@, %@}"
  static let textRange = "name >= %@ AND name < %@"
  static let prefix = "name BEGINSWITH %@"
  static let all = [between, halfOpen, keyed, textRange, prefix]
}

// MARK: Fixtures and metrics

nonisolated(unsafe) var fixtures: [String: ProcessFixture] = [:]
nonisolated(unsafe) var latencyFixture: LatencyFixture?
nonisolated(unsafe) var registrations: [String: Registrations] = [:]

func fixture(_ name: String, _ make: () -> ProcessFixture) -> ProcessFixture {
  if let existing = fixtures[name] { return existing }
  let made = make()
  fixtures[name] = made
  return made
}

let equality1k = "1,000 watches, equality mix"
let ranges1k = "1,000 watches, a third ranges"
let equality100k = "100,000 watches, equality mix"
let shared100k = "100,000 watches on 100 constants"

func makeFixture(_ name: String) -> ProcessFixture {
  fixture(name) {
    switch name {
    case equality1k: ProcessFixture(specs: watchSpecs(1_000, cities: 100), cities: 100, baseline: true)
    case ranges1k: ProcessFixture(specs: watchSpecs(1_000, cities: 100, ranges: true), cities: 100, baseline: true)
    case equality100k: ProcessFixture(specs: watchSpecs(100_000, cities: 10_000), cities: 10_000, baseline: false)
    case shared100k: ProcessFixture(specs: watchSpecs(100_000, cities: 100), cities: 100, baseline: false)
    default: preconditionFailure(name)
    }
  }
}

let nsPerObject = BenchmarkMetric.custom("ns per changed object", polarity: .prefersSmaller, useScalingFactor: false)
let nsPerWatch = BenchmarkMetric.custom("ns per watch", polarity: .prefersSmaller, useScalingFactor: false)
/// In tenths, so that small ratios keep a digit: 2105 is 210.5x.
let speedup = BenchmarkMetric.custom("baseline time ÷ ours, in 0.1x", polarity: .prefersLarger, useScalingFactor: false)
let growth = BenchmarkMetric.custom("100k time, % of 1k", polarity: .prefersSmaller, useScalingFactor: false)
let latencyMetric = BenchmarkMetric.custom(
  "save→delegate latency (ns)", polarity: .prefersSmaller, useScalingFactor: false)
let saveMetric = BenchmarkMetric.custom("save() returned (ns)", polarity: .prefersSmaller, useScalingFactor: false)
/// Custom metrics in plain numbers (the runner would show 19 (K) for 19,000).
var plainUnits: [BenchmarkMetric: BenchmarkUnits] {
  [nsPerObject: .count, nsPerWatch: .count, speedup: .count, growth: .count, latencyMetric: .count, saveMetric: .count]
}

func nanoseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) * 1e-9
}

func timed(_ work: () -> Void) -> Duration {
  let clock = ContinuousClock()
  let start = clock.now
  work()
  return start.duration(to: clock.now)
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal, nsPerObject],
    timeUnits: .microseconds,
    units: plainUnits,
    warmupIterations: 3,
    scalingFactor: .one,
    maxDuration: .seconds(5),
    maxIterations: 2_000
  )

  // 1. Baseline against ours, 100 updated objects per iteration.
  for name in [equality1k, ranges1k] {
    let configuration = Benchmark.Configuration(
      metrics: [.wallClock, .mallocCountTotal, nsPerObject], timeUnits: .microseconds, units: plainUnits,
      warmupIterations: 3,
      maxDuration: .seconds(5), maxIterations: 2_000, setup: { _ = makeFixture(name) })
    Benchmark("baseline · tree walk, OR of \(name)", configuration: configuration) { benchmark in
      let fixture = makeFixture(name)
      let elapsed = timed { fixture.baseline() }
      benchmark.measurement(nsPerObject, Int((nanoseconds(elapsed) / Double(changedCount)).rounded()))
    }
    Benchmark("process · \(name)", configuration: configuration) { benchmark in
      let fixture = makeFixture(name)
      let elapsed = timed { _ = fixture.ours() }
      benchmark.measurement(nsPerObject, Int((nanoseconds(elapsed) / Double(changedCount)).rounded()))
    }
    var paired = configuration
    paired.metrics = [.wallClock, speedup]
    Benchmark("baseline ÷ process, paired · \(name)", configuration: paired) { benchmark in
      let fixture = makeFixture(name)
      let (theirs, ours): (Duration, Duration)
      if benchmark.currentIteration % 2 == 0 {
        theirs = timed { fixture.baseline() }
        ours = timed { _ = fixture.ours() }
      } else {
        ours = timed { _ = fixture.ours() }
        theirs = timed { fixture.baseline() }
      }
      benchmark.measurement(speedup, Int((theirs / ours * 10).rounded()))
    }
  }

  // 2. Growth from 1,000 to 100,000 watches: each constant shared by ten
  // watches at both sizes, so each object meets about ten candidates.
  for name in [equality100k, shared100k] {
    Benchmark(
      "process · \(name)",
      configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, nsPerObject], timeUnits: .microseconds, units: plainUnits,
        warmupIterations: 3,
        maxDuration: .seconds(5), maxIterations: 2_000, setup: { _ = makeFixture(name) })
    ) { benchmark in
      let fixture = makeFixture(name)
      let elapsed = timed { _ = fixture.ours() }
      benchmark.measurement(nsPerObject, Int((nanoseconds(elapsed) / Double(changedCount)).rounded()))
    }
  }
  Benchmark(
    "process · 100k ÷ 1k, paired",
    configuration: .init(
      metrics: [.wallClock, growth], timeUnits: .microseconds, units: plainUnits, warmupIterations: 3,
      maxDuration: .seconds(5),
      maxIterations: 2_000,
      setup: {
        _ = makeFixture(equality1k)
        _ = makeFixture(equality100k)
      })
  ) { benchmark in
    let (small, large) = (makeFixture(equality1k), makeFixture(equality100k))
    let (smallTime, largeTime): (Duration, Duration)
    if benchmark.currentIteration % 2 == 0 {
      smallTime = timed { _ = small.ours() }
      largeTime = timed { _ = large.ours() }
    } else {
      largeTime = timed { _ = large.ours() }
      smallTime = timed { _ = small.ours() }
    }
    benchmark.measurement(growth, Int((largeTime / smallTime * 100).rounded()))
  }

  // 3. Registering and removing 100,000 watches. Each iteration builds a
  // new watcher; the watches' arguments (and for one variant the parsed
  // predicates) are built before timing. Tokens are released after timing,
  // once the watcher is gone (so releasing them removes nothing).
  let registrationConfiguration = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal, nsPerWatch], timeUnits: .milliseconds, units: plainUnits,
    warmupIterations: 1,
    maxDuration: .seconds(10), maxIterations: 20,
    setup: {
      if registrations.isEmpty {
        registrations["simple"] = Registrations(
          (0..<registrationCount).map { .city(cityName($0 % 10_000)) })
        registrations["residual"] = Registrations(watchSpecs(registrationCount, cities: 10_000))
        for format in RangeFormats.all { registrations[format] = rangeRegistrations(format) }
      }
    })
  // Ranges: each form parsed per watch, then the same pre-parsed; the
  // index files a new range unsorted, the first save sorts it in.
  let rangeCases = RangeFormats.all.flatMap { format in
    [(format, format, false), (format, "\(format), pre-parsed", true)]
  }
  for (variant, title, preParsed) in [
    ("simple", "city == %@", false), ("residual", "city == %@ AND age > %@", false),
    ("residual", "city == %@ AND age > %@, pre-parsed", true),
  ] + rangeCases {
    Benchmark("register 100k · \(title)", configuration: registrationConfiguration) { benchmark in
      let input = registrations[variant]!
      var watcher: ContextWatcher? = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
      var tokens: [WatchToken] = []
      tokens.reserveCapacity(registrationCount)
      benchmark.startMeasurement()
      let elapsed = timed {
        if preParsed {
          for predicate in input.parsed { tokens.append(try! watcher!.watch("Person", predicate: predicate)) }
        } else {
          for arguments in input.arguments {
            tokens.append(try! watcher!.watch("Person", where: input.format, arguments: arguments))
          }
        }
      }
      benchmark.stopMeasurement()
      precondition(watcher!.watchCount == registrationCount, "\(watcher!.watchCount) watches")
      benchmark.measurement(nsPerWatch, Int((nanoseconds(elapsed) / Double(registrationCount)).rounded()))
      watcher = nil
      blackHole(tokens)
    }
  }
  Benchmark("remove 100k · cancel tokens (city == %@ AND age > %@)", configuration: registrationConfiguration) {
    benchmark in
    let input = registrations["residual"]!
    let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
    let tokens = input.parsed.map { try! watcher.watch("Person", predicate: $0) }
    precondition(watcher.watchCount == registrationCount)
    benchmark.startMeasurement()
    let elapsed = timed {
      for token in tokens { token.cancel() }
    }
    benchmark.stopMeasurement()
    precondition(watcher.watchCount == 0, "\(watcher.watchCount) watches left")
    benchmark.measurement(nsPerWatch, Int((nanoseconds(elapsed) / Double(registrationCount)).rounded()))
  }

  // 4. Save-to-delegate latency: one sample per iteration. No malloc
  // counting here (the interposer counts only when asked).
  for (title, people, changed, watches, cities) in [
    ("1 changed object, 10 watches", 100, 1, 10, 10),
    ("100 changed objects, 10,000 watches", 10_000, 100, 10_000, 1_000),
  ] {
    Benchmark(
      "latency · \(title)",
      configuration: .init(
        metrics: [latencyMetric, saveMetric], timeUnits: .microseconds, units: plainUnits, warmupIterations: 20,
        maxDuration: .seconds(10), maxIterations: 5_000,
        setup: { latencyFixture = LatencyFixture(people: people, changed: changed, watches: watches, cities: cities) },
        teardown: { latencyFixture = nil })
    ) { benchmark in
      let (latency, save) = latencyFixture!.sample()
      benchmark.measurement(latencyMetric, latency)
      benchmark.measurement(saveMetric, save)
    }
  }
  Benchmark(
    "latency · floor: DispatchQueue.async hop, no watcher",
    configuration: .init(
      metrics: [latencyMetric], timeUnits: .microseconds, units: plainUnits, warmupIterations: 20,
      maxDuration: .seconds(10), maxIterations: 5_000, setup: { hopFixture = HopFixture() },
      teardown: { hopFixture = nil })
  ) { benchmark in
    benchmark.measurement(latencyMetric, hopFixture!.sample())
  }

  // 5. Object monitors (ObjectMonitorBenchmarks.swift).
  registerObjectMonitorBenchmarks()
}
