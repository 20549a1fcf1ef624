import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import Testing

/// Records what a record object monitor reports, with the record it held
/// at each call.
final class RecordObjectLog: RecordObjectObserver {
  let entries = LockedState<[String]>([])

  var all: [String] { entries.withLock { $0 } }

  static func age(_ record: Result<Resident, ObjectGraphError>) -> String {
    switch record {
    case .success(let resident): resident.age.map(String.init) ?? "nil"
    case .failure(let error): "failure(\(error))"
    }
  }

  static func held(_ monitor: RecordObjectMonitor<Resident>) -> String {
    do {
      return try monitor.record.map { $0.age.map(String.init) ?? "nil" } ?? "deleted"
    } catch {
      return "failure"
    }
  }

  func objectMonitor(_ monitor: RecordObjectMonitor<Resident>, willUpdate record: Result<Resident, ObjectGraphError>) {
    entries.withLock { $0.append("will \(Self.age(record)) (held \(Self.held(monitor)))") }
  }

  func objectMonitor(
    _ monitor: RecordObjectMonitor<Resident>, didUpdate record: Result<Resident, ObjectGraphError>,
    changedKeys: [String]
  ) {
    entries.withLock { $0.append("did \(Self.age(record)) \(changedKeys) (held \(Self.held(monitor)))") }
  }

  func objectMonitor(_ monitor: RecordObjectMonitor<Resident>, didDelete record: Result<Resident, ObjectGraphError>) {
    entries.withLock { $0.append("deleted \(Self.age(record)) (held \(Self.held(monitor)))") }
  }
}

@Suite("Records: object monitors")
struct RecordObjectMonitorTests {
  let context = WatcherFixtures.context()

  func insert(_ resident: Resident) throws -> ObjectID {
    try context.run { context in
      let object = try context.insert(resident)
      try context.save()
      return object.objectID
    }
  }

  func edit(_ id: ObjectID, _ values: [String: FilterValue]) throws {
    try context.run { context in
      try context.setValues(values, of: context.object(with: id)!)
      try context.save()
    }
  }

  func delete(_ id: ObjectID) throws {
    try context.run { context in
      try context.delete(context.object(with: id)!)
      try context.save()
    }
  }

  @Test func reportsEachSaveWithTheRecordBeforeAndAfter() throws {
    let ann = try insert(Resident(name: "Ann", city: "Lima", age: 30))
    let monitor = try RecordObjectMonitor<Resident>(context: context, objectID: ann, scheduler: .immediate)
    #expect(try monitor.record == Resident(name: "Ann", city: "Lima", age: 30))
    #expect(monitor.objectID == ann)
    let log = RecordObjectLog()
    monitor.addObserver(log)
    let events = LockedState<[String]>([])
    let token = monitor.observe { event in
      switch event {
      case .willUpdate(let record): events.withLock { $0.append("will \(RecordObjectLog.age(record))") }
      case .didUpdate(let record, let keys):
        events.withLock { $0.append("did \(RecordObjectLog.age(record)) \(keys)") }
      case .didDelete(let record): events.withLock { $0.append("deleted \(RecordObjectLog.age(record))") }
      }
    }
    try edit(ann, ["age": 31])
    try edit(ann, ["city": "Oslo", "age": 32])
    try delete(ann)
    #expect(
      log.all == [
        "will 30 (held 30)", "did 31 [\"age\"] (held 31)", "will 31 (held 31)",
        "did 32 [\"age\", \"city\"] (held 32)", "deleted 32 (held deleted)",
      ])
    #expect(
      events.withLock { $0 } == ["will 30", "did 31 [\"age\"]", "will 31", "did 32 [\"age\", \"city\"]", "deleted 32"])
    #expect(try monitor.record == nil)
    withExtendedLifetime(token) {}
  }

  @Test func theEventSequenceEndsAfterTheDeletion() async throws {
    let ann = try insert(Resident(name: "Ann", city: nil, age: 30))
    let monitor = try RecordObjectMonitor<Resident>(
      context: context, objectID: ann, scheduler: .queue(DispatchQueue(label: "records")))
    var events = monitor.events.makeAsyncIterator()
    try edit(ann, ["name": "Anna"])
    try delete(ann)
    var names: [String] = []
    while let event = await events.next() {
      switch event {
      case .willUpdate(let record): names.append("will \(try record.get().name)")
      case .didUpdate(let record, _): names.append("did \(try record.get().name)")
      case .didDelete(let record): names.append("deleted \(try record.get().name)")
      }
    }
    #expect(names == ["will Ann", "did Anna", "deleted Anna"])
    // A sequence made after the deletion ends at once.
    for await _ in monitor.events { Issue.record("an event after the deletion") }
  }

  @Test func eachReportedSnapshotIsDecodedOnceHoweverManyObserversReadIt() throws {
    let cy = try insert(Resident(name: "Cy-Object", city: nil, age: 30))
    let monitor = try RecordObjectMonitor<CountedResident>(context: context, objectID: cy, scheduler: .immediate)
    final class Reader: RecordObjectObserver {
      let names = LockedState<[String]>([])
      func objectMonitor(
        _ monitor: RecordObjectMonitor<CountedResident>, didUpdate record: Result<CountedResident, ObjectGraphError>,
        changedKeys: [String]
      ) {
        if case .success(let resident) = record { names.withLock { $0.append(resident.name) } }
      }
    }
    let readers = [Reader(), Reader()]
    for reader in readers { monitor.addObserver(reader) }
    let tokens = (0..<2).map { _ in monitor.observe { _ in } }
    #expect(CountedResident.decodings.withLock { $0["Cy-Object"] } == 1)
    try edit(cy, ["name": "Cy-Object-2"])
    #expect(readers.map { $0.names.withLock { $0 } } == [["Cy-Object-2"], ["Cy-Object-2"]])
    // The "will update" of the save reads the record held, decoded once
    // when the monitor was created.
    #expect(CountedResident.decodings.withLock { [$0["Cy-Object"], $0["Cy-Object-2"]] } == [1, 1])
    #expect(try monitor.record?.name == "Cy-Object-2")
    #expect(CountedResident.decodings.withLock { $0["Cy-Object-2"] } == 1)
    withExtendedLifetime(tokens) {}
  }

  @Test func valuesThatDoNotReadAreAFailureNamingTheObjectAndTheKey() throws {
    let bo = try insert(Resident(name: "Bo", city: nil, age: 20))
    let monitor = try RecordObjectMonitor<AgedResident>(context: context, objectID: bo, scheduler: .immediate)
    let reported = LockedState<[Result<AgedResident, ObjectGraphError>]>([])
    let token = monitor.observe { event in
      if case .didUpdate(let record, _) = event { reported.withLock { $0.append(record) } }
    }
    try edit(bo, ["age": .null])
    let expected = ObjectGraphError(
      .typeMismatch, "object \(bo): Person.age: nil cannot be read as Int; declare it Int?")
    #expect(reported.withLock { $0 } == [.failure(expected)])
    #expect(throws: expected) { try monitor.record }
    try edit(bo, ["age": 21])
    #expect(try monitor.record == AgedResident(name: "Bo", age: 21))
    withExtendedLifetime(token) {}
  }

  @Test func anObjectOfAnotherEntityIsRefused() throws {
    let acme = try context.run { context in
      let company = try context.insert("Company", values: ["name": "Acme"])
      try context.save()
      return company.objectID
    }
    let error = try #require(throws: MonitorError.self) {
      try RecordObjectMonitor<Resident>(context: context, objectID: acme, scheduler: .immediate)
    }
    #expect(error.code == .entityMismatch)
    #expect(error.message == "RecordObjectMonitor<Resident>: \(acme) is a Company, not one of Person, Employee")
    // An employee is a person.
    let eve = try context.run { context in
      let employee = try context.insert("Employee", values: ["name": "Eve"])
      try context.save()
      return employee.objectID
    }
    let monitor = try RecordObjectMonitor<Resident>(context: context, objectID: eve, scheduler: .immediate)
    #expect(try monitor.record?.name == "Eve")
    let missing = try #require(throws: MonitorError.self) {
      try RecordObjectMonitor<Resident>(context: context, objectID: ObjectID(rawValue: 999_999), scheduler: .immediate)
    }
    #expect(missing.code == .unknownObject)
  }
}
