import ContextWatching
import ObjectGraph
import Observation
import PredicateDSL
import Testing

// docs/monitors.md's records example, word for word, with `print`
// captured.

@MainActor private var printed: [String] = []

private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let line = items.map { "\($0)" }.joined(separator: separator)
  MainActor.assumeIsolated { printed.append(line) }
}

struct Tenant: EntityRecord, Equatable, Sendable {
  static let entityName = "Person"
  var name: String
  var city: String
  var age: Int
}

final class Tenants: RecordListObserver {
  func listMonitor(_ monitor: RecordListMonitor<Tenant>, didInsert change: RecordListChanges<Tenant>.Change) {
    if case .success(let tenant) = change.record { print("new:", tenant.name, "at", change.indexPath) }
  }
}

@MainActor
func follow(
  _ context: ObjectContext, ann: ObjectID
) throws -> (RecordListModel<Tenant>, RecordObjectModel<Tenant>, Tenants, ObserverToken) {
  let request = try ListRequest(
    Tenant.self, where: "age >= %d", arguments: [18],
    sortedBy: [.ascending("city"), .ascending("name")], sectionedBy: "city")
  let tenants = try RecordListMonitor<Tenant>(context: context, request: request, scheduler: .mainActor)
  let first: Tenant = try tenants[ListIndexPath(item: 0, section: 0)]
  print(first.name, tenants.count)

  let observer = Tenants()
  tenants.addObserver(observer)  // held weakly, as a list monitor's observers are
  let token = tenants.observe { update in
    for change in update.changes.updated {
      print(change.indexPath, change.changedKeys, (try? change.record.get())?.age ?? -1)
    }
  }

  let annMonitor = try RecordObjectMonitor<Tenant>(context: context, objectID: ann, scheduler: .mainActor)
  let annModel = RecordObjectModel(annMonitor)
  withObservationTracking {
    _ = annModel.record?.age
  } onChange: {
    print("Ann changed")
  }

  let model = RecordListModel(tenants)
  withObservationTracking {
    _ = model.sections
  } onChange: {
    print("the list changed")
  }
  return (model, annModel, observer, token)  // keep them: each model holds its monitor
}

@MainActor
@Suite("docs/monitors.md example: records")
struct MonitorDocExampleTests {
  @Test func theRecordsExampleRuns() async throws {
    let context = WatcherFixtures.context()
    let (ann, bob) = try context.performAndWait { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "city": "Lima", "age": 40])
      let bob = try context.insert("Person", values: ["name": "Bob", "city": "Oslo", "age": 30])
      _ = try context.save()
      return (ann.objectID, bob.objectID)
    }
    printed = []
    let (model, annModel, observer, token) = try follow(context, ann: ann)
    #expect(printed == ["Ann 2"])
    #expect(model.records == [Tenant(name: "Ann", city: "Lima", age: 40), Tenant(name: "Bob", city: "Oslo", age: 30)])

    // One save: Ann grows older (an update), Cy comes in (an insert).
    let cy = try context.performAndWait { context in
      try context.setValues(["age": 41], of: context.object(with: ann)!)
      let cy = try context.insert("Person", values: ["name": "Cy", "city": "Lima", "age": 20])
      _ = try context.save()
      return cy.objectID
    }
    await model.flush()
    #expect(printed == ["Ann 2", "Ann changed", "new: Cy at [0, 1]", "[0, 0] [\"age\"] 41", "the list changed"])
    #expect(annModel.record?.age == 41)
    #expect(annModel.changedKeys == ["age"])
    #expect(model.count == 3)
    #expect(model.sections.map { $0.items.map(\.id) } == [[ann, cy], [bob]])
    withExtendedLifetime((observer, token)) {}
  }
}

// docs/monitors.md, ListMonitor: a view controller adopting an observer
// protocol on the main actor.
@MainActor
final class PeopleViewController: @preconcurrency ListObjectObserver {
  var names: [String] = []
  func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath) {
    names.insert(object["name"]?.description ?? "", at: indexPath.item)
  }
}

@Suite("docs/monitors.md example: the section index")
struct SectionIndexDocExampleTests {
  @Test func theSectionIndexExampleRuns() throws {
    let context = WatcherFixtures.context()
    try context.performAndWait { context in
      for city in ["Lima", "London", "Oslo"] {
        _ = try context.insert("Person", values: ["name": .string(city), "city": .string(city)])
      }
      _ = try context.save()
    }
    var request = try ListRequest("Person", where: "TRUEPREDICATE", sortedBy: [.ascending("city")], sectionedBy: "city")
    request.sectionIndexTitle = { name in String(name.prefix(2)).uppercased() }  // "LI", "LO", …
    let monitor = try ListMonitor(context: context, request: request, scheduler: .immediate)
    #expect(monitor.sectionIndexTitles == ["LI", "LO", "OS"])
  }
}
