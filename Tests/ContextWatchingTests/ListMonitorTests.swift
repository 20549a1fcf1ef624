import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Records every callback of a section observer, in order, as text.
final class ListCallbackRecorder: ListSectionObserver {
  private let calls = Recording<String>()

  /// The calls since the last take, in order.
  func take() -> [String] { calls.take() }

  private func record(_ call: String) { calls.append(call) }

  func listMonitorWillChange(_ monitor: ListMonitor) { record("will \(monitor.count)") }
  func listMonitorDidChange(_ monitor: ListMonitor) { record("did \(monitor.count)") }
  func listMonitor(_ monitor: ListMonitor, didDelete object: ObjectSnapshot, at indexPath: ListIndexPath) {
    record("delete \(object["name"]!) \(indexPath)")
  }
  func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath) {
    record("insert \(object["name"]!) \(indexPath)")
  }
  func listMonitor(
    _ monitor: ListMonitor, didUpdate object: ObjectSnapshot, at indexPath: ListIndexPath, changedKeys: [String]
  ) {
    record("update \(object["name"]!) \(indexPath) \(changedKeys)")
  }
  func listMonitor(
    _ monitor: ListMonitor, didMove object: ObjectSnapshot, from: ListIndexPath, to: ListIndexPath,
    changedKeys: [String]
  ) {
    record("move \(object["name"]!) \(from) → \(to) \(changedKeys)")
  }
  func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int) {
    record("delete section \(section.name ?? "nil") \(index)")
  }
  func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int) {
    record("insert section \(section.name ?? "nil") \(index)")
  }
}

/// Only will/did change.
final class ListChangeCounter: ListObserver {
  let changes = LockedState(0)
  func listMonitorDidChange(_ monitor: ListMonitor) { changes.withLock { $0 += 1 } }
}

@Suite("List monitor")
struct ListMonitorTests {
  /// People by city, oldest first in each: Ann (Lima, 40), Bob (Lima, 30),
  /// Cy (Oslo, 50); Di (Rome, 5) is not listed. `people` replaces them;
  /// the list holds the adults, sectioned by city unless `sectioned` is
  /// false.
  static func fixture(
    limit: Int? = nil, offset: Int = 0, sectioned: Bool = true, scheduler: DeliveryScheduler = .immediate,
    people: [(String, String, Int)] = [("Ann", "Lima", 40), ("Bob", "Lima", 30), ("Cy", "Oslo", 50), ("Di", "Rome", 5)]
  ) throws -> (ObjectContext, ListMonitor, [String: ObjectID]) {
    let context = WatcherFixtures.context()
    let ids = try context.performAndWait { context in
      var ids: [String: ObjectID] = [:]
      for (name, city, age) in people {
        ids[name] =
          try context.insert("Person", values: ["name": .string(name), "city": .string(city), "age": .int(Int64(age))])
          .objectID
      }
      _ = try context.save()
      return ids
    }
    let request = try ListRequest(
      "Person", where: "age >= %d", arguments: [18], sortedBy: [.ascending("city"), .descending("age")],
      sectionedBy: sectioned ? "city" : nil, limit: limit, offset: offset)
    let monitor = try ListMonitor(context: context, request: request, scheduler: scheduler)
    return (context, monitor, ids)
  }

  static func names(_ monitor: ListMonitor) -> [[String]] {
    (0..<monitor.numberOfSections).map { section in
      monitor.objects(inSection: section).map { $0["name"]!.description }
    }
  }

  static func edit(
    _ context: ObjectContext, _ ids: [String: ObjectID], _ name: String, _ values: [String: FilterValue]
  )
    throws
  {
    try context.performAndWait { context in
      try context.setValues(values, of: context.object(with: ids[name]!)!)
      _ = try context.save()
    }
  }

  @Test func startsWithTheContextsContentInSections() throws {
    let (_, monitor, ids) = try Self.fixture()
    #expect(monitor.count == 3)
    #expect(monitor.numberOfSections == 2)
    #expect(Self.names(monitor) == [["\"Ann\"", "\"Bob\""], ["\"Cy\""]])
    #expect(monitor.section(at: 0) == ListSectionInfo(value: "Lima", name: "Lima", count: 2))
    #expect(monitor.object(at: ListIndexPath(item: 1, section: 0)).objectID == ids["Bob"])
    #expect(monitor.object(at: 2).objectID == ids["Cy"])
    #expect(monitor.indexPath(of: ids["Cy"]!) == ListIndexPath(item: 0, section: 1))
    #expect(monitor.indexPath(of: ids["Di"]!) == nil)
    #expect(monitor.objectIDs == [ids["Ann"]!, ids["Bob"]!, ids["Cy"]!])
    #expect(monitor.sequenceNumber == 1)
  }

  @Test func observersGetEachChangeInBatchUpdateOrder() throws {
    let (context, monitor, ids) = try Self.fixture()
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)

    // Bob moves to Oslo, ahead of Cy; Ann is alone in Lima.
    try Self.edit(context, ids, "Bob", ["city": "Oslo", "age": 60])
    #expect(
      recorder.take() == [
        "will 3", "move \"Bob\" [0, 1] → [1, 0] [\"age\", \"city\"]", "did 3",
      ])
    // Ann leaves Lima for a new city: Lima goes, Kyiv comes first.
    try Self.edit(context, ids, "Ann", ["city": "Kyiv"])
    #expect(
      recorder.take() == [
        // Rows move only between sections that stay: Ann is deleted and
        // inserted.
        "will 3", "delete \"Ann\" [0, 0]", "delete section Lima 0", "insert section Kyiv 0",
        "insert \"Ann\" [0, 0]", "did 3",
      ])
    // An update in place, then an insertion and a deletion.
    try Self.edit(context, ids, "Cy", ["name": "Cyd"])
    #expect(recorder.take() == ["will 3", "update \"Cyd\" [1, 1] [\"name\"]", "did 3"])
    try Self.edit(context, ids, "Di", ["age": 70])
    #expect(recorder.take() == ["will 3", "insert section Rome 2", "insert \"Di\" [2, 0]", "did 4"])
    try context.performAndWait { context in
      try context.delete(context.object(with: ids["Ann"]!)!)
      _ = try context.save()
    }
    #expect(recorder.take() == ["will 4", "delete \"Ann\" [0, 0]", "delete section Kyiv 0", "did 3"])
    #expect(Self.names(monitor) == [["\"Bob\"", "\"Cyd\""], ["\"Di\""]])
  }

  @Test func savesThatChangeNothingListedDeliverNothing() throws {
    let (context, monitor, ids) = try Self.fixture()
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    try Self.edit(context, ids, "Di", ["age": 6])  // still under 18
    #expect(recorder.take() == [])
    #expect(monitor.sequenceNumber == 1)
  }

  @Test func theLimitKeepsTheWindowFull() throws {
    let (context, monitor, ids) = try Self.fixture(limit: 2)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(Self.names(monitor) == [["\"Ann\"", "\"Bob\""]])
    // Ann leaves: Cy comes into the window, in a section of his own.
    try Self.edit(context, ids, "Ann", ["age": 1])
    #expect(
      recorder.take() == [
        "will 2", "delete \"Ann\" [0, 0]", "insert section Oslo 1", "insert \"Cy\" [1, 0]", "did 2",
      ])
    // One enters above the last: the last drops out.
    try Self.edit(context, ids, "Ann", ["age": 41])
    #expect(
      recorder.take() == [
        "will 2", "delete \"Cy\" [1, 0]", "delete section Oslo 1", "insert \"Ann\" [0, 0]", "did 2",
      ])
    #expect(monitor.count == 2 && monitor.numberOfSections == 1)
  }

  @Test func relationshipSectionsFollowRenames() throws {
    let context = WatcherFixtures.context()
    let ids = try context.performAndWait { context in
      let dev = try context.insert("Department", values: ["name": "Dev"])
      let ops = try context.insert("Department", values: ["name": "Ops"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try ann.setRelationship("department", to: dev)
      try bob.setRelationship("department", to: ops)
      _ = try context.save()
      return (dev: dev.objectID, ann: ann.objectID, bob: bob.objectID)
    }
    let monitor = try ListMonitor(
      context: context,
      request: ListRequest(
        "Person", sortedBy: [.ascending("department.name"), .ascending("name")], sectionedBy: "department.name"),
      scheduler: .immediate)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(monitor.sections.map(\.name) == ["Dev", "Ops"])
    try context.performAndWait { context in
      try context.object(with: ids.dev)!.setValue("QA", forKey: "name")
      _ = try context.save()
    }
    #expect(
      recorder.take() == [
        "will 2", "delete \"Ann\" [0, 0]", "delete section Dev 0", "insert section QA 1", "insert \"Ann\" [1, 0]",
        "did 2",
      ])
    #expect(monitor.sections.map(\.name) == ["Ops", "QA"])
  }

  /// The values a list sorted through a relationship keeps apart from its
  /// objects are read by `indexPath(of:)` on any thread while the
  /// monitor's queue applies saves that rename departments and move people
  /// between them (the thread sanitizer runs this in CI).
  @Test func indexPathsReadWhileRelationshipSortedSavesApply() throws {
    let context = WatcherFixtures.context()
    let (departments, people) = try context.performAndWait { context in
      let departments = try (0..<4).map { try context.insert("Department", values: ["name": .string("D\($0)")]) }
      let people = try (0..<40).map { index in
        let person = try context.insert("Person", values: ["name": .string("p\(index)")])
        try person.setRelationship("department", to: departments[index % 4])
        return person
      }
      _ = try context.save()
      return (departments.map(\.objectID), people.map(\.objectID))
    }
    let monitor = try ListMonitor(
      context: context,
      request: ListRequest(
        "Person", sortedBy: [.ascending("department.name"), .ascending("name")], sectionedBy: "department.name"),
      scheduler: .queue(DispatchQueue(label: "relationship list")))
    DispatchQueue.concurrentPerform(iterations: 2) { worker in
      for step in 0..<60 {
        if worker == 0 {
          try? context.performAndWait { context in
            let department = context.object(with: departments[step % 4])!
            try department.setValue(.string("D\((step * 7) % 11)-\(step)"), forKey: "name")
            let person = context.object(with: people[(step * 13) % 40])!
            try person.setRelationship("department", to: context.object(with: departments[(step + 1) % 4]))
            _ = try context.save()
          }
        } else {
          for id in people {
            if let path = monitor.indexPath(of: id) {
              #expect(path.section >= 0 && path.section < 4 && path.item >= 0 && path.item < 40)
            }
          }
        }
      }
    }
    monitor.flush()
    let expected = context.performAndWait { context in
      people.map { id -> (department: String, name: String, id: ObjectID) in
        let person = context.object(with: id)!
        guard case .toOne(let department?) = person.targets(of: "department"),
          case .string(let departmentName)? = context.object(with: department)?["name"],
          case .string(let name)? = person["name"]
        else { preconditionFailure("every person has a named department") }
        return (departmentName, name, id)
      }
      .sorted { ($0.department, $0.name) < ($1.department, $1.name) }
      .map(\.id)
    }
    #expect(monitor.objectIDs == expected)
    for (rank, id) in expected.enumerated() {
      #expect(monitor.indexPath(of: id).map { monitor.content.indexPath(ofObjectAt: rank) == $0 } == true)
    }
  }

  /// "é" and "e\u{301}" are equal Swift strings but different bytes: one
  /// order (by bytes) must hold for both, or the list loses track of them.
  @Test func canonicallyEquivalentNamesKeepOneOrder() throws {
    let context = WatcherFixtures.context()
    let monitor = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate)
    let ids = try context.performAndWait { context in
      let ids = try ["e\u{301}", "é", "e\u{301}", "é"].map {
        try context.insert("Person", values: ["name": .string($0)]).objectID
      }
      _ = try context.save()
      return ids
    }
    #expect(monitor.count == 4)
    try context.performAndWait { context in
      for id in ids { try context.setValue("x", forKey: "name", of: context.object(with: id)!) }
      _ = try context.save()
      for id in ids.prefix(2) { try context.delete(context.object(with: id)!) }
      _ = try context.save()
    }
    #expect(monitor.objectIDs == Array(ids.suffix(2)))
  }

  @Test func invalidRequestsAreRefusedWithTheKeyAndTheReason() throws {
    let context = WatcherFixtures.context()
    func refusal(_ request: ListRequest) -> String? {
      do {
        _ = try ListMonitor(context: context, request: request, scheduler: .immediate)
        return nil
      } catch {
        return error.description
      }
    }
    #expect(
      refusal(ListRequest("Person", sortedBy: []))
        == "watch 'Person TRUEPREDICATE' on Person: a list needs at least one sort key (ties are then broken by object identifier)"
    )
    #expect(
      refusal(ListRequest("Person", sortedBy: [.ascending("age")], sectionedBy: "city"))
        == "watch 'Person TRUEPREDICATE' on Person: the section key 'city' must be the first sort key (it is 'age'): sections appear in the order of their first object, so the sort must group them"
    )
    #expect(
      refusal(ListRequest("Person", sortedBy: [.ascending("agee")]))
        == "watch 'Person TRUEPREDICATE' on Person: Person has no attribute 'agee' (in the sort key 'agee')")
    #expect(
      refusal(ListRequest("Department", sortedBy: [.ascending("members.name")]))
        == "watch 'Department TRUEPREDICATE' on Department: Department.members is a to-many relationship: a sort key follows to-one relationships only"
    )
    #expect(
      refusal(ListRequest("Person", sortedBy: [.ascending("employer")]))
        == "watch 'Person TRUEPREDICATE' on Person: Person.employer is a relationship: a sort or section key ends at an attribute (employer.name, say)"
    )
    #expect(
      refusal(ListRequest("Person", sortedBy: [.ascending("name.length")]))
        == "watch 'Person TRUEPREDICATE' on Person: Person.name is an attribute: a key path goes on through relationships only (in the sort key 'name.length')"
    )
    #expect(
      refusal(ListRequest("Robot", sortedBy: [.ascending("name")]))
        == "watch 'Robot TRUEPREDICATE' on Robot: unknown entity 'Robot' (entities: Company, Department, Person, Employee)"
    )
    #expect(
      refusal(try ListRequest("Person", where: "salary > 3", sortedBy: [.ascending("name")]))?.hasPrefix(
        "watch 'Person salary > 3' on Person: ") == true)
    #expect(throws: WatchError.self) { try ListRequest("Person", where: "age >", sortedBy: [.ascending("age")]) }
  }

  @Test func aNewRequestIsOneDeliveryAndARefusedOneChangesNothing() throws {
    let (_, monitor, _) = try Self.fixture(scheduler: .queue(DispatchQueue(label: "list")))
    let counter = ListChangeCounter()
    monitor.addObserver(counter)
    let refusal = #expect(throws: MonitorError.self) {
      try monitor.setRequest(ListRequest("Person", sortedBy: [.ascending("nope")]))
    }
    #expect(refusal?.code == .invalidRequest)
    #expect(
      refusal?.message
        == "watch 'Person TRUEPREDICATE' on Person: Person has no attribute 'nope' (in the sort key 'nope')")
    #expect(refusal?.watchError?.key == "nope")
    try monitor.setRequest(ListRequest("Person", sortedBy: [.descending("name")]))
    monitor.flush()
    #expect(counter.changes.withLock { $0 } == 1)
    #expect(Self.names(monitor) == [["\"Di\"", "\"Cy\"", "\"Bob\"", "\"Ann\""]])
    #expect(monitor.request.sectionKey == nil)
  }

  @Test func releasedAndRemovedObserversAreNotCalled() throws {
    let (context, monitor, ids) = try Self.fixture()
    let kept = ListChangeCounter()
    var released: ListChangeCounter? = ListChangeCounter()
    let removed = ListChangeCounter()
    monitor.addObserver(kept)
    monitor.addObserver(released!)
    monitor.addObserver(removed)
    monitor.removeObserver(removed)
    weak let gone = released
    released = nil
    #expect(gone == nil)
    try Self.edit(context, ids, "Ann", ["age": 41])
    #expect(kept.changes.withLock { $0 } == 1)
    #expect(removed.changes.withLock { $0 } == 0)
  }

  @Test func theAsyncSequenceDeliversEachChangeWithTheContent() async throws {
    let (context, monitor, ids) = try Self.fixture(scheduler: .queue(DispatchQueue(label: "list")))
    let updates = monitor.updates
    // Nothing is subscribed until the loop starts: this save is not seen.
    try Self.edit(context, ids, "Cy", ["age": 51])
    await monitor.flush()
    var iterator = updates.makeAsyncIterator()
    try Self.edit(context, ids, "Ann", ["age": 41])
    try Self.edit(context, ids, "Bob", ["age": 2])
    let first = await iterator.next()
    #expect(first?.changes.updated.map(\.indexPath) == [ListIndexPath(item: 0, section: 0)])
    let second = await iterator.next()
    #expect(second?.changes.deleted.map(\.indexPath) == [ListIndexPath(item: 1, section: 0)])
    #expect(second?.content.count == 2)
    #expect(first?.content.count == 3)
  }

  @Test func monitorsOnSeveralQueuesFollowConcurrentSaves() throws {
    let context = WatcherFixtures.context()
    let monitors = try (0..<4).map { index in
      try ListMonitor(
        context: context,
        request: ListRequest(
          "Person", where: "age >= %d", arguments: [.int(Int64(index * 10))], sortedBy: [.ascending("age")]),
        scheduler: .queue(DispatchQueue(label: "list \(index)")))
    }
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for step in 0..<50 {
        try? context.performAndWait { context in
          _ = try context.insert("Person", values: ["name": .string("p\(worker)-\(step)"), "age": .int(Int64(step))])
          _ = try context.save()
        }
      }
    }
    for (index, monitor) in monitors.enumerated() {
      monitor.flush()
      #expect(monitor.count == 4 * (50 - index * 10))
      let ages = monitor.content.snapshots.map { $0["age"]! }
      #expect(ages == ages.sorted { ($0.description.count, $0.description) < ($1.description.count, $1.description) })
    }
  }
}
