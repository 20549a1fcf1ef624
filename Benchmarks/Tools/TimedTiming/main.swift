// What time-relative predicates cost: a save that moves one due date among
// a million timed objects, against the same save with a watch that does
// not read now(); and the cost of one crossing (an object falling due).
//
//   swift run -c release --package-path Benchmarks TimedTiming [objects]
import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let saves = 20_000

let schema = try ObjectSchema([
  EntityDescription(
    "Task",
    attributes: [
      .init("title", .string), .init("dueDate", .date, isOptional: true),
      .init("done", .boolean, defaultValue: false),
    ])
])

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

final class Counter: @unchecked Sendable {
  // @unchecked Sendable: only touched on the saving thread (the immediate
  // scheduler runs deliveries there) and read after the work is done.
  var entered = 0
  var deliveries = 0
}

/// A context of `count` tasks due one second apart from 1,000 on, a
/// watcher with `format` on a manual clock at 0, and the objects.
func rig(
  _ format: String
) throws -> (ObjectContext, ContextWatcher, WatchToken, ManualWatchClock, [ManagedObject], Counter, Double) {
  let context = ObjectContext(schema: schema, name: "tasks", notificationCenter: nil)
  let clock = ManualWatchClock(now: 0)
  let counter = Counter()
  let watcher = ContextWatcher(
    context: context,
    target: .handler(on: .immediate) { changes in
      counter.deliveries += 1
      counter.entered += changes.entered.count
    }, options: WatcherOptions(clock: clock))
  let token = try watcher.watch("Task", where: format)
  var objects: [ManagedObject] = []
  let build = try seconds {
    try context.performAndWait { context in
      objects.reserveCapacity(count)
      for index in 0..<count {
        objects.append(
          try context.insert(
            "Task", values: ["title": "t", "dueDate": .date(secondsSinceReferenceDate: 1000 + Double(index))]))
      }
      try context.save()
    }
  }
  return (context, watcher, token, clock, objects, counter, build)
}

func moveDueDates(_ context: ObjectContext, _ objects: [ManagedObject]) throws -> Double {
  var generator = SystemRandomNumberGenerator()
  return try seconds {
    try context.performAndWait { context in
      for _ in 0..<saves {
        let object = objects[Int.random(in: 0..<objects.count, using: &generator)]
        try context.setValue(
          .date(secondsSinceReferenceDate: 1000 + Double.random(in: 0..<Double(count), using: &generator)),
          forKey: "dueDate", of: object)
        try context.save()
      }
    }
  }
}

print("objects: \(count), saves of one due date: \(saves)")
for (label, format) in [("timed   dueDate < now()", "dueDate < now()"), ("untimed done == NO", "done == NO")] {
  let (context, watcher, token, clock, objects, counter, build) = try rig(format)
  let time = try moveDueDates(context, objects)
  print(
    "\(label): insert+save of all \(String(format: "%.2f", build)) s; "
      + "save moving one due date \(String(format: "%.2f", time / Double(saves) * 1e6)) µs; "
      + "alarms set \(clock.pendingAlarms)")
  if format.contains("now()") {
    // Crossings: advance over the first 100,000 due dates in steps of 1,000.
    let crossings = min(100_000, count)
    let before = counter.entered
    let elapsed = seconds {
      var time = 1000.0
      while time < 1000 + Double(crossings) {
        time += 1000
        clock.advance(to: time)
        context.performAndWait { _ in }
      }
    }
    let entered = counter.entered - before
    print(
      "\(label): \(entered) crossings in \(counter.deliveries) deliveries; "
        + "\(String(format: "%.2f", elapsed / Double(max(entered, 1)) * 1e6)) µs per crossing "
        + "(re-evaluation and delivery included); alarms set \(clock.pendingAlarms)")
  }
  withExtendedLifetime((watcher, token)) {}
}
