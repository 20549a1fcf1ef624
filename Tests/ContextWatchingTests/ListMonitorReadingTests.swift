import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Records will/did change and will/did refetch, in order, with the count
/// the monitor holds at each.
final class RefetchRecorder: ListObserver {
  private let calls = Recording<String>()

  /// The calls since the last take, in order.
  func take() -> [String] { calls.take() }

  private func record(_ call: String) { calls.append(call) }

  func listMonitorWillChange(_ monitor: ListMonitor) { record("will change \(monitor.count)") }
  func listMonitorDidChange(_ monitor: ListMonitor) { record("did change \(monitor.count)") }
  func listMonitorWillRefetch(_ monitor: ListMonitor) { record("will refetch \(monitor.count)") }
  func listMonitorDidRefetch(_ monitor: ListMonitor) { record("did refetch \(monitor.count)") }
}

/// The list API of NSFetchedResultsController and CoreStore: subscripts,
/// `hasObjects`, the section index, refetching, the update sequence's
/// lifetime, and watches with no predicate.
@Suite("List monitor: CoreStore's and NSFetchedResultsController's list API")
struct ListMonitorReadingTests {
  @Test func subscriptsAndHasObjectsReadTheList() throws {
    // Lima: Ann 40, Bob 30; Oslo: Cy 50 (Di, 5, is not listed).
    let (context, monitor, _) = try ListMonitorTests.fixture()
    #expect(monitor.hasObjects)
    #expect(monitor.hasObjects(inSection: 0) && monitor.hasObjects(inSection: 1))
    #expect(!monitor.hasObjects(inSection: 2))
    #expect(!monitor.hasObjects(inSection: -1))
    #expect(monitor[0]["name"] == "Ann")
    #expect(monitor[2]["name"] == "Cy")
    #expect(monitor[1, 0]["name"] == "Cy")
    #expect(monitor[0, 1]["name"] == "Bob")
    #expect(monitor[ListIndexPath(item: 1, section: 0)]["name"] == "Bob")
    #expect(monitor[IndexPath(indexes: [1, 0])]["name"] == "Cy")
    let content = monitor.content
    #expect(content[1]["name"] == "Bob" && content[1, 0]["name"] == "Cy" && content.hasObjects)

    let empty = try ListMonitor(
      context: context, request: ListRequest("Person", where: "age > 200", sortedBy: [.ascending("age")]),
      scheduler: .immediate)
    #expect(!empty.hasObjects)
    #expect(!empty.hasObjects(inSection: 0))
    #expect(empty.numberOfSections == 1)
  }

  @Test func theSectionIndexHasEachSectionsFirstLetterOnce() throws {
    let context = WatcherFixtures.context()
    try context.performAndWait { context in
      for (name, city) in [("Ann", "lima"), ("Bob", "London"), ("Cy", "Oslo"), ("Di", "Lyon"), ("Ed", "")] {
        _ = try context.insert("Person", values: ["name": .string(name), "city": .string(city), "age": 30])
      }
      _ = try context.insert("Person", values: ["name": "Flo", "age": 30])  // no city: a nil section
      _ = try context.save()
    }
    var request = try ListRequest(
      "Person", where: "TRUEPREDICATE", sortedBy: [.ascending("city"), .ascending("name")], sectionedBy: "city")
    let monitor = try ListMonitor(context: context, request: request, scheduler: .immediate)
    // Sections in order: nil, "", "London", "Lyon", "Oslo", "lima".
    #expect(monitor.sections.map(\.name) == [nil, "", "London", "Lyon", "Oslo", "lima"])
    // No entry for the nil and empty names; "lima" capitalised joins "L".
    #expect(monitor.sectionIndexTitles == ["L", "O"])
    #expect(monitor.section(forSectionIndexTitle: "L", at: 0) == 2)
    #expect(monitor.section(forSectionIndexTitle: "O", at: 1) == 4)
    // A wrong position is searched past; a title no section has is nil.
    #expect(monitor.section(forSectionIndexTitle: "O", at: 0) == 4)
    #expect(monitor.section(forSectionIndexTitle: "O", at: 9) == 4)
    #expect(monitor.section(forSectionIndexTitle: "Z", at: 0) == nil)

    // The request's closure: whole names, none for London.
    request.sectionIndexTitle = { name in name == "London" ? nil : name.uppercased() }
    try monitor.setRequest(request)
    #expect(monitor.sectionIndexTitles == ["", "LYON", "OSLO", "LIMA"])
    #expect(monitor.section(forSectionIndexTitle: "LIMA", at: 3) == 5)

    let unsectioned = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate)
    #expect(unsectioned.sectionIndexTitles.isEmpty)
    #expect(unsectioned.section(forSectionIndexTitle: "A", at: 0) == nil)
  }

  @Test func aRefetchIsBracketedAndMarked() throws {
    let (context, monitor, ids) = try ListMonitorTests.fixture()
    let recorder = RefetchRecorder()
    monitor.addObserver(recorder)
    let updates = LockedState<[ListChanges]>([])
    let token = monitor.observe { update in updates.withLock { $0.append(update.changes) } }

    // Nothing changed since the fetch: the refetch tells only that it ran.
    try monitor.refetch()
    #expect(recorder.take() == ["will refetch 3", "did refetch 3"])
    #expect(updates.withLock { $0 }.isEmpty)

    // A save is a change, not a refetch.
    try ListMonitorTests.edit(context, ids, "Di", ["age": 20])
    #expect(recorder.take() == ["will change 3", "did change 4"])
    #expect(updates.withLock { $0 }.map(\.isRefetch) == [false])

    // A new request is a refetch: one change between the two calls.
    var request = monitor.request
    request.limit = 2
    try monitor.setRequest(request)
    #expect(recorder.take() == ["will refetch 4", "will change 4", "did change 2", "did refetch 2"])
    #expect(updates.withLock { $0 }.map(\.isRefetch) == [false, true])
    #expect(updates.withLock { $0 }.last?.deleted.count == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aRecordListObserverHearsRefetches() throws {
    let (_, monitor, _) = try RecordListMonitorTests.fixture(Resident.self)
    final class Observer: RecordListObserver {
      let calls = LockedState<[String]>([])
      func listMonitorWillRefetch(_ monitor: RecordListMonitor<Resident>) { calls.withLock { $0.append("will") } }
      func listMonitorDidRefetch(_ monitor: RecordListMonitor<Resident>) { calls.withLock { $0.append("did") } }
      func listMonitorDidChange(_ monitor: RecordListMonitor<Resident>) { calls.withLock { $0.append("change") } }
    }
    let observer = Observer()
    monitor.addObserver(observer)
    var request = monitor.untyped.request
    request.limit = 1
    try monitor.untyped.setRequest(request)
    #expect(observer.calls.withLock { $0 } == ["will", "change", "did"])
  }

  @Test func anUpdateSequenceEndsWhenItsMonitorGoes() async throws {
    let (context, ids) = try {
      let (context, _, ids) = try ListMonitorTests.fixture()
      return (context, ids)
    }()
    var monitor: ListMonitor? = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]),
      scheduler: .queue(DispatchQueue(label: "list")))
    weak let released = monitor
    let updates = monitor!.updates
    var iterator = updates.makeAsyncIterator()
    try ListMonitorTests.edit(context, ids, "Ann", ["age": 41])
    #expect(await iterator.next()?.changes.updated.map(\.changedKeys) == [["age"]])
    await monitor?.flush()
    monitor = nil
    #expect(released == nil)
    #expect(await iterator.next() == nil)
    // A loop started after the monitor went ends at once.
    var late = updates.makeAsyncIterator()
    #expect(await late.next() == nil)
  }

  @Test func anObjectMonitorTellsWhetherItsObjectIsDeleted() throws {
    let (context, _, ids) = try ListMonitorTests.fixture()
    let monitor = try ObjectMonitor(context: context, objectID: ids["Bob"]!, scheduler: .immediate)
    #expect(!monitor.isObjectDeleted)
    try context.performAndWait { context in
      try context.delete(context.object(with: ids["Bob"]!)!)
      _ = try context.save()
    }
    #expect(monitor.isObjectDeleted)
    #expect(monitor.object == nil)
  }

  @Test func aWatchWithNoPredicateSeesEveryObjectOfItsEntity() throws {
    let rig = Rig()
    let everyone = try rig.watcher.watch("Person")
    let typed = try rig.watcher.watch(Resident.self)
    let changes = try rig.save { context in
      _ = try context.insert("Person", values: ["name": "Ann"])  // no age, no city
      _ = try context.insert("Person", values: ["name": "Bob", "age": 3])
    }
    #expect(changes?.inserted.count == 2)
    #expect(changes?.objectIDs(for: everyone.id, .inserted).count == 2)
    #expect(changes?.objectIDs(for: typed.id, .inserted).count == 2)
    let refusal = #expect(throws: WatchError.self) { try rig.watcher.watch("Nobody") }
    #expect(refusal?.code == .unknownEntity)
  }
}

/// A view controller's stand-in: main-actor state, an observer conformance
/// whose methods are main-actor methods (`@preconcurrency`: no
/// `nonisolated` needed, and a call off the main actor would trap).
@MainActor
final class MainActorTable: @preconcurrency ListObjectObserver, @preconcurrency ObjectObserver {
  var rows: [String] = []
  var batches = 0
  var objectUpdates = 0

  func listMonitorWillChange(_ monitor: ListMonitor) { batches += 1 }
  func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath) {
    guard case .string(let name)? = object["name"] else { return }
    rows.insert(name, at: indexPath.item)
  }
  func listMonitor(_ monitor: ListMonitor, didDelete object: ObjectSnapshot, at indexPath: ListIndexPath) {
    rows.remove(at: indexPath.item)
  }
  func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {
    objectUpdates += 1
  }
}

@MainActor
@Suite("List monitor: main-actor delivery")
struct ListMonitorMainActorTests {
  @Test func aMainActorObserverIsToldOnTheMainActor() async throws {
    let context = WatcherFixtures.context()
    let monitor = try ListMonitor(
      context: context, request: ListRequest("Person", where: "age >= 18", sortedBy: [.ascending("name")]),
      scheduler: .mainActor)
    let table = MainActorTable()
    monitor.addObserver(table)
    // The closure reads the table's main-actor state: it would trap off
    // the main actor, as the table's @preconcurrency methods would.
    let rowsSeen = LockedState<[Int]>([])
    let token = monitor.observe { _ in
      let rows = MainActor.assumeIsolated { table.rows.count }
      rowsSeen.withLock { $0.append(rows) }
    }

    // Saves from another thread; deliveries come to the main actor.
    let ann = try await Task.detached {
      try context.performAndWait { context in
        let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
        _ = try context.insert("Person", values: ["name": "Bob", "age": 40])
        _ = try context.save()
        return ann.objectID
      }
    }.value
    let annMonitor = try ObjectMonitor(context: context, objectID: ann, scheduler: .mainActor)
    annMonitor.addObserver(table)
    try await Task.detached {
      try context.performAndWait { context in
        try context.setValues(["age": 10], of: context.object(with: ann)!)
        _ = try context.save()
      }
    }.value
    await monitor.flush()
    await annMonitor.flush()
    #expect(table.rows == ["Bob"])
    #expect(table.batches == 2)
    #expect(table.objectUpdates == 1)
    #expect(rowsSeen.withLock { $0 } == [2, 1])
    withExtendedLifetime(token) {}
  }
}
