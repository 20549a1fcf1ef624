import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// A person of the watcher fixtures as a record.
struct Resident: EntityRecord, Equatable, Sendable {
  static let entityName = "Person"
  var name: String
  var city: String?
  var age: Int?
}

/// Records every callback of a record list observer, in order, as text.
final class RecordListCallbackRecorder: RecordListObserver {
  private let calls = Recording<String>()

  /// The calls since the last take, in order.
  func take() -> [String] { calls.take() }

  private func record(_ call: String) { calls.append(call) }

  private static func name(_ record: Result<Resident, ObjectGraphError>) -> String {
    switch record {
    case .success(let resident): resident.name
    case .failure(let error): "failure(\(error))"
    }
  }

  func listMonitorWillChange(_ monitor: RecordListMonitor<Resident>) { record("will \(monitor.count)") }
  func listMonitorDidChange(_ monitor: RecordListMonitor<Resident>) { record("did \(monitor.count)") }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didDelete change: RecordListChanges<Resident>.Change) {
    record("delete \(Self.name(change.record)) \(change.indexPath)")
  }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didInsert change: RecordListChanges<Resident>.Change) {
    record("insert \(Self.name(change.record)) \(change.indexPath)")
  }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didUpdate change: RecordListChanges<Resident>.Change) {
    record("update \(Self.name(change.record)) \(change.indexPath) \(change.changedKeys)")
  }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didMove move: RecordListChanges<Resident>.Move) {
    record("move \(Self.name(move.record)) \(move.from) → \(move.to) \(move.changedKeys)")
  }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didDeleteSection section: ListSectionInfo, at index: Int) {
    record("delete section \(section.name ?? "nil") \(index)")
  }
  func listMonitor(_ monitor: RecordListMonitor<Resident>, didInsertSection section: ListSectionInfo, at index: Int) {
    record("insert section \(section.name ?? "nil") \(index)")
  }
}

/// A record that counts how often it is decoded, for the decode-once
/// tests (one test uses it at a time: each names its own counter).
struct CountedResident: EntityRecord, Sendable {
  static let entityName = "Person"
  static let decodings = LockedState<[String: Int]>([:])
  var name: String

  enum CodingKeys: String, CodingKey { case name }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    Self.decodings.withLock { $0[name, default: 0] += 1 }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
  }
}

/// A person whose age is required: an object without an age does not read.
struct AgedResident: EntityRecord, Equatable, Sendable {
  static let entityName = "Person"
  var name: String
  var age: Int
}

/// A person's city alone: a record of another size than the others.
struct ResidentCity: EntityRecord, Equatable, Sendable {
  static let entityName = "Person"
  var city: String?
}

@Suite("Records: list monitors")
struct RecordListMonitorTests {
  /// People by city, oldest first in each: Ann (Lima, 40), Bob (Lima, 30),
  /// Cy (Oslo, 50); Di (Rome, 5) is too young to be listed.
  static func fixture<Record>(
    _ type: Record.Type, limit: Int? = nil, scheduler: DeliveryScheduler = .immediate
  ) throws -> (ObjectContext, RecordListMonitor<Record>, [String: ObjectID]) {
    let context = WatcherFixtures.context()
    let ids = try context.performAndWait { context in
      var ids: [String: ObjectID] = [:]
      for (name, city, age) in [("Ann", "Lima", 40), ("Bob", "Lima", 30), ("Cy", "Oslo", 50), ("Di", "Rome", 5)] {
        ids[name] = try context.insert(Resident(name: name, city: city, age: age)).objectID
      }
      _ = try context.save()
      return ids
    }
    let request = try ListRequest(
      Resident.self, where: "age >= %d", arguments: [18], sortedBy: [.ascending("city"), .descending("age")],
      sectionedBy: "city", limit: limit)
    let monitor = try RecordListMonitor<Record>(context: context, request: request, scheduler: scheduler)
    return (context, monitor, ids)
  }

  static func edit(_ context: ObjectContext, _ id: ObjectID?, _ values: [String: FilterValue]) throws {
    try context.performAndWait { context in
      try context.setValues(values, of: context.object(with: id!)!)
      _ = try context.save()
    }
  }

  @Test func readsTheListAsRecords() throws {
    let (_, monitor, ids) = try Self.fixture(Resident.self)
    #expect(monitor.count == 3)
    #expect(monitor.numberOfSections == 2)
    #expect(monitor.sections.map(\.name) == ["Lima", "Oslo"])
    #expect(try monitor[0] == Resident(name: "Ann", city: "Lima", age: 40))
    #expect(try monitor[ListIndexPath(item: 1, section: 0)].name == "Bob")
    #expect(try monitor[IndexPath(indexes: [1, 0])].name == "Cy")
    #expect(try monitor.records(inSection: 1) == [Resident(name: "Cy", city: "Oslo", age: 50)])
    #expect(try monitor.records.map(\.name) == ["Ann", "Bob", "Cy"])
    #expect(monitor.objectIDs == [ids["Ann"]!, ids["Bob"]!, ids["Cy"]!])
    #expect(monitor.indexPath(of: ids["Cy"]!) == ListIndexPath(item: 0, section: 1))
    #expect(monitor.untyped.count == 3)
    let content = monitor.content
    #expect(try content.records(inSection: 0).map(\.name) == ["Ann", "Bob"])
    #expect(try content[2].name == "Cy")
  }

  @Test func observersGetEachChangeWithItsRecordInBatchUpdateOrder() throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let recorder = RecordListCallbackRecorder()
    monitor.addObserver(recorder)

    try Self.edit(context, ids["Bob"], ["city": "Oslo", "age": 60])
    #expect(recorder.take() == ["will 3", "move Bob [0, 1] → [1, 0] [\"age\", \"city\"]", "did 3"])
    try Self.edit(context, ids["Ann"], ["city": "Kyiv"])
    #expect(
      recorder.take() == [
        "will 3", "delete Ann [0, 0]", "delete section Lima 0", "insert section Kyiv 0", "insert Ann [0, 0]",
        "did 3",
      ])
    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    #expect(recorder.take() == ["will 3", "update Cyd [1, 1] [\"name\"]", "did 3"])
    try Self.edit(context, ids["Di"], ["age": 70])
    #expect(recorder.take() == ["will 3", "insert section Rome 2", "insert Di [2, 0]", "did 4"])

    monitor.removeObserver(recorder)
    try Self.edit(context, ids["Di"], ["age": 71])
    #expect(recorder.take().isEmpty)
  }

  @Test func closuresAndSequencesGetTheChangesAndTheNewContent() async throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let updates = LockedState<[RecordListUpdate<Resident>]>([])
    let token = monitor.observe { update in updates.withLock { $0.append(update) } }
    var iterator = monitor.updates.makeAsyncIterator()
    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    let update = try #require(updates.withLock { $0 }.first)
    #expect(update.changes.updated.count == 1)
    #expect(try update.changes.updated[0].record.get() == Resident(name: "Cyd", city: "Oslo", age: 50))
    #expect(update.changes.updated[0].object.objectID == ids["Cy"])
    #expect(update.changes.untyped.updated.map(\.indexPath) == [ListIndexPath(item: 0, section: 1)])
    #expect(update.changes.sequenceNumber == 2)
    #expect(try update.content.records.map(\.name) == ["Ann", "Bob", "Cyd"])
    #expect(update.untyped.content.count == 3)
    let next = await iterator.next()
    #expect(try next?.changes.updated.first?.record.get().name == "Cyd")
    token.cancel()
    try Self.edit(context, ids["Cy"], ["name": "Cy"])
    #expect(updates.withLock { $0.count } == 1)
  }

  @Test func theUpdatesSequenceEndsWithTheMonitor() async throws {
    var (_, monitor, _) = try Self.fixture(Resident.self)
    let sequence = monitor.updates
    monitor = try Self.fixture(Resident.self).1
    var iterator = sequence.makeAsyncIterator()
    #expect(await iterator.next() == nil)
  }

  @Test func eachChangedObjectIsDecodedOnceHoweverManyObserversReadIt() async throws {
    let (context, monitor, ids) = try Self.fixture(CountedResident.self)
    final class Reader: RecordListObserver {
      let names = LockedState<[String]>([])
      func listMonitor(
        _ monitor: RecordListMonitor<CountedResident>, didUpdate change: RecordListChanges<CountedResident>.Change
      ) {
        if case .success(let resident) = change.record { names.withLock { $0.append(resident.name) } }
      }
      func listMonitor(
        _ monitor: RecordListMonitor<CountedResident>, didMove move: RecordListChanges<CountedResident>.Move
      ) {
        if case .success(let resident) = move.record { names.withLock { $0.append(resident.name) } }
      }
    }
    let readers = [Reader(), Reader(), Reader()]
    for reader in readers { monitor.addObserver(reader) }
    let read = LockedState(0)
    let tokens = (0..<3).map { _ in
      monitor.observe { update in
        for change in update.changes.updated { if case .success = change.record { read.withLock { $0 += 1 } } }
        for move in update.changes.moved { if case .success = move.record { read.withLock { $0 += 1 } } }
      }
    }
    var iterator = monitor.updates.makeAsyncIterator()
    // One save: Ann renamed (updated in place), Bob moved to Oslo.
    try context.performAndWait { context in
      try context.setValues(["name": "Ann-Once"], of: context.object(with: ids["Ann"]!)!)
      try context.setValues(["name": "Bob-Once", "city": "Oslo"], of: context.object(with: ids["Bob"]!)!)
      _ = try context.save()
    }
    _ = await iterator.next()
    #expect(readers.map { $0.names.withLock { $0.sorted() } } == Array(repeating: ["Ann-Once", "Bob-Once"], count: 3))
    #expect(read.withLock { $0 } == 6)
    #expect(CountedResident.decodings.withLock { [$0["Ann-Once"], $0["Bob-Once"]] } == [1, 1])
    withExtendedLifetime(tokens) {}
  }

  /// The names an update's changes and content read, as text.
  /// A change or move prints and reflects as its own object, not the
  /// delivery's changes it shares: printing every change of a large
  /// refetch stays linear.
  @Test func aChangePrintsItsOwnObjectAlone() throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let printed = Recording<[String]>()
    let labels = Recording<[String]>()
    let token = monitor.observe { update in
      printed.append(
        update.changes.updated.map { String(describing: $0) } + update.changes.moved.map { String(describing: $0) })
      labels.append(
        update.changes.updated.flatMap { Mirror(reflecting: $0).children.map { $0.label ?? "?" } }
          + update.changes.moved.flatMap { Mirror(reflecting: $0).children.map { $0.label ?? "?" } })
    }
    try context.performAndWait { context in
      try context.setValues(["name": "Anna"], of: context.object(with: ids["Ann"]!)!)
      try context.setValues(["name": "Cyd"], of: context.object(with: ids["Cy"]!)!)
      try context.setValues(["age": 45], of: context.object(with: ids["Bob"]!)!)
      _ = try context.save()
    }
    let descriptions = try #require(printed.take().first)
    #expect(descriptions.count == 3)
    let (anna, cyd, bob) = (descriptions[0], descriptions[1], descriptions[2])
    #expect(anna.contains("Anna") && !anna.contains("Cyd") && !anna.contains("Bob"))
    #expect(cyd.contains("Cyd") && !cyd.contains("Anna") && !cyd.contains("Bob"))
    #expect(bob.contains("Bob") && bob.contains("from:") && !bob.contains("Anna") && !bob.contains("Cyd"))
    #expect(
      labels.take().first == [
        "indexPath", "object", "changedKeys", "record", "indexPath", "object", "changedKeys", "record",
        "from", "to", "object", "changedKeys", "record",
      ])
    withExtendedLifetime(token) {}
  }

  static func names(_ update: RecordListUpdate<Resident>) -> String {
    let changed =
      update.changes.updated.map { (try? $0.record.get().name) ?? "?" }
      + update.changes.moved.map { (try? $0.record.get().name) ?? "?" }
    let listed = (try? update.content.records.map(\.name)) ?? []
    return "\(changed) in \(listed)"
  }

  @Test func monitorsOfDifferentRecordTypesEachHandTheirClosuresTheirOwnRecords() async throws {
    let (context, residents, ids) = try Self.fixture(Resident.self)
    let request = try ListRequest(
      Resident.self, where: "age >= %d", arguments: [18], sortedBy: [.ascending("city"), .descending("age")],
      sectionedBy: "city")
    let aged = try RecordListMonitor<AgedResident>(context: context, request: request, scheduler: .immediate)
    let cities = try RecordListMonitor<ResidentCity>(context: context, request: request, scheduler: .immediate)
    let (residentReads, agedReads, cityReads) = (Recording<String>(), Recording<String>(), Recording<String>())
    let tokens = [
      residents.observe { update in residentReads.append("first \(Self.names(update))") },
      aged.observe { update in
        for change in update.changes.updated {
          if case .success(let person) = change.record { agedReads.append("\(person.name) \(person.age)") }
        }
      },
      cities.observe { update in
        for move in update.changes.moved {
          if case .success(let person) = move.record { cityReads.append("moved \(person.city ?? "nil")") }
        }
        for change in update.changes.updated {
          if case .success(let person) = change.record { cityReads.append("updated \(person.city ?? "nil")") }
        }
      },
      residents.observe { update in residentReads.append("second \(Self.names(update))") },
    ]
    var (residentUpdates, agedUpdates) = (residents.updates.makeAsyncIterator(), aged.updates.makeAsyncIterator())

    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    #expect(
      residentReads.take() == [
        "first [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]", "second [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]",
      ])
    #expect(agedReads.take() == ["Cyd 50"])
    #expect(cityReads.take() == ["updated Oslo"])
    #expect(try await residentUpdates.next()?.changes.updated.first?.record.get().name == "Cyd")
    #expect(try await agedUpdates.next()?.changes.updated.first?.record.get() == AgedResident(name: "Cyd", age: 50))

    try Self.edit(context, ids["Bob"], ["city": "Oslo"])
    #expect(
      residentReads.take() == [
        "first [\"Bob\"] in [\"Ann\", \"Cyd\", \"Bob\"]", "second [\"Bob\"] in [\"Ann\", \"Cyd\", \"Bob\"]",
      ])
    #expect(agedReads.take().isEmpty)
    #expect(cityReads.take() == ["moved Oslo"])
    withExtendedLifetime(tokens) {}
  }

  @Test func closuresRegisteredOrCancelledDuringADeliveryEachReadTheWholeUpdate() async throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let calls = Recording<String>()
    let kept = LockedState<[ObserverToken]>([])
    let cancelled = LockedState<ObserverToken?>(nil)
    let first = monitor.observe { update in
      calls.append("first \(Self.names(update))")
      // A closure cancelled or registered now gets no later update; the
      // ones after this one still read this update whole.
      cancelled.withLock { $0?.cancel() }
      let late = monitor.observe { update in calls.append("late \(Self.names(update))") }
      kept.withLock { $0.append(late) }
    }
    cancelled.withLock { $0 = monitor.observe { update in calls.append("cancelled \(Self.names(update))") } }
    let last = monitor.observe { update in calls.append("last \(Self.names(update))") }
    var iterator = monitor.updates.makeAsyncIterator()

    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    let firstCalls = calls.take()
    #expect(firstCalls.first == "first [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]")
    #expect(firstCalls.last == "last [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]")
    #expect(firstCalls.allSatisfy { $0.hasSuffix("[\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]") })
    #expect(!firstCalls.contains { $0.hasPrefix("late") })
    let sequenced = try #require(await iterator.next())
    #expect(Self.names(sequenced) == "[\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]")

    try Self.edit(context, ids["Ann"], ["name": "Anna"])
    #expect(
      calls.take() == [
        "first [\"Anna\"] in [\"Anna\", \"Bob\", \"Cyd\"]", "last [\"Anna\"] in [\"Anna\", \"Bob\", \"Cyd\"]",
        "late [\"Anna\"] in [\"Anna\", \"Bob\", \"Cyd\"]",
      ])
    withExtendedLifetime((first, last)) {}
  }

  @Test func aRecordThatDoesNotReadIsAFailureNamingTheObjectAndTheKey() throws {
    let (context, monitor, ids) = try Self.fixture(AgedResident.self)
    let updates = LockedState<[RecordListUpdate<AgedResident>]>([])
    let token = monitor.observe { update in updates.withLock { $0.append(update) } }
    #expect(try monitor[0] == AgedResident(name: "Ann", age: 40))
    // Bob's age set to nil: he leaves the list, deleted with his last
    // values (which read).
    try Self.edit(context, ids["Bob"], ["age": .null])
    let deleted = try #require(updates.withLock { $0.last }?.changes.deleted.first)
    #expect(try deleted.record.get() == AgedResident(name: "Bob", age: 30))

    // A monitor of every person lists Di once her age is nil: her record
    // does not read.
    let everyone = try RecordListMonitor<AgedResident>(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate)
    let failures = LockedState<[ObjectGraphError]>([])
    let everyToken = everyone.observe { update in
      for change in update.changes.updated {
        if case .failure(let error) = change.record { failures.withLock { $0.append(error) } }
      }
    }
    try Self.edit(context, ids["Di"], ["age": .null])
    let expected = ObjectGraphError(
      .typeMismatch, "object \(ids["Di"]!): Person.age: nil cannot be read as Int; declare it Int?")
    #expect(failures.withLock { $0 } == [expected])
    #expect(throws: expected) { try everyone[3] }
    // Bob, second, has no age either: the whole list's read stops at him.
    #expect(throws: ObjectGraphError.self) { try everyone.records }
    #expect(try everyone[0].name == "Ann")
    withExtendedLifetime((token, everyToken)) {}
  }

  @Test func aRequestOfAnotherEntityIsRefused() throws {
    let context = WatcherFixtures.context()
    let companies = ListRequest("Company", sortedBy: [.ascending("name")])
    let error = try #require(throws: MonitorError.self) {
      try RecordListMonitor<Resident>(context: context, request: companies, scheduler: .immediate)
    }
    #expect(error.code == .entityMismatch)
    #expect(
      error.description
        == "watch 'Company TRUEPREDICATE' on Company: Company objects are not Resident records, which read Person (Person, Employee)"
    )
    // A sub-entity's objects are the entity's.
    let employees = ListRequest("Employee", sortedBy: [.ascending("name")])
    _ = try RecordListMonitor<Resident>(context: context, request: employees, scheduler: .immediate)
    // An unknown entity is the list monitor's error.
    let unknown = try #require(throws: MonitorError.self) {
      try RecordListMonitor<Resident>(
        context: context, request: ListRequest("Persons", sortedBy: [.ascending("name")]), scheduler: .immediate)
    }
    #expect(unknown.code == .unknownEntity)

    struct Stranger: EntityRecord, Sendable {
      static let entityName = "Alien"
      var name: String
    }
    let stranger = try #require(throws: MonitorError.self) {
      try RecordListMonitor<Stranger>(context: context, request: employees, scheduler: .immediate)
    }
    #expect(stranger.code == .unknownEntity)
    #expect(
      stranger.watchError?.message
        == "Stranger.entityName is 'Alien', not an entity of the schema (entities: Company, Department, Person, Employee)"
    )
  }

  @Test func aChangeBeyondTheLimitTellsObserversNothingButWillAndDid() throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self, limit: 2)
    let recorder = RecordListCallbackRecorder()
    monitor.addObserver(recorder)
    let closureCalls = LockedState(0)
    let token = monitor.observe { _ in closureCalls.withLock { $0 += 1 } }
    // Cy (Oslo) is third: beyond the limit of two.
    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    #expect(recorder.take().isEmpty)
    #expect(closureCalls.withLock { $0 } == 0)
    try Self.edit(context, ids["Ann"], ["name": "Anna"])
    #expect(recorder.take() == ["will 2", "update Anna [0, 0] [\"name\"]", "did 2"])
    #expect(closureCalls.withLock { $0 } == 1)
    withExtendedLifetime(token) {}
  }

  @Test func aClosureThatSavesGetsThatSaveAfterTheDeliveryItIsIn() throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let calls = Recording<String>()
    let saved = LockedState(false)
    let first = monitor.observe { update in
      calls.append("first \(Self.names(update))")
      // Saves once, from inside the first delivery, on the saving thread.
      guard !saved.withLock({ $0 }) else { return }
      saved.withLock { $0 = true }
      try? Self.edit(context, ids["Ann"], ["name": "Anna"])
      calls.append("first saved")
    }
    let second = monitor.observe { update in calls.append("second \(Self.names(update))") }

    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    // The closure's save waits for the delivery it was made in: every
    // closure reads the first update whole, then the second comes.
    #expect(
      calls.take() == [
        "first [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]", "first saved",
        "second [\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]",
        "first [\"Anna\"] in [\"Anna\", \"Bob\", \"Cyd\"]", "second [\"Anna\"] in [\"Anna\", \"Bob\", \"Cyd\"]",
      ])
    #expect(try monitor.records.map(\.name) == ["Anna", "Bob", "Cyd"])
    withExtendedLifetime((first, second)) {}
  }

  @Test func anObserverAddedAfterClosureOnlyDeliveriesGetsTheNextChanges() throws {
    let (context, monitor, ids) = try Self.fixture(Resident.self)
    let closureCalls = Recording<String>()
    let token = monitor.observe { update in closureCalls.append(Self.names(update)) }
    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    try Self.edit(context, ids["Bob"], ["age": 45])
    #expect(
      closureCalls.take() == [
        "[\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]", "[\"Bob\"] in [\"Bob\", \"Ann\", \"Cyd\"]",
      ])

    let recorder = RecordListCallbackRecorder()
    monitor.addObserver(recorder)
    try Self.edit(context, ids["Bob"], ["city": "Oslo"])
    #expect(
      recorder.take() == ["will 3", "move Bob [0, 0] → [1, 1] [\"city\"]", "did 3"])
    // Oslo by age, oldest first: Cyd (50), then Bob (45).
    #expect(closureCalls.take() == ["[\"Bob\"] in [\"Ann\", \"Cyd\", \"Bob\"]"])
    withExtendedLifetime(token) {}
  }

  @Test func aClosureThatReleasesItsMonitorEndsItsDeliveries() throws {
    let (context, made, ids) = try Self.fixture(Resident.self)
    let held = LockedState<RecordListMonitor<Resident>?>(made)
    let calls = Recording<String>()
    let token = made.observe { update in
      calls.append(Self.names(update))
      // The last reference to the monitor goes during its delivery.
      held.withLock { $0 = nil }
    }
    weak let released = made
    _ = consume made

    try Self.edit(context, ids["Cy"], ["name": "Cyd"])
    #expect(calls.take() == ["[\"Cyd\"] in [\"Ann\", \"Bob\", \"Cyd\"]"])
    #expect(released == nil)
    try Self.edit(context, ids["Ann"], ["name": "Anna"])
    #expect(calls.take().isEmpty)
    withExtendedLifetime(token) {}
  }
}
