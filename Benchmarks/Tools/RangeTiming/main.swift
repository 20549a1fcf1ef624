// What range watches cost a watcher: matching per changed object at
// 1,000 and 100,000 watches (and the growth), registering, removing, and
// heap bytes per watch.
//
//   swift run -c release --package-path Benchmarks RangeTiming           # 1,000 and 100,000
//   swift run -c release --package-path Benchmarks RangeTiming 10000     # other large size
//
// Watches on `Person` (`city`, `age`, `score`), about one match per changed
// object, for two widths (1e-5 and 1e5):
//
//   between      `score BETWEEN {%@, %@}`: ranges of the width, their
//                lower bounds uniform over n widths, so a value lies in
//                about one;
//   half-open    `score >= %@ AND score < %@`: the same ranges;
//   keyed        `city == %@ AND score BETWEEN {%@, %@}`: 100 ranges a
//                city, over 100 widths, so again about one;
//   city-age     `city == %@ AND age > %@` (the width plays no part): one
//                watch a city, thresholds 18...60;
//   text-range   `name >= %@ AND name < %@`: names are numbers written with
//                ten digits (their order is the numbers'), ranges of
//                1,000 numbers, lower bounds uniform over n of them;
//   prefix       `name BEGINSWITH %@`: prefixes of seven digits (1,000
//                names each), uniform over n of them.
//
// A save updates 200 people: each gets a new score and name (uniform over
// the watches' span) and age; the people's cities are the watches' cities. Eight
// such saves are made once and fed to `watcher.process(_:)` in turn, with an
// immediate handler (classification before and after, delivery built), the
// small and the large watcher alternating round by round so that the
// machine's noise falls on both alike. Prints the medians per changed
// object, their ratio, and the large watcher's best round (p0).
//
// Registration is timed over all the watches (`watch(_:where:arguments:)`,
// parsing included), then the first save after it apart (the index sorts
// its new entries and builds its tree once, before matching), then what
// registering one more watch adds to the next save (the medians of nine
// saves after one registration each and nine saves alone, alternating);
// removal over all the tokens.
// Memory is glibc's count of heap bytes in use (mallinfo2) before the
// watches and after them and a save, divided by their number, tokens
// included.
//
// Every save checks its result: the (object, watch) matches delivered equal
// a count made in plain Swift from the watches' bounds.

import BenchmarkSupport
import ContextWatching
import Dispatch
import MallocInfo
import ObjectGraph
import PredicateDSL

let schema = BenchmarkSchemas.cityPeople

let changedCount = 200
let saveCount = 8
let keyedPerCity = 100

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [UInt64]) -> Double {
  let sorted = values.sorted()
  return Double(sorted[sorted.count / 2])
}

enum Form: String, CaseIterable {
  case between, halfOpen = "half-open", keyed, cityAge = "city-age", textRange = "text-range", prefix

  /// Whether the watches are on names, not scores (one width).
  var isText: Bool { self == .textRange || self == .prefix }

  var format: String {
    switch self {
    case .between: "score BETWEEN {%@, %@}"
    case .halfOpen: "score >= %@ AND score < %@"
    case .keyed: "city == %@ AND score BETWEEN {%@, %@}"
    case .cityAge: "city == %@ AND age > %@"
    case .textRange: "name >= %@ AND name < %@"
    case .prefix: "name BEGINSWITH %@"
    }
  }
}

/// Numbers of 1,000 names: a text range's width, a prefix's reach.
let textWidth = 1_000

/// A number written with ten digits: names sort as their numbers.
func name(_ number: Int) -> String {
  let digits = String(number)
  return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
}

/// One watch, as the benchmark can check it by hand.
struct Spec {
  var city: String?
  var low: Double
  var high: Double
  var minAge: Int?
  var form: Form
  /// The bounds of a text range, or a prefix as the lower one.
  var lowText = ""
  var highText = ""

  func matches(city: String, age: Int, score: Double, name: String) -> Bool {
    if let wanted = self.city, wanted != city { return false }
    if let minAge { return age > minAge }
    // Digits only: Swift's order of these strings is their bytes'.
    if form == .textRange { return name >= lowText && name < highText }
    if form == .prefix { return name.hasPrefix(lowText) }
    return score >= low && (form == .halfOpen ? score < high : score <= high)
  }
}

/// The watches of a form: `count` of them, ranges of `width`.
func makeSpecs(_ form: Form, count: Int, width: Double, using random: inout SeededGenerator) -> [Spec] {
  (0..<count).map { index in
    switch form {
    case .between, .halfOpen:
      let low = Double.random(in: 0..<Double(count) * width, using: &random)
      return Spec(city: nil, low: low, high: low + width, minAge: nil, form: form)
    case .keyed:
      let low = Double.random(in: 0..<Double(keyedPerCity) * width, using: &random)
      return Spec(city: "C\(index / keyedPerCity)", low: low, high: low + width, minAge: nil, form: form)
    case .cityAge:
      return Spec(city: "C\(index)", low: 0, high: 0, minAge: Int.random(in: 18...60, using: &random), form: form)
    case .textRange:
      let low = Int.random(in: 0..<count * textWidth, using: &random)
      return Spec(low: 0, high: 0, form: form, lowText: name(low), highText: name(low + textWidth))
    case .prefix:
      let low = Int.random(in: 0..<count * textWidth, using: &random)
      return Spec(low: 0, high: 0, form: form, lowText: String(name(low).dropLast(3)))
    }
  }
}

func arguments(_ spec: Spec) -> [FilterValue] {
  switch spec.form {
  case .between, .halfOpen: [.double(spec.low), .double(spec.high)]
  case .keyed: [.string(spec.city!), .double(spec.low), .double(spec.high)]
  case .cityAge: [.string(spec.city!), .int(Int64(spec.minAge!))]
  case .textRange: [.string(spec.lowText), .string(spec.highText)]
  case .prefix: [.string(spec.lowText)]
  }
}

/// A watcher holding one form's watches, and saves to feed it.
final class Fixture {
  let specs: [Spec]
  var tokens: [WatchToken] = []
  let watcher: ContextWatcher
  let saves: [ContextSave]
  let expected: [Int]
  var delivered = 0
  let registerNanoseconds: UInt64
  let firstSaveNanoseconds: UInt64
  let bytesPerWatch: Double

  init(_ form: Form, count: Int, width: Double) {
    var random = SeededGenerator(seed: 25)
    let specs = makeSpecs(form, count: count, width: width, using: &random)
    self.specs = specs
    let span = Double(form == .keyed ? keyedPerCity : count) * width
    let cities = form == .keyed ? max(1, count / keyedPerCity) : count

    // Saves of 200 updated people, made once.
    let context = ObjectContext(schema: schema, name: "people", notificationCenter: nil)
    let saves = context.performAndWait { context in
      let people = (0..<changedCount).map { index in
        try! context.insert(
          "Person",
          values: [
            "name": .string(name(Int.random(in: 0..<count * textWidth, using: &random))),
            "city": .string("C\(Int.random(in: 0..<cities, using: &random))"),
            "age": .int(Int64.random(in: 18...80, using: &random)),
            "score": .double(Double.random(in: 0..<span, using: &random)),
          ])
      }
      try! context.save()
      return (0..<saveCount).map { _ in
        for person in people {
          try! person.setValue(.double(Double.random(in: 0..<span, using: &random)), forKey: "score")
          try! person.setValue(.string(name(Int.random(in: 0..<count * textWidth, using: &random))), forKey: "name")
          try! person.setValue(.int(Int64.random(in: 18...80, using: &random)), forKey: "age")
        }
        return try! context.save()!
      }
    }
    self.saves = saves
    // The (object, watch) pairs each save must deliver: a watch matching
    // the object before or after.
    let expected = saves.map { save in
      var pairs = 0
      for update in save.updated {
        func values(_ snapshot: ObjectSnapshot) -> (String, Int, Double, String) {
          guard case .string(let city)? = snapshot["city"], case .int(let age)? = snapshot["age"],
            case .double(let score)? = snapshot["score"], case .string(let name)? = snapshot["name"]
          else { preconditionFailure("a person without values") }
          return (city, Int(age), score, name)
        }
        let (before, after) = (values(update.before), values(update.after))
        for spec in specs
        where spec.matches(city: before.0, age: before.1, score: before.2, name: before.3)
          || spec.matches(city: after.0, age: after.1, score: after.2, name: after.3)
        {
          pairs += 1
        }
      }
      return pairs
    }
    self.expected = expected

    let counter = Counter()
    let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { counter.count($0) })
    self.watcher = watcher
    self.counter = counter
    var tokens: [WatchToken] = []
    tokens.reserveCapacity(count)
    let bytesBefore = malloc_info_bytes_in_use()
    let start = now()
    for spec in specs {
      tokens.append(try! watcher.watch("Person", where: form.format, arguments: arguments(spec)))
    }
    let registered = now()
    watcher.process(saves[0])
    let firstSaved = now()
    let bytesAfter = malloc_info_bytes_in_use()
    self.tokens = tokens
    registerNanoseconds = registered - start
    firstSaveNanoseconds = firstSaved - registered
    bytesPerWatch = Double(bytesAfter - bytesBefore) / Double(count)
    precondition(counter.matches == expected[0], "delivered \(counter.matches), expected \(expected[0])")
  }

  let counter: Counter

  /// Processes save `index`, checked; returns the nanoseconds it took.
  @inline(never)
  func process(_ index: Int) -> UInt64 {
    counter.matches = 0
    let start = now()
    watcher.process(saves[index])
    let elapsed = now() - start
    precondition(
      counter.matches == expected[index], "delivered \(counter.matches), expected \(expected[index])")
    return elapsed
  }

  /// Cancels every token; returns the nanoseconds it took.
  func removeAll() -> UInt64 {
    let start = now()
    for token in tokens { token.cancel() }
    let elapsed = now() - start
    precondition(watcher.watchCount == 0)
    tokens = []
    return elapsed
  }
}

/// Counts the matches a watcher delivers, on the saving thread.
final class Counter: @unchecked Sendable {
  // Unchecked: written by immediate delivery on the thread that processes
  // the save, and read by it afterwards.
  var matches = 0

  func count(_ changes: ContextChanges) {
    for attributed in changes.attribution { matches += attributed.matches.count }
  }
}

let large = CommandLine.arguments.dropFirst().compactMap { Int($0) }.first ?? 100_000
let small = 1_000
let rounds = 41

print(
  "form       width  | per changed object, p50: \(small) / \(large) watches, growth | per watch at \(large): "
    + "register, first save, remove, heap | a save, and what one more watch adds to it")
for form in Form.allCases {
  for width in form == .cityAge || form.isText ? [1.0] : [1e-5, 1e5] {
    let smallFixture = Fixture(form, count: small, width: width)
    let largeFixture = Fixture(form, count: large, width: width)
    var (smallTimes, largeTimes): ([UInt64], [UInt64]) = ([], [])
    for round in 0..<rounds {
      smallTimes.append(smallFixture.process(round % saveCount))
      largeTimes.append(largeFixture.process(round % saveCount))
    }
    let perObject = (median(smallTimes) / Double(changedCount), median(largeTimes) / Double(changedCount))
    let best = Double(largeTimes.min()!) / Double(changedCount)
    // One watch more on the full index, then a save (its entry sorted in),
    // against a save alone: the medians of 9 of each, alternating.
    var extraRandom = SeededGenerator(seed: 99)
    var (plainSaves, savesAfterOne): ([UInt64], [UInt64]) = ([], [])
    var extraTokens: [WatchToken] = []
    for round in 0..<9 {
      let plainStart = now()
      largeFixture.watcher.process(largeFixture.saves[round % saveCount])
      plainSaves.append(now() - plainStart)
      let extra = arguments(makeSpecs(form, count: 1, width: width, using: &extraRandom)[0])
      let addStart = now()
      extraTokens.append(try! largeFixture.watcher.watch("Person", where: form.format, arguments: extra))
      largeFixture.watcher.process(largeFixture.saves[(round + 1) % saveCount])
      savesAfterOne.append(now() - addStart)
    }
    for token in extraTokens { token.cancel() }
    let addAndSave = median(savesAfterOne) - median(plainSaves)
    let removal = largeFixture.removeAll()
    let line = [
      form.rawValue.padding(10), (form == .cityAge || form.isText ? "-" : "\(width)").padding(6),
      "| \(format(perObject.0)) ns / \(format(perObject.1)) ns (p0 \(format(best)) ns),",
      "\(format(perObject.1 / perObject.0, 2))x",
      "| \(format(Double(largeFixture.registerNanoseconds) / Double(large))) ns,",
      "\(format(Double(largeFixture.firstSaveNanoseconds) / Double(large))) ns,",
      "\(format(Double(removal) / Double(large))) ns, \(format(largeFixture.bytesPerWatch)) B",
      "| \(format(median(plainSaves) / 1_000)) µs, +\(format(addAndSave / 1_000)) µs",
    ]
    print(line.joined(separator: " "))
  }
}

func format(_ value: Double, _ digits: Int = 0) -> String {
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let rounded = (value * scale).rounded() / scale
  return digits == 0 ? String(Int(rounded)) : String(rounded)
}

extension String {
  func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
