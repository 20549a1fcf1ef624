// A list monitor against a fresh fetch after every save of a random
// workload: inserts, deletes, updates of predicate, sort and section keys,
// relationship changes and renames of related objects, limits, offsets,
// and changes of request. Seeded; CONTEXTWATCHER_SEED replays.

import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// A list as plain values: sections with their names and object IDs.
struct ListPicture: Equatable, CustomStringConvertible {
  struct Section: Equatable {
    var name: String?
    var ids: [ObjectID]
  }

  var sections: [Section]

  init(sections: [Section]) { self.sections = sections }

  init(_ content: ListContent) {
    sections = (0..<content.numberOfSections).map { index in
      Section(name: content.section(at: index).name, ids: content.objects(inSection: index).map(\.objectID))
    }
  }

  /// Applies a batch update as a table view would: removals in old
  /// coordinates (objects, then sections, from the end), then insertions
  /// in new ones (sections, then objects, from the start).
  func applying(_ changes: ListChanges) -> ListPicture {
    var sections = self.sections
    let removals = (changes.deleted.map(\.indexPath) + changes.moved.map(\.from)).sorted(by: >)
    for path in removals { sections[path.section].ids.remove(at: path.item) }
    for section in changes.deletedSections.sorted(by: { $0.index > $1.index }) {
      precondition(sections[section.index].ids.isEmpty, "a deleted section still holds objects")
      sections.remove(at: section.index)
    }
    for section in changes.insertedSections.sorted(by: { $0.index < $1.index }) {
      sections.insert(Section(name: section.info.name, ids: []), at: section.index)
    }
    let insertions =
      (changes.inserted.map { ($0.indexPath, $0.object.objectID) } + changes.moved.map { ($0.to, $0.object.objectID) })
      .sorted { $0.0 < $1.0 }
    for (path, id) in insertions { sections[path.section].ids.insert(id, at: path.item) }
    return ListPicture(sections: sections)
  }

  var description: String {
    sections.map { "\($0.name ?? "nil"): \($0.ids.map(\.rawValue))" }.joined(separator: " | ")
  }
}

/// A list description, and an independent fetch-and-sort of it.
struct ListConfiguration: Sendable, CustomStringConvertible {
  var predicate: String?
  var sortKeys: [(key: String, ascending: Bool)]
  var sectionKey: String?
  var limit: Int?
  var offset = 0

  var request: ListRequest {
    let keys = sortKeys.map { ObjectFetchRequest.SortKey($0.key, ascending: $0.ascending) }
    if let predicate {
      return try! ListRequest(
        "Person", where: predicate, sortedBy: keys, sectionedBy: sectionKey, limit: limit, offset: offset)
    }
    return ListRequest("Person", sortedBy: keys, sectionedBy: sectionKey, limit: limit, offset: offset)
  }

  var description: String {
    "\(predicate ?? "all") by \(sortKeys.map { "\($0.key)\($0.ascending ? "" : " desc")" }) sections \(sectionKey ?? "none") limit \(limit.map(String.init) ?? "none") offset \(offset)"
  }

  /// What the list must hold: fetched, sorted and grouped here, on the
  /// context's queue.
  func expected(in context: ObjectContext) throws -> ListPicture {
    let objects = try context.fetch("Person", where: predicate)
    func read(_ object: ManagedObject, _ keyPath: String) -> FilterValue {
      var current = object
      let components = keyPath.split(separator: ".").map(String.init)
      for component in components.dropLast() {
        guard case .toOne(let id?)? = current.targets(of: component), let next = context.object(with: id) else {
          return .null
        }
        current = next
      }
      return current[components.last!] ?? .null
    }
    func compare(_ a: FilterValue, _ b: FilterValue) -> Int {
      switch (a, b) {
      case (.null, .null): return 0
      case (.null, _): return -1
      case (_, .null): return 1
      case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
      case (.string(let x), .string(let y)):
        // UTF-8 byte order is Unicode scalar order.
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x.utf8.elementsEqual(y.utf8) ? 0 : 1)
      default: fatalError("unexpected values \(a), \(b)")
      }
    }
    let keyed = objects.map { object in (object.objectID, sortKeys.map { read(object, $0.key) }) }
    let sorted = keyed.sorted { a, b in
      for (index, key) in sortKeys.enumerated() {
        let order = compare(a.1[index], b.1[index])
        if order != 0 { return key.ascending ? order < 0 : order > 0 }
      }
      return a.0 < b.0
    }
    // The window [offset, offset + limit) of the fetch, as a fetch
    // request's offset and limit slice it.
    let window = sorted.dropFirst(offset)
    let listed = limit.map { Array(window.prefix($0)) } ?? Array(window)
    guard sectionKey != nil else { return ListPicture(sections: [.init(name: nil, ids: listed.map(\.0))]) }
    var sections: [ListPicture.Section] = []
    var last: FilterValue?
    for (id, keys) in listed {
      if let last, compare(last, keys[0]) == 0 {
        sections[sections.count - 1].ids.append(id)
      } else {
        let name: String? =
          switch keys[0] {
          case .string(let text): text
          case .int(let number): String(number)
          default: nil
          }
        sections.append(.init(name: name, ids: [id]))
      }
      last = keys[0]
    }
    return ListPicture(sections: sections)
  }

  static let all: [ListConfiguration] = [
    ListConfiguration(
      predicate: "age > 10", sortKeys: [("city", true), ("age", false)], sectionKey: "city", limit: nil),
    ListConfiguration(
      predicate: "age > 10", sortKeys: [("city", true), ("age", false)], sectionKey: "city", limit: 12),
    ListConfiguration(predicate: nil, sortKeys: [("name", true)], sectionKey: nil, limit: 10),
    ListConfiguration(
      predicate: "city != nil", sortKeys: [("department.name", true), ("name", true)], sectionKey: "department.name",
      limit: nil),
    ListConfiguration(
      predicate: "department.name BEGINSWITH 'Department D'", sortKeys: [("age", false)], sectionKey: nil, limit: 8),
    ListConfiguration(
      predicate: "age < 30", sortKeys: [("age", true), ("name", false)], sectionKey: "age", limit: 25),
    ListConfiguration(
      predicate: nil, sortKeys: [("name", false), ("city", true), ("age", true)], sectionKey: "name", limit: nil),
    // The first configuration's sections in the other order: a change of
    // request between them keeps the sections' values but not their order.
    ListConfiguration(
      predicate: "age > 10", sortKeys: [("city", false), ("age", false)], sectionKey: "city", limit: nil),
    // Windows: an offset with a limit, with and without sections; an
    // offset alone; an offset near the list's length, so that saves take
    // the window past the end and back.
    ListConfiguration(
      predicate: "age > 10", sortKeys: [("city", true), ("age", false)], sectionKey: "city", limit: 9, offset: 7),
    ListConfiguration(predicate: nil, sortKeys: [("name", true)], sectionKey: nil, limit: 10, offset: 15),
    ListConfiguration(
      predicate: "city != nil", sortKeys: [("department.name", true), ("name", true)], sectionKey: "department.name",
      limit: nil, offset: 11),
    ListConfiguration(
      predicate: "age < 30", sortKeys: [("age", true), ("name", false)], sectionKey: "age", limit: 6, offset: 30),
    ListConfiguration(
      predicate: "city != nil", sortKeys: [("department.name", false), ("name", true)], sectionKey: "department.name",
      limit: 9, offset: 7),
    ListConfiguration(
      predicate: nil, sortKeys: [("city", true), ("age", true), ("department.name", true)], sectionKey: "city",
      limit: 12, offset: 5),
    ListConfiguration(
      predicate: nil, sortKeys: [("department.name", true)], sectionKey: nil, limit: 10),
  ]
}

extension ListConfiguration {
  /// The configuration at `index` of ``all``, its seed (`base + index`,
  /// unless CONTEXTWATCHER_SEED replays another), and a fixture context
  /// populated from that seed, with the generator where populating left it.
  static func seededRun(
    _ index: Int, seed base: UInt64
  ) throws -> (ListConfiguration, UInt64, ObjectContext, SeededGenerator) {
    let seed = SeededGenerator.seed(default: base &+ UInt64(index))
    var random = SeededGenerator(seed: seed)
    let context = WatcherFixtures.context()
    try RandomWrites.populate(context, random: &random)
    return (all[index], seed, context, random)
  }
}

/// Collects a monitor's deliveries.
typealias ListRecorder = Recording<ListMonitorUpdate>

/// Random writes to the fixture context's people and departments.
struct RandomWrites {
  var random: SeededGenerator
  static let cities: [String?] = ["Lima", "Oslo", "Rome", "Kyiv", nil]
  static let letters = ["a", "b", "c", "d", "e"]

  /// Two letters, or two letters after a shared prefix longer than the
  /// list's encoded sort values hold (so that the values decide).
  mutating func name() -> String {
    let letters = (0..<2).map { _ in Self.letters.randomElement(using: &random)! }.joined()
    return Bool.random(using: &random) ? letters : "Department of " + letters
  }

  mutating func age() -> FilterValue {
    Int.random(in: 0..<8, using: &random) == 0 ? .null : .int(Int64.random(in: 0..<40, using: &random))
  }

  mutating func city() -> FilterValue { Self.cities.randomElement(using: &random)!.map(FilterValue.string) ?? .null }

  /// What a block of writes ends with.
  enum Ending { case save, rollback, nothing }

  /// One to four writes, then a save (or `ending`); one block in ten has 17
  /// to 40 writes (the list monitor counts ranks for up to 16 repositioned
  /// objects and searches for more).
  mutating func save(_ context: ObjectContext, ending: Ending = .save) throws {
    let writes =
      Int.random(in: 0..<10, using: &random) == 0
      ? Int.random(in: 17...40, using: &random) : Int.random(in: 1...4, using: &random)
    try context.performAndWait { context in
      let departments = try context.objects(of: "Department")
      for _ in 0..<writes {
        let people = try context.objects(of: "Person")
        let person = people.randomElement(using: &random)
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<4 where people.count > 80:
          // Keeps the population near 80, so that every save stays cheap.
          if let person { try context.delete(person) }
        case 0..<4:
          let entity = Int.random(in: 0..<4, using: &random) == 0 ? "Employee" : "Person"
          let object = try context.insert(entity, values: ["name": .string(name()), "age": age(), "city": city()])
          try object.setRelationship("department", to: departments.randomElement(using: &random))
        case 4..<6:
          if let person, people.count > 20 { try context.delete(person) }
        case 6..<9: try person?.setValue(age(), forKey: "age")
        case 9..<11: try person?.setValue(city(), forKey: "city")
        case 11..<13: try person?.setValue(.string(name()), forKey: "name")
        case 13..<15:
          let department = Int.random(in: 0..<5, using: &random) == 0 ? nil : departments.randomElement(using: &random)
          try person?.setRelationship("department", to: department)
        case 15..<17:
          let department = departments.randomElement(using: &random)!
          try department.setValue(
            .string(
              ["Department Dev", "Department Ops", "Department Design", "Department Sales"].randomElement(
                using: &random)!), forKey: "name")
        case 17:
          try person?.setValue(.int(Int64.random(in: 0..<1000, using: &random)), forKey: "lastSeen")
        default:
          // A save that changes nothing the lists read, or nothing at all.
          break
        }
      }
      switch ending {
      case .save: _ = try context.save()
      case .rollback: context.rollback()
      case .nothing: break
      }
    }
  }

  static func populate(_ context: ObjectContext, random: inout SeededGenerator) throws {
    var writes = RandomWrites(random: random)
    try context.performAndWait { context in
      for name in ["Department Dev", "Department Ops", "Department Design"] {
        _ = try context.insert("Department", values: ["name": .string(name)])
      }
      let departments = try context.objects(of: "Department")
      for _ in 0..<40 {
        let person = try context.insert(
          "Person", values: ["name": .string(writes.name()), "age": writes.age(), "city": writes.city()])
        try person.setRelationship("department", to: departments.randomElement(using: &writes.random))
      }
      _ = try context.save()
    }
    random = writes.random
  }
}

// Serialized: the cases are long and CPU-bound, and running two at once would
// leave no thread of a 2-core machine to the async tests of other suites.
@Suite("List monitor: random saves against a fresh fetch", .serialized)
struct ListMonitorRandomTests {
  @Test(arguments: ListConfiguration.all.indices)
  func everyDeliveryTurnsTheOldListIntoTheNewOneAndEqualsAFreshFetch(_ index: Int) throws {
    let (configuration, seed, context, random) = try ListConfiguration.seededRun(index, seed: 0x11_57)
    let monitor = try ListMonitor(context: context, request: configuration.request, scheduler: .immediate)
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    #expect(previous == (try context.performAndWait { try configuration.expected(in: $0) }))
    var writes = RandomWrites(random: random)
    for save in 0..<600 {
      try writes.save(context)
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      let updates = recorder.take()
      #expect(updates.count <= 1)
      guard let update = updates.first else {
        #expect(previous == expected, "save \(save), seed \(seed), \(configuration): no delivery")
        continue
      }
      #expect(!update.changes.isEmpty)
      let now = ListPicture(update.content)
      let applied = previous.applying(update.changes)
      #expect(applied == now, "save \(save), seed \(seed), \(configuration): \(update.changes)")
      #expect(now == expected, "save \(save), seed \(seed), \(configuration)")
      #expect(ListPicture(monitor.content) == now)
      Self.checkShape(update.changes)
      if applied != now || now != expected { break }
      previous = now
    }
    withExtendedLifetime(token) {}
  }

  /// Sorted arrays; no object both moved and updated.
  static func checkShape(_ changes: ListChanges) {
    #expect(changes.deleted.map(\.indexPath) == changes.deleted.map(\.indexPath).sorted())
    #expect(changes.inserted.map(\.indexPath) == changes.inserted.map(\.indexPath).sorted())
    #expect(changes.updated.map(\.indexPath) == changes.updated.map(\.indexPath).sorted())
    #expect(changes.deletedSections.map(\.index) == changes.deletedSections.map(\.index).sorted())
    #expect(changes.insertedSections.map(\.index) == changes.insertedSections.map(\.index).sorted())
    let moved = Set(changes.moved.map(\.object.objectID))
    #expect(changes.updated.allSatisfy { !moved.contains($0.object.objectID) })
  }

  @Test func changingTheRequestDeliversTheDifference() throws {
    var (configuration, seed, context, random) = try ListConfiguration.seededRun(0, seed: 0xC4A)
    let monitor = try ListMonitor(
      context: context, request: configuration.request, scheduler: .queue(DispatchQueue(label: "list deliveries")))
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    var writes = RandomWrites(random: random)
    for round in 0..<60 {
      try writes.save(context)
      configuration = ListConfiguration.all.randomElement(using: &random)!
      try monitor.setRequest(configuration.request)
      monitor.flush()
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      for update in recorder.take() {
        let now = ListPicture(update.content)
        #expect(previous.applying(update.changes) == now, "round \(round), seed \(seed), \(configuration)")
        Self.checkShape(update.changes)
        previous = now
      }
      #expect(previous == expected, "round \(round), seed \(seed), \(configuration)")
      #expect(ListPicture(monitor.content) == expected)
    }
    withExtendedLifetime(token) {}
  }
}
