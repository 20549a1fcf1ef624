// What coalescing costs a save: one watch of 10,000 people, each save
// changing one matching person's age, delivered every save, coalesced
// every 250 ms (on the system clock), and when the consumer is ready; the
// consumer counts the objects it gets, on the saving thread.
//
//   swift run -c release --package-path Benchmarks CoalesceTiming [saves]
import ContextWatching
import Dispatch
import Foundation
import ObjectGraph

let saves = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 50_000
let people = 10_000

let schema = try ObjectSchema([
  EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer)])
])

final class Counter: @unchecked Sendable {
  // @unchecked Sendable: only touched by the handler, whose calls run one at
  // a time in the context's turn (the immediate scheduler runs them where
  // they are emitted: in a save, or in the block a coalesced emission
  // queues on the context), and read after flush() has waited for them.
  var deliveries = 0
  var objects = 0
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Saves `saves` times, each changing one person's age (staying over 30),
/// with a watch of people over 30 delivered by `policy`; the seconds per
/// save and what the consumer got.
func run(_ policy: DeliveryPolicy) throws -> (perSave: Double, counter: Counter) {
  let context = ObjectContext(schema: schema, name: "people", notificationCenter: nil)
  let watcher = ContextWatcher(context: context, target: .watchHandlers(on: .immediate))
  let counter = Counter()
  let token = try watcher.watch(
    "Person", where: "age > 30", options: WatchOptions(delivery: policy),
    handler: .changes { changes in
      counter.deliveries += 1
      counter.objects += changes.updated.count + changes.inserted.count
    })
  let objects = try context.performAndWait { context in
    let objects = try (0..<people).map { index in
      try context.insert("Person", values: ["name": .string("p\(index)"), "age": .int(Int64(31 + index % 50))])
    }
    try context.save()
    return objects
  }
  var generator = SystemRandomNumberGenerator()
  let elapsed = try seconds {
    try context.performAndWait { context in
      for _ in 0..<saves {
        let object = objects[Int.random(in: 0..<people, using: &generator)]
        try context.setValue(.int(Int64.random(in: 31..<90, using: &generator)), forKey: "age", of: object)
        try context.save()
      }
    }
  }
  watcher.flush()
  withExtendedLifetime(token) {}
  return (elapsed / Double(saves), counter)
}

print("people: \(people), saves of one age: \(saves)")
var baseline: Double?
for (label, policy) in [
  ("every save          ", DeliveryPolicy.everySave), ("coalesced every 250ms", .coalesced(every: .milliseconds(250))),
  ("when ready          ", .whenReady),
] {
  let (perSave, counter) = try run(policy)
  baseline = baseline ?? perSave
  print(
    "\(label): \(String(format: "%.2f", perSave * 1e6)) µs a save (\(String(format: "%.2f", perSave / baseline!))x); "
      + "\(counter.deliveries) deliveries of \(counter.objects) objects")
}
