import ContextWatching
import Dispatch
import ObjectGraph
import Observation
import PredicateDSL
import TestSupport
import Testing

/// Counts the change notifications of everything a view of a model reads,
/// tracking again at once after each, as a view that re-renders does: two
/// changes of one save would be counted twice.
@MainActor
final class ChangeCounter {
  var count = 0

  func track<Record>(_ model: RecordListModel<Record>) {
    withObservationTracking {
      _ = (model.sections, model.items, model.records, model.count, model.latestChanges, model.error)
    } onChange: {
      // Called by the change, which the model makes on the main actor.
      MainActor.assumeIsolated {
        self.count += 1
        self.track(model)
      }
    }
  }

  func track<Record>(_ model: RecordObjectModel<Record>) {
    withObservationTracking {
      _ = (model.record, model.isDeleted, model.changedKeys, model.error)
    } onChange: {
      MainActor.assumeIsolated {
        self.count += 1
        self.track(model)
      }
    }
  }
}

@MainActor
@Suite("Records: observable models")
struct RecordModelTests {
  nonisolated static let schedulers: [(String, DeliveryScheduler)] = [
    ("main actor", .mainActor), ("queue", .queue(DispatchQueue(label: "model deliveries"))), ("immediate", .immediate),
  ]

  /// The model's sections as names and identifiers.
  static func picture<Record>(_ model: RecordListModel<Record>) -> ListPicture {
    ListPicture(sections: model.sections.map { .init(name: $0.info.name, ids: $0.items.map(\.id)) })
  }

  @Test(arguments: schedulers.indices)
  func aListModelChangesOncePerDeliveredSave(_ index: Int) async throws {
    let (context, monitor, ids) = try RecordListMonitorTests.fixture(Resident.self, scheduler: Self.schedulers[index].1)
    let model = RecordListModel(monitor)
    #expect(model.count == 3)
    #expect(model.sections.map(\.info) == monitor.sections)
    #expect(model.sections.map(\.id) == ["Lima", "Oslo"])
    #expect(model.records.map(\.name) == ["Ann", "Bob", "Cy"])
    #expect(model.items.map(\.id) == [ids["Ann"]!, ids["Bob"]!, ids["Cy"]!])
    #expect(model.latestChanges == nil)
    let counter = ChangeCounter()
    counter.track(model)

    // Bob moves to Oslo and Di comes of age: one save, one notification.
    try context.performAndWait { context in
      try context.setValues(["city": "Oslo", "age": 60], of: context.object(with: ids["Bob"]!)!)
      try context.setValues(["age": 20], of: context.object(with: ids["Di"]!)!)
      _ = try context.save()
    }
    await model.flush()
    #expect(counter.count == 1)
    #expect(model.count == 4)
    #expect(model.sections.map(\.info) == monitor.sections)
    #expect(
      model.sections.map(\.records) == [
        [Resident(name: "Ann", city: "Lima", age: 40)],
        [Resident(name: "Bob", city: "Oslo", age: 60), Resident(name: "Cy", city: "Oslo", age: 50)],
        [Resident(name: "Di", city: "Rome", age: 20)],
      ])
    #expect(model.latestChanges?.moved.map(\.object.objectID) == [ids["Bob"]!])
    #expect(model.latestChanges?.inserted.map(\.object.objectID) == [ids["Di"]!])

    // Saves that do not touch the list: a company, and a person too young.
    try context.performAndWait { context in
      _ = try context.insert("Company", values: ["name": "Acme"])
      _ = try context.insert(Resident(name: "Ed", city: "Lima", age: 3))
      _ = try context.save()
    }
    await model.flush()
    #expect(counter.count == 1)

    // Two saves, two notifications.
    for age in [61, 62] {
      try RecordListMonitorTests.edit(context, ids["Bob"], ["age": .int(Int64(age))])
    }
    await model.flush()
    #expect(counter.count == 3)
    #expect(model.sections[1].records.first == Resident(name: "Bob", city: "Oslo", age: 62))
  }

  @Test(arguments: ListConfiguration.all.indices)
  func aListModelFollowsRandomSavesAsTheListDoes(_ index: Int) async throws {
    let (configuration, seed, context, random) = try ListConfiguration.seededRun(index, seed: 0x30DE1)
    let monitor = try RecordListMonitor<Resident>(
      context: context, request: configuration.request, scheduler: .immediate)
    let model = RecordListModel(monitor)
    let counter = ChangeCounter()
    counter.track(model)
    var writes = RandomWrites(random: random)
    var delivered = 0
    let deliveries = LockedState(0)
    let countToken = monitor.observe { _ in deliveries.withLock { $0 += 1 } }
    for save in 0..<150 {
      try writes.save(context)
      await model.flush()
      let content = monitor.content
      #expect(Self.picture(model) == ListPicture(content.untyped), "save \(save), seed \(seed), \(configuration)")
      #expect(model.records == (try content.records), "save \(save), seed \(seed), \(configuration)")
      #expect(model.sections.map(\.info) == content.sections)
      #expect(model.count == content.count)
      delivered = deliveries.withLock { $0 }
      #expect(counter.count == delivered, "save \(save), seed \(seed): one notification per delivery")
      if Self.picture(model) != ListPicture(content.untyped) { break }
    }
    #expect(delivered > 50)
    withExtendedLifetime(countToken) {}
  }

  @Test func aListModelKeepsItsRecordsWhileOneDoesNotRead() async throws {
    let (context, _, ids) = try RecordListMonitorTests.fixture(Resident.self)
    let monitor = try RecordListMonitor<AgedResident>(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .mainActor)
    let model = RecordListModel(monitor)
    #expect(model.records.map(\.name) == ["Ann", "Bob", "Cy", "Di"])
    let counter = ChangeCounter()
    counter.track(model)

    try RecordListMonitorTests.edit(context, ids["Bob"], ["age": .null])
    await model.flush()
    #expect(counter.count == 1)
    #expect(
      model.error
        == ObjectGraphError(
          .typeMismatch, "object \(ids["Bob"]!): Person.age: nil cannot be read as Int; declare it Int?"))
    #expect(
      model.records == [
        AgedResident(name: "Ann", age: 40), AgedResident(name: "Bob", age: 30), AgedResident(name: "Cy", age: 50),
        AgedResident(name: "Di", age: 5),
      ])
    // Another change while Bob does not read: still the last full read.
    try RecordListMonitorTests.edit(context, ids["Cy"], ["age": 51])
    await model.flush()
    #expect(counter.count == 2)
    #expect(model.records.map(\.age) == [40, 30, 50, 5])
    #expect(model.latestChanges?.updated.map(\.object.objectID) == [ids["Cy"]!])

    try RecordListMonitorTests.edit(context, ids["Bob"], ["age": 31])
    await model.flush()
    #expect(counter.count == 3)
    #expect(model.error == nil)
    #expect(model.records.map(\.age) == [40, 31, 51, 5])
  }

  @Test(arguments: schedulers.indices)
  func anObjectModelChangesOncePerReportedSave(_ index: Int) async throws {
    let context = WatcherFixtures.context()
    let (ann, bob) = try context.run { context in
      let ann = try context.insert(Resident(name: "Ann", city: "Lima", age: 30))
      let bob = try context.insert(Resident(name: "Bob", city: "Lima", age: 40))
      try context.save()
      return (ann.objectID, bob.objectID)
    }
    let model = try RecordObjectModel(
      RecordObjectMonitor<Resident>(context: context, objectID: ann, scheduler: Self.schedulers[index].1))
    #expect(model.record == Resident(name: "Ann", city: "Lima", age: 30))
    #expect(!model.isDeleted)
    #expect(model.changedKeys.isEmpty)
    let counter = ChangeCounter()
    counter.track(model)

    try RecordListMonitorTests.edit(context, ann, ["age": 31, "city": "Oslo"])
    await model.flush()
    #expect(counter.count == 1)
    #expect(model.record == Resident(name: "Ann", city: "Oslo", age: 31))
    #expect(model.changedKeys == ["age", "city"])

    // Another object's save tells the model nothing.
    try RecordListMonitorTests.edit(context, bob, ["age": 41])
    await model.flush()
    #expect(counter.count == 1)

    try context.run { context in
      try context.delete(context.object(with: ann)!)
      try context.save()
    }
    await model.flush()
    #expect(counter.count == 2)
    #expect(model.isDeleted)
    #expect(model.record == nil)
  }

  @Test func anObjectModelKeepsItsRecordWhileTheValuesDoNotRead() async throws {
    let context = WatcherFixtures.context()
    let bo = try context.run { context in
      let bo = try context.insert(Resident(name: "Bo", city: nil, age: 20))
      try context.save()
      return bo.objectID
    }
    let model = try RecordObjectModel(
      RecordObjectMonitor<AgedResident>(context: context, objectID: bo, scheduler: .mainActor))
    try RecordListMonitorTests.edit(context, bo, ["age": .null])
    await model.flush()
    #expect(model.record == AgedResident(name: "Bo", age: 20))
    #expect(model.error?.message == "object \(bo): Person.age: nil cannot be read as Int; declare it Int?")
    try RecordListMonitorTests.edit(context, bo, ["age": 22])
    await model.flush()
    #expect(model.record == AgedResident(name: "Bo", age: 22))
    #expect(model.error == nil)
  }
}
