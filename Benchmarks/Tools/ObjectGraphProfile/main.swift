// A driver for profiling the object graph under callgrind: the
// work of one benchmark inside a function named `measuredLoop`, so that
// callgrind can count it alone.
//
//   swift build -c release --product ObjectGraphProfile
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredLoop*' \
//     .build/release/ObjectGraphProfile fetch 20
//
// Modes (100,000 people of five attributes, as ObjectGraphBenchmarks):
//   insert            100,000 inserts with prebuilt values, one save
//   fetch ROUNDS      ROUNDS fetches of `age > 40 AND name BEGINSWITH "A"`
//   compiled ROUNDS   ROUNDS passes of the compiled filter, counting
//
// Figures: docs/benchmarks.md.

import BenchmarkSupport
import ObjectGraph
import PredicateDSL

let schema = BenchmarkSchemas.datedPeople
let names = ["Alice", "Albert", "Anna", "Ariane", "Bob", "Alexandre", "Amelie", "Aaron", "Caroline", "Ada"]
func person(_ index: Int) -> [String: FilterValue] {
  let name: FilterValue = .string(names[index % names.count])
  let age: FilterValue = .int(Int64(18 + index * 7 % 63))
  let score: FilterValue = .double(Double(index % 1_000) / 10)
  let active: FilterValue = .bool(index % 10 != 0)
  let born: FilterValue = .date(secondsSinceReferenceDate: Double(index) * 1_000)
  return ["name": name, "age": age, "score": score, "active": active, "born": born]
}
let values = (0..<100_000).map(person)
let predicate = #"age > 40 AND name BEGINSWITH "A""#

@inline(never)
func measuredLoop(_ rounds: Int, _ body: () -> Int) -> Int {
  var total = 0
  for _ in 0..<rounds { total += body() }
  return total
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
let mode = arguments.first ?? "fetch"
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
let context = ObjectContext(schema: schema, name: "profile", notificationCenter: nil)
let total = context.performAndWait { context in
  if mode == "insert" {
    return measuredLoop(1) {
      for person in values { try! context.insert("Person", values: person) }
      return try! context.save()!.inserted.count
    }
  }
  var objects: [ManagedObject] = []
  for person in values { objects.append(try! context.insert("Person", values: person)) }
  try! context.save()
  let request = try! ObjectFetchRequest(entity: "Person", predicate: predicate)
  let filter = try! schema.filter(predicate, for: "Person")
  if mode == "fetch" { return measuredLoop(rounds) { try! context.fetch(request).count } }
  return measuredLoop(rounds) {
    var count = 0
    for object in objects where try! filter.evaluate(object) { count += 1 }
    return count
  }
}
print("\(mode): \(total)")
