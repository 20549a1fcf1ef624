import ContextWatching
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("Diffable data source identifiers")
struct DiffableListSnapshotTests {
  /// Ann and Bob in Lima, Cy in Oslo (Di, too young, is not listed), and
  /// the snapshots of every delivery.
  static func fixture() throws -> (ObjectContext, ListMonitor, [String: ObjectID], ListRecorder, ObserverToken) {
    let (context, monitor, ids) = try ListMonitorTests.fixture()
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    return (context, monitor, ids, recorder, token)
  }

  @Test func aContentGivesItsSectionsAndItems() throws {
    let (_, monitor, ids, _, _) = try Self.fixture()
    let snapshot = DiffableListSnapshot(monitor.content)
    #expect(snapshot.sectionIdentifiers == ["Lima", "Oslo"])
    #expect(snapshot.itemIdentifiers == [[ids["Ann"]!, ids["Bob"]!], [ids["Cy"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers.isEmpty)

    // A list without sections is one section, identified by nil.
    let context = WatcherFixtures.context()
    let everyone = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate)
    let empty = DiffableListSnapshot(everyone.content)
    #expect(empty.sectionIdentifiers == [.null])
    #expect(empty.itemIdentifiers == [[]])
  }

  @Test func objectsWhoseValuesChangedInPlaceOrAcrossSectionsAreReconfigured() throws {
    let (context, monitor, ids, recorder, token) = try Self.fixture()
    func next() throws -> DiffableListSnapshot { DiffableListSnapshot(try #require(recorder.take().last)) }

    // Updated in place.
    try ListMonitorTests.edit(context, ids, "Cy", ["name": "Cyd"])
    var snapshot = try next()
    #expect(snapshot.itemIdentifiers == [[ids["Ann"]!, ids["Bob"]!], [ids["Cy"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers == [ids["Cy"]!])

    // Moved within its section, with a changed value.
    try ListMonitorTests.edit(context, ids, "Bob", ["age": 45])
    snapshot = try next()
    #expect(snapshot.itemIdentifiers == [[ids["Bob"]!, ids["Ann"]!], [ids["Cy"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers == [ids["Bob"]!])

    // To a section of its own: deleted and inserted by the batch update,
    // one item to the data source.
    try ListMonitorTests.edit(context, ids, "Ann", ["city": "Kyiv"])
    snapshot = try next()
    #expect(snapshot.sectionIdentifiers == ["Kyiv", "Lima", "Oslo"])
    #expect(snapshot.itemIdentifiers == [[ids["Ann"]!], [ids["Bob"]!], [ids["Cy"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers == [ids["Ann"]!])

    // Inserted: a new cell, nothing to reconfigure.
    try ListMonitorTests.edit(context, ids, "Di", ["age": 20, "city": "Oslo"])
    snapshot = try next()
    #expect(snapshot.itemIdentifiers == [[ids["Ann"]!], [ids["Bob"]!], [ids["Cy"]!, ids["Di"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers.isEmpty)

    // Reordered by a new request: moves without changed values.
    try monitor.setRequest(
      ListRequest("Person", where: "age >= 18", sortedBy: [.ascending("city"), .ascending("age")], sectionedBy: "city"))
    snapshot = try next()
    #expect(snapshot.itemIdentifiers == [[ids["Ann"]!], [ids["Bob"]!], [ids["Di"]!, ids["Cy"]!]])
    #expect(snapshot.reconfiguredItemIdentifiers.isEmpty)
    withExtendedLifetime(token) {}
  }

  @Test func aRecordListsUpdateGivesTheSameIdentifiers() throws {
    let (context, monitor, ids) = try RecordListMonitorTests.fixture(Resident.self)
    let updates = LockedState<[RecordListUpdate<Resident>]>([])
    let token = monitor.observe { update in updates.withLock { $0.append(update) } }
    try RecordListMonitorTests.edit(context, ids["Cy"], ["name": "Cyd"])
    let update = try #require(updates.withLock { $0.last })
    #expect(DiffableListSnapshot(update) == DiffableListSnapshot(update.untyped))
    #expect(DiffableListSnapshot(update).reconfiguredItemIdentifiers == [ids["Cy"]!])
    withExtendedLifetime(token) {}
  }

  /// Over random saves: the items are the new content's, and the
  /// reconfigured items are listed before and after, in new order, and
  /// include every such object whose values changed.
  @Test(arguments: ListConfiguration.all.indices)
  func reconfiguredItemsAreTheObjectsThatStayedAndChanged(_ index: Int) throws {
    let (configuration, seed, context, random) = try ListConfiguration.seededRun(index, seed: 0xD1FF)
    let monitor = try ListMonitor(context: context, request: configuration.request, scheduler: .immediate)
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = monitor.content
    var writes = RandomWrites(random: random)
    var reconfigured = 0
    for save in 0..<200 {
      try writes.save(context)
      guard let update = recorder.take().last else { continue }
      let snapshot = DiffableListSnapshot(update)
      let place = "save \(save), seed \(seed), \(configuration)"
      #expect(snapshot.itemIdentifiers == ListPicture(update.content).sections.map(\.ids), "\(place)")
      #expect(snapshot.sectionIdentifiers == update.content.sections.map(\.value), "\(place)")
      let before = Dictionary(uniqueKeysWithValues: previous.snapshots.map { ($0.objectID, $0) })
      let after = update.content.snapshots
      let stayed = after.filter { before[$0.objectID] != nil }.map(\.objectID)
      let changed = after.filter { new in before[new.objectID].map { old in old != new } ?? false }.map(\.objectID)
      let staleSet = Set(snapshot.reconfiguredItemIdentifiers)
      #expect(staleSet.count == snapshot.reconfiguredItemIdentifiers.count, "\(place): repeated items")
      #expect(staleSet.isSubset(of: Set(stayed)), "\(place)")
      #expect(Set(changed).isSubset(of: staleSet), "\(place)")
      #expect(snapshot.reconfiguredItemIdentifiers == stayed.filter(staleSet.contains), "\(place): not in list order")
      reconfigured += staleSet.count
      previous = update.content
    }
    #expect(reconfigured > 0)
    withExtendedLifetime(token) {}
  }
}
