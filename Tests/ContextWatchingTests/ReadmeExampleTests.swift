import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import Testing

/// The README's watcher example, kept compiling and working.
@Suite("README example: watching")
struct WatcherReadmeExampleTests {
  @Test func theWatcherExampleRuns() throws {
    let context = WatcherFixtures.context()
    let printed = LockedState<[String]>([])
    @Sendable func print(_ items: Any...) {
      printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) }
    }

    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: .queue(DispatchQueue(label: "ui"))) { changes in
        print("save", changes.sequenceNumber)
        print("  new:", changes.inserted.map(\.objectID), "entered:", changes.entered.map(\.objectID))
        print("  changed:", changes.updated.map(\.changes), "exited:", changes.exited.map(\.objectID))
      })
    let seniors = try watcher.watch("Person", where: "age >= %d", 60)  // keep the token
    let research = try watcher.watch(
      "Person", where: "department.name == 'R&D'", options: WatchOptions(events: [.entered, .exited]))

    let ann = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 61])
      try context.save()
      try ann.setValue(62, forKey: "age")
      try context.save()
      return ann
    }
    watcher.flush()
    #expect(
      printed.withLock { $0 } == [
        "save 1", "  new: [\(ann.objectID)] entered: []", "  changed: [] exited: []",
        "save 2", "  new: [] entered: []", "  changed: [[age: 61 → 62]] exited: []",
      ])
    withExtendedLifetime((seniors, research)) {}
  }
}
