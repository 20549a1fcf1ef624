// What a typed list monitor (RecordListMonitor) adds to a ListMonitor's cost
// per changed object.
//
//   swift run -c release --package-path Benchmarks RecordListTiming          # 100,000 listed
//   swift run -c release --package-path Benchmarks RecordListTiming 20000    # another size
//   RecordListTiming --saves-only typed 100000 1000   # 1,000 typed saves alone, for a profiler
//   RecordListTiming --saves-only untyped 100000 1000 # the same with the untyped monitor
//
// Three contexts hold the same n people (50 cities, random scores): one
// with a ListMonitor, one with a RecordListMonitor<Person> over the same
// request, one with no monitor. Both lists are sectioned by city and sorted
// by city then score, delivering at once (`.immediate`), each with one
// closure observer that reads every changed object: the untyped one its
// snapshot's age, the typed one its record's (decoded once per change by
// the monitor). Each round saves 10 changed people in each context, in turn
// (typed, untyped, plain), the same changes in each: 5 get a new score
// (they move within their city), 5 a new name (updated in place).
//
// A monitor's cost is its save's time less the plain save's; the figure is
// the ratio of the medians, typed to untyped, with the medians themselves.
// Every round checks that both observers read the same ages.

import BenchmarkSupport
import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Synchronization

struct Person: EntityRecord, Sendable {
  static let entityName = "Person"
  var name: String
  var city: String
  var age: Int
  var score: Double
}

let schema = BenchmarkSchemas.cityPeople

func populate(_ count: Int) -> (ObjectContext, [ManagedObject]) {
  let context = ObjectContext(schema: schema, name: "people", notificationCenter: nil)
  var random = SeededGenerator(seed: 42)
  let people = try! context.performAndWait { context in
    let people = try (0..<count).map { index in
      try context.insert(
        Person(
          name: "p\(index)", city: "C\(index % 50)", age: index % 90,
          score: Double.random(in: 0..<1_000, using: &random)))
    }
    _ = try context.save()
    return people
  }
  return (context, people)
}

let request = try! ListRequest(
  Person.self, where: "TRUEPREDICATE", sortedBy: [.ascending("city"), .ascending("score")], sectionedBy: "city")

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

/// The ages a closure observer read from one delivery's moved and updated
/// objects.
final class Ages: Sendable {
  let read = Mutex<[Int]>([])
}

func observeUntyped(_ monitor: ListMonitor, into ages: Ages) -> ObserverToken {
  monitor.observe { update in
    var read: [Int] = []
    for move in update.changes.moved { if case .int(let age)? = move.object["age"] { read.append(Int(age)) } }
    for change in update.changes.updated { if case .int(let age)? = change.object["age"] { read.append(Int(age)) } }
    ages.read.withLock { $0 = read }
  }
}

func observeTyped(_ monitor: RecordListMonitor<Person>, into ages: Ages) -> ObserverToken {
  monitor.observe { update in
    var read: [Int] = []
    for move in update.changes.moved { if case .success(let person) = move.record { read.append(person.age) } }
    for change in update.changes.updated { if case .success(let person) = change.record { read.append(person.age) } }
    ages.read.withLock { $0 = read }
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--saves-only" {
  // For profilers: monitored saves alone.
  let typed = arguments.dropFirst().first == "typed"
  let numbers = arguments.dropFirst(2).compactMap { Int($0) }
  let (context, people) = populate(numbers.first ?? 100_000)
  let ages = Ages()
  let monitor: any Sendable
  let token: ObserverToken
  if typed {
    let list = try! RecordListMonitor<Person>(context: context, request: request, scheduler: .immediate)
    (monitor, token) = (list, observeTyped(list, into: ages))
  } else {
    let list = try! ListMonitor(context: context, request: request, scheduler: .immediate)
    (monitor, token) = (list, observeUntyped(list, into: ages))
  }
  var random = SeededGenerator(seed: 7)
  for round in 0..<(numbers.dropFirst().first ?? 1_000) {
    saveTenChanges(context, people, round: round, random: &random)
  }
  withExtendedLifetime((monitor, token)) {}
  exit(0)
}

let count = arguments.compactMap { Int($0) }.first ?? 100_000
let rounds = count >= 100_000 ? 600 : 2_000
let (typedContext, typedPeople) = populate(count)
let (untypedContext, untypedPeople) = populate(count)
let (plainContext, plainPeople) = populate(count)
let typed = try! RecordListMonitor<Person>(context: typedContext, request: request, scheduler: .immediate)
let untyped = try! ListMonitor(context: untypedContext, request: request, scheduler: .immediate)
precondition(typed.count == count && untyped.count == count)
let (typedAges, untypedAges) = (Ages(), Ages())
let tokens = (observeTyped(typed, into: typedAges), observeUntyped(untyped, into: untypedAges))

var randoms = (SeededGenerator(seed: 7), SeededGenerator(seed: 7), SeededGenerator(seed: 7))
var (typedTimes, untypedTimes, plainTimes) = ([UInt64](), [UInt64](), [UInt64]())
for round in 0..<(rounds + 50) {
  var start = now()
  saveTenChanges(typedContext, typedPeople, round: round, random: &randoms.0)
  let typedTime = now() - start
  start = now()
  saveTenChanges(untypedContext, untypedPeople, round: round, random: &randoms.1)
  let untypedTime = now() - start
  start = now()
  saveTenChanges(plainContext, plainPeople, round: round, random: &randoms.2)
  let plainTime = now() - start
  let (typedRead, untypedRead) = (typedAges.read.withLock { $0 }, untypedAges.read.withLock { $0 })
  precondition(
    typedRead == untypedRead && (1...10).contains(typedRead.count),
    "round \(round): the typed observer read \(typedRead), the untyped one \(untypedRead)")
  // The first rounds warm up: type metadata, caches.
  guard round >= 50 else { continue }
  typedTimes.append(typedTime)
  untypedTimes.append(untypedTime)
  plainTimes.append(plainTime)
}
withExtendedLifetime(tokens) {}

let (typedSave, untypedSave, plainSave) = (median(typedTimes), median(untypedTimes), median(plainTimes))
let (typedCost, untypedCost) = ((typedSave - plainSave) / 10, (untypedSave - plainSave) / 10)
func text(_ nanoseconds: Double) -> String { String(format: "%.2f µs", nanoseconds / 1_000) }
print("\(count) listed, \(rounds) rounds of 10 changed objects")
print("save: typed monitor \(text(typedSave)), untyped \(text(untypedSave)), no monitor \(text(plainSave))")
print("per changed object: typed monitor \(text(typedCost)), untyped \(text(untypedCost))")
print(
  String(format: "typed / untyped: %.2fx (adds %.0f%%)", typedCost / untypedCost, (typedCost / untypedCost - 1) * 100))
