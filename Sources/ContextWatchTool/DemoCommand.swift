import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL

/// `context-watch demo`: the main job on an embedded default. A built-in
/// schema, four watches and a story of saves, with each delivery printed as
/// it arrives on the watcher's queue: inserts, enter and exit, a key filter,
/// an ignored key, a change through a relationship, a delete, a refused
/// watch and an explanation; then an object monitor and a sectioned list
/// monitor following more saves, with the changes a table view applies.
///
/// `demo --saves N` runs a generated workload instead and prints throughput
/// and save-to-delivery latency; `demo predicates` tours the predicate
/// language.
enum DemoCommand {
  static func run(_ arguments: [String]) -> Int32 {
    switch arguments.first {
    case nil:
      return story()
    case "predicates":
      return PredicateTourCommand.run(Array(arguments.dropFirst()))
    case "--saves":
      guard let text = arguments.dropFirst().first else {
        return usageError("--saves needs a number of saves")
      }
      guard let saves = Int(text), WorkloadDemo.saveRange.contains(saves) else {
        return usageError(
          "--saves takes a whole number from \(WorkloadDemo.saveRange.lowerBound) to "
            + "\(WorkloadDemo.saveRange.upperBound), not '\(text)'")
      }
      if let extra = arguments.dropFirst(2).first { return usageError("unexpected argument '\(extra)'") }
      return WorkloadDemo.run(saves: saves)
    case let argument?:
      return usageError("unknown argument '\(argument)'")
    }
  }

  static let usage = "usage: context-watch demo [--saves N | predicates]"

  /// Reports a usage error on standard error, what is wrong then the usage,
  /// and returns the exit status of a usage error.
  private static func usageError(_ message: String) -> Int32 {
    Console.error("context-watch: demo: \(message)\n\(usage)")
    return 64
  }

  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company", attributes: [.init("name", .string)],
          relationships: [
            .toMany("departments", destination: "Department", inverse: "company", deleteRule: .cascade),
            .toMany("staff", destination: "Person", inverse: "employer"),
          ]),
        EntityDescription(
          "Department", attributes: [.init("name", .string)],
          relationships: [
            .toOne("company", destination: "Company", inverse: "departments"),
            .toMany("members", destination: "Person", inverse: "department"),
          ]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string), .init("age", .integer), .init("lastSeen", .date, isOptional: true),
          ],
          relationships: [
            .toOne("department", destination: "Department", inverse: "members"),
            .toOne("employer", destination: "Company", inverse: "staff"),
          ],
          ignoredKeys: ["lastSeen"]),
        EntityDescription("Employee", parent: "Person", attributes: [.init("salary", .integer)]),
      ])
    } catch {
      fatalError("the demo schema is invalid: \(error)")
    }
  }()

  /// Prints deliveries as they arrive on the delivery queue.
  final class Printer: ContextWatcherDelegate, Sendable {
    let labels = LockedState<[WatchID: String]>([:])
    let lastDelivered = LockedState(0)

    func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
      lastDelivered.withLock { $0 = changes.sequenceNumber }
      let labels = labels.withLock { $0 }
      var lines = ["   ↳ delivery for save \(changes.sequenceNumber) on queue 'demo.deliveries':"]
      for (id, matches) in changes.attribution.map({ ($0.objectID, $0.matches) }) {
        let name = DemoCommand.name(of: id, in: changes)
        for match in matches {
          var line = "       \(labels[match.watch] ?? "\(match.watch)"): \(match.event) \(name)"
          if let update = (changes.updated + changes.entered + changes.exited).first(where: { $0.objectID == id }) {
            let changed = update.changes.filter { $0.old != $0.new }
            if !changed.isEmpty {
              line += " (" + changed.map { "\($0.key) \($0.old) → \($0.new)" }.joined(separator: ", ") + ")"
            } else if !update.changedKeys.isEmpty {
              line += " (through its \(update.changedKeys.joined(separator: ", ")))"
            }
          }
          lines.append(line)
        }
      }
      print(lines.joined(separator: "\n"))
    }
  }

  static func name(of id: ObjectID, in changes: ContextChanges) -> String {
    let snapshots =
      changes.inserted + changes.deleted + (changes.updated + changes.entered + changes.exited).map(\.after)
    guard let snapshot = snapshots.first(where: { $0.objectID == id }), case .string(let name)? = snapshot["name"]
    else {
      return id.description
    }
    return name
  }

  private static func story() -> Int32 {
    print(
      """
      ContextWatcher demo: a context of companies, departments and people, one watcher delivering on a
      DispatchQueue, and four watches. Each save is shown, then what the watcher delivered for it.

      """)
    let context = ObjectContext(schema: schema, name: "demo", notificationCenter: nil)
    let printer = Printer()
    let watcher = ContextWatcher(
      context: context, target: .delegate(printer, on: .queue(DispatchQueue(label: "demo.deliveries"))))
    var tokens: [WatchToken] = []
    let watches: [(label: String, entity: String, format: String, options: WatchOptions)] = [
      ("seniors", "Person", "age >= 60", WatchOptions()),
      ("research", "Person", "department.name == 'R&D'", WatchOptions()),
      ("pay", "Employee", "salary > 0", WatchOptions(watchedKeys: ["salary"])),
      ("big", "Company", "staff.@count >= 2", WatchOptions(events: [.entered, .exited])),
    ]
    print("Watches:")
    for watch in watches {
      var options = watch.options
      options.label = watch.label
      do {
        tokens.append(try watcher.watch(watch.entity, where: watch.format, options: options))
        printer.labels.withLock { $0[tokens.last!.id] = watch.label }
      } catch {
        Console.error(error.detailedDescription())
        return 1
      }
      var note = ""
      if let keys = watch.options.watchedKeys {
        note = "   (updates count only when \(keys.sorted().joined(separator: ", ")) changes)"
      }
      if watch.options.events != .all { note = "   (only entered and exited)" }
      print(
        "  \(watch.label.padding(toLength: 9, withPad: " ", startingAt: 0)) \(watch.entity) where \(watch.format)\(note)"
      )
    }
    print("  (Person.lastSeen is an ignored key in the schema: changing only it is no update.)\n")

    var objects: [String: ManagedObject] = [:]
    func step(_ title: String, author: String? = nil, _ work: (ObjectContext) throws -> Void) -> Bool {
      print("• \(title)")
      do {
        let save = try context.performAndWait { context throws -> ContextSave? in
          try work(context)
          return try context.save(author: author)
        }
        watcher.flush()
        if let save, printer.lastDelivered.withLock({ $0 }) != save.sequenceNumber {
          print("   ↳ save \(save.sequenceNumber): no watch saw it, so nothing was delivered")
        }
        print("")
        return true
      } catch {
        Console.error("demo failed: \(error)")
        return false
      }
    }
    let story: [(String, (ObjectContext) throws -> Void)] = [
      (
        "Acme is founded with a Lab and a Shop; Ann (59, an employee in the Lab) and Bob (72, in the Shop) join.",
        { context in
          let acme = try context.insert("Company", values: ["name": "Acme"])
          let lab = try context.insert("Department", values: ["name": "Lab"])
          let shop = try context.insert("Department", values: ["name": "Shop"])
          try acme.add(lab, to: "departments")
          try acme.add(shop, to: "departments")
          let ann = try context.insert("Employee", values: ["name": "Ann", "age": 59, "salary": 100])
          let bob = try context.insert("Person", values: ["name": "Bob", "age": 72])
          try ann.setRelationship("department", to: lab)
          try bob.setRelationship("department", to: shop)
          objects = ["acme": acme, "lab": lab, "shop": shop, "ann": ann, "bob": bob]
        }
      ),
      (
        "Ann turns 60: she enters 'seniors'; 'pay' ignores it (only salary counts).",
        { _ in
          try objects["ann"]!.setValue(60, forKey: "age")
        }
      ),
      (
        "Ann gets a raise: 'pay' and 'seniors' report an update with the old and new salary.",
        { _ in
          try objects["ann"]!.setValue(120, forKey: "salary")
        }
      ),
      (
        "The Lab is renamed R&D: Ann enters 'research' although Ann herself did not change.",
        { _ in
          try objects["lab"]!.setValue("R&D", forKey: "name")
        }
      ),
      (
        "Bob is seen online: lastSeen is ignored, so no watch reports it.",
        { _ in
          try objects["bob"]!.setValue(.date(secondsSinceReferenceDate: 800_000_000), forKey: "lastSeen")
        }
      ),
      (
        "Ann and Bob are hired by Acme: Acme enters 'big' (two staff).",
        { _ in
          try objects["acme"]!.add(objects["ann"]!, to: "staff")
          try objects["acme"]!.add(objects["bob"]!, to: "staff")
        }
      ),
      (
        "Bob moves to R&D, then leaves: he enters 'research' ... ",
        { _ in
          try objects["bob"]!.setRelationship("department", to: objects["lab"]!)
        }
      ),
      (
        "... and is deleted: 'seniors' and 'research' report the delete; Acme exits 'big'.",
        { context in
          try context.delete(objects["bob"]!)
        }
      ),
    ]
    for (title, work) in story where !step(title, work) { return 1 }

    print("• A watch with a typo is refused when it is added, never a silent no-match:")
    do {
      _ = try watcher.watch("Person", where: "agee >= 60")
    } catch {
      print(error.detailedDescription().split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
    }
    print("\n• Why does Ann match 'seniors' and not 'big'? watcher.explain(ann, for: watch):")
    context.performAndWait { _ in
      for token in [tokens[0], tokens[3]] {
        if let explanation = watcher.explain(objects["ann"]!, for: token.id) {
          print(explanation.description.split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
        }
      }
    }
    // The watches stop here, so that their deliveries do not interleave
    // with the monitors' reports.
    for token in tokens { token.cancel() }
    watcher.flush()
    guard
      MonitorDemo.run(
        context: context, ann: objects["ann"]!, departments: ["lab": objects["lab"]!, "shop": objects["shop"]!])
    else { return 1 }
    print("Run `context-watch demo --saves 1000` for a generated workload with throughput and latency.")
    return 0
  }
}
