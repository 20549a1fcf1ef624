import ContextWatching
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("List monitor: offset")
struct ListMonitorOffsetTests {
  /// Adults by city, oldest first in each: Ann (Lima, 40), Bob (Lima, 30),
  /// Cy (Oslo, 50), Eve (Oslo, 20), Fay (Rome, 35); Di (Rome, 5) is not
  /// listed.
  static func fixture(
    limit: Int?, offset: Int, sectioned: Bool = true
  ) throws -> (ObjectContext, ListMonitor, [String: ObjectID]) {
    try ListMonitorTests.fixture(
      limit: limit, offset: offset, sectioned: sectioned,
      people: [
        ("Ann", "Lima", 40), ("Bob", "Lima", 30), ("Cy", "Oslo", 50), ("Eve", "Oslo", 20), ("Fay", "Rome", 35),
        ("Di", "Rome", 5),
      ])
  }

  static func insert(_ context: ObjectContext, _ name: String, _ city: String, _ age: Int) throws -> ObjectID {
    try context.performAndWait { context in
      let object = try context.insert(
        "Person", values: ["name": .string(name), "city": .string(city), "age": .int(Int64(age))])
      _ = try context.save()
      return object.objectID
    }
  }

  static func delete(_ context: ObjectContext, _ id: ObjectID) throws {
    try context.performAndWait { context in
      try context.delete(context.object(with: id)!)
      _ = try context.save()
    }
  }

  @Test func theWindowStartsAtTheOffsetAndSectionsCountFromIt() throws {
    let (_, monitor, ids) = try Self.fixture(limit: 3, offset: 1)
    #expect(ListMonitorTests.names(monitor) == [["\"Bob\""], ["\"Cy\"", "\"Eve\""]])
    #expect(monitor.count == 3)
    #expect(monitor.section(at: 0) == ListSectionInfo(value: "Lima", name: "Lima", count: 1))
    #expect(monitor.object(at: 0).objectID == ids["Bob"])
    #expect(monitor[2].objectID == ids["Eve"])
    #expect(monitor.object(at: ListIndexPath(item: 1, section: 1)).objectID == ids["Eve"])
    #expect(monitor.indexPath(of: ids["Eve"]!) == ListIndexPath(item: 1, section: 1))
    #expect(monitor.indexPath(of: ids["Ann"]!) == nil)
    #expect(monitor.indexPath(of: ids["Fay"]!) == nil)
    #expect(monitor.objectIDs == [ids["Bob"]!, ids["Cy"]!, ids["Eve"]!])
    #expect(monitor.content.indexPath(ofObjectAt: 1) == ListIndexPath(item: 0, section: 1))
  }

  @Test func aDeletionBeforeTheWindowShiftsTheNextObjectIn() throws {
    let (context, monitor, ids) = try Self.fixture(limit: 2, offset: 1)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(ListMonitorTests.names(monitor) == [["\"Bob\""], ["\"Cy\""]])
    // Ann, before the window, goes: Bob leaves it at the start, Eve comes
    // in at the end, and Lima has no listed object left.
    try Self.delete(context, ids["Ann"]!)
    #expect(
      recorder.take() == [
        "will 2", "delete \"Bob\" [0, 0]", "delete section Lima 0", "insert \"Eve\" [0, 1]", "did 2",
      ])
    #expect(ListMonitorTests.names(monitor) == [["\"Cy\"", "\"Eve\""]])
    // One inserted before the window pushes Bob back in and Eve out.
    _ = try Self.insert(context, "Gus", "Kyiv", 60)
    #expect(
      recorder.take() == [
        "will 2", "delete \"Eve\" [0, 1]", "insert section Lima 0", "insert \"Bob\" [0, 0]", "did 2",
      ])
    #expect(ListMonitorTests.names(monitor) == [["\"Bob\""], ["\"Cy\""]])
    // An update in the window, in place.
    try ListMonitorTests.edit(context, ids, "Bob", ["name": "Bo"])
    #expect(recorder.take() == ["will 2", "update \"Bo\" [0, 0] [\"name\"]", "did 2"])
    // A move before the window that keeps every rank there tells nothing.
    let gus = try context.performAndWait { try $0.fetch("Person", where: "name == 'Gus'")[0].objectID }
    try ListMonitorTests.edit(context, ["Gus": gus], "Gus", ["age": 61])
    #expect(recorder.take() == [])
  }

  @Test func changesBeforeTheWindowThatCancelOutTellNothing() throws {
    let (context, monitor, ids) = try Self.fixture(limit: 2, offset: 1)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    let updates = LockedState(0)
    let token = monitor.observe { _ in updates.withLock { $0 += 1 } }
    // One save deletes `gone` and inserts `added`.
    func replace(_ gone: ObjectID, with added: (name: String, city: String, age: Int)) throws -> ObjectID {
      try context.performAndWait { context in
        try context.delete(context.object(with: gone)!)
        let object = try context.insert(
          "Person",
          values: ["name": .string(added.name), "city": .string(added.city), "age": .int(Int64(added.age))])
        _ = try context.save()
        return object.objectID
      }
    }
    #expect(ListMonitorTests.names(monitor) == [["\"Bob\""], ["\"Cy\""]])
    // Ann, the one object before the window, goes, and Gus comes in first.
    let gus = try replace(ids["Ann"]!, with: ("Gus", "Kyiv", 60))
    // Gus goes, and Hal comes in just before Bob, the window's first.
    let hal = try replace(gus, with: ("Hal", "Lima", 31))
    #expect(recorder.take() == [])
    #expect(updates.withLock { $0 } == 0)
    #expect(ListMonitorTests.names(monitor) == [["\"Bob\""], ["\"Cy\""]])
    // Hal goes and Ida comes in after the window's start: Bob moves
    // before it.
    _ = try replace(hal, with: ("Ida", "Oslo", 60))
    #expect(
      recorder.take() == [
        "will 2", "delete \"Bob\" [0, 0]", "delete section Lima 0", "insert \"Ida\" [0, 0]", "did 2",
      ])
    #expect(ListMonitorTests.names(monitor) == [["\"Ida\"", "\"Cy\""]])
    #expect(updates.withLock { $0 } == 1)
    withExtendedLifetime(token) {}
  }

  @Test func anOffsetPastTheEndListsNothingUntilTheListReachesIt() throws {
    let (context, monitor, ids) = try Self.fixture(limit: 2, offset: 5)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(monitor.count == 0)
    #expect(!monitor.hasObjects)
    #expect(monitor.numberOfSections == 0)
    #expect(monitor.objectIDs.isEmpty)
    #expect(monitor.indexPath(of: ids["Fay"]!) == nil)
    // A sixth adult: the last of the list, Fay, is at the offset.
    _ = try Self.insert(context, "Gus", "Kyiv", 60)
    #expect(recorder.take() == ["will 0", "insert section Rome 0", "insert \"Fay\" [0, 0]", "did 1"])
    #expect(monitor.indexPath(of: ids["Fay"]!) == ListIndexPath(item: 0, section: 0))
    // Two more after her fill the window's second place only.
    _ = try Self.insert(context, "Hal", "Rome", 1)  // not an adult
    #expect(recorder.take() == [])
    _ = try Self.insert(context, "Ida", "Rome", 34)
    _ = try Self.insert(context, "Jo", "Rome", 33)
    #expect(recorder.take() == ["will 1", "insert \"Ida\" [0, 1]", "did 2"])
    // Back under the offset: the window empties.
    try Self.delete(context, ids["Ann"]!)
    try Self.delete(context, ids["Bob"]!)
    try Self.delete(context, ids["Cy"]!)
    #expect(
      recorder.take() == [
        "will 2", "delete \"Fay\" [0, 0]", "insert \"Jo\" [0, 1]", "did 2",
        "will 2", "delete \"Ida\" [0, 0]", "did 1",
        "will 1", "delete \"Jo\" [0, 0]", "delete section Rome 0", "did 0",
      ])
    #expect(monitor.numberOfSections == 0)
  }

  @Test func aWindowWithoutRoomOrWithoutObjectsTellsNothing() throws {
    // No room: objects coming in before the window move nothing into it.
    let (context, monitor, ids) = try Self.fixture(limit: 0, offset: 0)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    _ = try Self.insert(context, "Gus", "Kyiv", 60)
    try Self.delete(context, ids["Ann"]!)
    #expect(recorder.take() == [])
    #expect(monitor.count == 0)
    // Five adults, the window from the sixth: empty while they come and go.
    let (others, window, people) = try Self.fixture(limit: 2, offset: 5)
    let told = ListCallbackRecorder()
    window.addObserver(told)
    try Self.delete(others, people["Ann"]!)
    _ = try Self.insert(others, "Gus", "Kyiv", 60)
    #expect(told.take() == [])
    // A sixth: the last, Fay, is at the offset.
    _ = try Self.insert(others, "Hugo", "Kyiv", 70)
    #expect(told.take() == ["will 0", "insert section Rome 0", "insert \"Fay\" [0, 0]", "did 1"])
  }

  @Test func anOffsetWithoutALimitListsEveryObjectFromIt() throws {
    let (context, monitor, ids) = try Self.fixture(limit: nil, offset: 3)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(ListMonitorTests.names(monitor) == [["\"Eve\""], ["\"Fay\""]])
    #expect(monitor.indexPath(of: ids["Fay"]!) == ListIndexPath(item: 0, section: 1))
    // Ann stops being an adult: Eve leaves the window's start, and Oslo
    // with her.
    try ListMonitorTests.edit(context, ids, "Ann", ["age": 1])
    #expect(recorder.take() == ["will 2", "delete \"Eve\" [0, 0]", "delete section Oslo 0", "did 1"])
    // Di comes of age in Rome, after Fay: one more at the end.
    try ListMonitorTests.edit(context, ids, "Di", ["age": 18])
    #expect(recorder.take() == ["will 1", "insert \"Di\" [0, 1]", "did 2"])
    #expect(ListMonitorTests.names(monitor) == [["\"Fay\"", "\"Di\""]])
  }

  @Test func anOffsetInAListWithoutSectionsCountsFromZero() throws {
    let (context, monitor, ids) = try Self.fixture(limit: 2, offset: 2, sectioned: false)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    #expect(ListMonitorTests.names(monitor) == [["\"Cy\"", "\"Eve\""]])
    // Eve moves ahead of everyone: Bob comes in at the window's start.
    try ListMonitorTests.edit(context, ids, "Eve", ["city": "Baku"])
    #expect(recorder.take() == ["will 2", "delete \"Eve\" [0, 1]", "insert \"Bob\" [0, 0]", "did 2"])
    #expect(monitor.numberOfSections == 1)
  }

  @Test func aNegativeOffsetIsRefused() throws {
    let context = WatcherFixtures.context()
    let request = ListRequest("Person", sortedBy: [.ascending("name")], offset: -2, label: "page")
    let error = try #require(throws: MonitorError.self) {
      try ListMonitor(context: context, request: request, scheduler: .immediate)
    }
    #expect(error.code == .invalidRequest)
    #expect(error.watchError?.message == "a list's offset cannot be negative (-2)")
    #expect(error.message == "watch 'page' on Person: a list's offset cannot be negative (-2)")
  }

  @Test func settingARequestWithAnOffsetDeliversTheDifference() throws {
    let (_, monitor, _) = try Self.fixture(limit: nil, offset: 0)
    let recorder = ListCallbackRecorder()
    monitor.addObserver(recorder)
    var request = monitor.request
    request.offset = 2
    request.limit = 2
    try monitor.setRequest(request)
    #expect(
      recorder.take() == [
        "will 5", "delete \"Ann\" [0, 0]", "delete \"Bob\" [0, 1]", "delete \"Fay\" [2, 0]",
        "delete section Lima 0", "delete section Rome 2", "did 2",
      ])
    #expect(ListMonitorTests.names(monitor) == [["\"Cy\"", "\"Eve\""]])
    #expect(monitor.request.offset == 2)
  }

  @Test func aRecordListHonoursTheOffset() throws {
    let (context, _, _) = try Self.fixture(limit: 1, offset: 2)
    let request = try ListRequest(
      Resident.self, where: "age >= 18", sortedBy: [.ascending("city"), .descending("age")],
      sectionedBy: "city", limit: 1, offset: 2)
    #expect(request.offset == 2)
    let monitor = try RecordListMonitor<Resident>(context: context, request: request, scheduler: .immediate)
    #expect(try monitor.records == [Resident(name: "Cy", city: "Oslo", age: 50)])
  }
}
