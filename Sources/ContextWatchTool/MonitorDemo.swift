import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL

/// The monitors' part of `context-watch demo`: an object monitor of one
/// person and a list monitor of people sectioned by department, following
/// a few saves, each change printed as a table view would apply it.
enum MonitorDemo {
  /// Prints an object monitor's reports.
  final class ObjectPrinter: ObjectObserver {
    func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {
      print("   ↳ \(MonitorDemo.name(object))'s monitor: updated \(changedKeys.joined(separator: ", "))")
    }
    func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot) {
      print("   ↳ \(MonitorDemo.name(object))'s monitor: deleted")
    }
  }

  /// Prints a list monitor's changes, in the order a table view applies
  /// them, and the list after them.
  final class ListPrinter: ListSectionObserver {
    let lines = LockedState<[String]>([])

    private func add(_ line: String) { lines.withLock { $0.append(line) } }

    func listMonitorWillChange(_ monitor: ListMonitor) { add("   ↳ list: begin updates") }
    func listMonitor(_ monitor: ListMonitor, didDelete object: ObjectSnapshot, at indexPath: ListIndexPath) {
      add("       delete row \(indexPath) (\(MonitorDemo.name(object)))")
    }
    func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int) {
      add("       delete section \(index) (\(section.name ?? "no department"))")
    }
    func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int) {
      add("       insert section \(index) (\(section.name ?? "no department"))")
    }
    func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath) {
      add("       insert row \(indexPath) (\(MonitorDemo.name(object)))")
    }
    func listMonitor(
      _ monitor: ListMonitor, didMove object: ObjectSnapshot, from: ListIndexPath, to: ListIndexPath,
      changedKeys: [String]
    ) {
      add("       move row \(from) → \(to) (\(MonitorDemo.name(object)); \(changedKeys.joined(separator: ", ")))")
    }
    func listMonitor(
      _ monitor: ListMonitor, didUpdate object: ObjectSnapshot, at indexPath: ListIndexPath, changedKeys: [String]
    ) {
      add("       reload row \(indexPath) (\(MonitorDemo.name(object)); \(changedKeys.joined(separator: ", ")))")
    }
    func listMonitorDidChange(_ monitor: ListMonitor) {
      add("     end updates; the table: \(MonitorDemo.table(monitor))")
    }

    func flush() {
      for line in lines.withLock({ lines in
        defer { lines = [] }
        return lines
      }) { print(line) }
    }
  }

  static func name(_ object: ObjectSnapshot) -> String {
    if case .string(let name)? = object["name"] { return name }
    return object.objectID.description
  }

  /// `R&D: Ann, Di | Shop: Cy`.
  static func table(_ monitor: ListMonitor) -> String {
    (0..<monitor.numberOfSections).map { index in
      let names = monitor.objects(inSection: index).map(name).joined(separator: ", ")
      return "\(monitor.section(at: index).name ?? "no department"): \(names)"
    }.joined(separator: " | ")
  }

  /// Runs the monitors' story on `context`, which holds Ann in R&D.
  static func run(context: ObjectContext, ann: ManagedObject, departments: [String: ManagedObject]) -> Bool {
    print(
      """

      Monitors. An ObjectMonitor follows Ann; a ListMonitor lists people sectioned by department,
      sorted by department name then name, on queue 'demo.monitors'. Each change is printed as a
      table view would apply it, then the table after it.

      """)
    let queue = DispatchQueue(label: "demo.monitors")
    let objectPrinter = ObjectPrinter()
    let listPrinter = ListPrinter()
    let monitors: (ObjectMonitor, ListMonitor)
    do {
      let request = try ListRequest(
        "Person", where: "age >= %d", arguments: [18],
        sortedBy: [.ascending("department.name"), .ascending("name")], sectionedBy: "department.name")
      monitors = (
        try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(queue)),
        try ListMonitor(context: context, request: request, scheduler: .queue(queue))
      )
    } catch {
      Console.error("demo failed: \(error)")
      return false
    }
    let (annMonitor, list) = monitors
    annMonitor.addObserver(objectPrinter)
    list.addObserver(listPrinter)
    print("  the table: \(table(list))\n")

    let story: [(String, (ObjectContext) throws -> Void)] = [
      (
        "Cy (30) joins the Shop and Di (45) joins R&D.",
        { context in
          let cy = try context.insert("Person", values: ["name": "Cy", "age": 30])
          let di = try context.insert("Person", values: ["name": "Di", "age": 45])
          try cy.setRelationship("department", to: departments["shop"]!)
          try di.setRelationship("department", to: departments["lab"]!)
        }
      ),
      (
        "Ann moves to the Shop: a move between sections, and an update for Ann's monitor.",
        { _ in
          try ann.setRelationship("department", to: departments["shop"]!)
        }
      ),
      (
        "The Shop is renamed Store: its people go to the new section, though they did not change.",
        { _ in
          try departments["shop"]!.setValue("Store", forKey: "name")
        }
      ),
      (
        "Di leaves: R&D is empty, and its section goes.",
        { context in
          try context.delete(context.objects(of: "Person").first { name($0.snapshot()) == "Di" }!)
        }
      ),
    ]
    for (title, work) in story {
      print("• \(title)")
      do {
        try context.performAndWait { context in
          try work(context)
          _ = try context.save()
        }
      } catch {
        Console.error("demo failed: \(error)")
        return false
      }
      annMonitor.flush()
      list.flush()
      listPrinter.flush()
      print("")
    }
    return true
  }
}
