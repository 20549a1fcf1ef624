import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The record decoder is reused: each thread's decoder keeps the keyed
/// container and the keys' slots of the last record type it read. Records
/// of several types and entities read in turn, records read inside a
/// record's `init(from:)`, and records read on many threads at once must
/// each read what their own snapshot holds.
@Suite("Object graph: reading records with a reused decoder")
struct RecordDecoderReuseTests {
  typealias Company = RecordTests.Company

  /// The person's name and age, read in the other order.
  struct AgeFirst: Decodable, Equatable {
    var age: Int?
    var name: String
    enum CodingKeys: String, CodingKey { case age, name }
  }

  /// Reads the keys in an order that depends on the values: the slots
  /// cached for one record's reads do not fit the next one's.
  struct Wandering: Decodable, Equatable {
    var name: String
    var score: Double
    var count: Int
    enum CodingKeys: String, CodingKey { case name, score, count }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      let active = try decoder.container(keyedBy: Flag.self).decode(Bool.self, forKey: .active)
      if active {
        name = try container.decode(String.self, forKey: .name)
        score = try container.decode(Double.self, forKey: .score)
        count = try container.decode(Int.self, forKey: .count)
      } else {
        count = try container.decode(Int.self, forKey: .count)
        name = try container.decode(String.self, forKey: .name)
        score = try container.decode(Double.self, forKey: .score)
      }
    }

    init(name: String, score: Double, count: Int) {
      (self.name, self.score, self.count) = (name, score, count)
    }

    enum Flag: String, CodingKey { case active }
  }

  /// A person that reads, inside its own decoding, its employer's record.
  struct Employee: Decodable, Equatable {
    var name: String
    var employer: Company?
    static let snapshots = LockedState<[ObjectID: ObjectSnapshot]>([:])

    enum CodingKeys: String, CodingKey { case name, employer }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      name = try container.decode(String.self, forKey: .name)
      let id = try container.decodeIfPresent(ObjectID.self, forKey: .employer)
      employer = try id.flatMap { id in Self.snapshots.withLock { $0[id] } }?.decode(Company.self)
    }

    init(name: String, employer: Company?) { (self.name, self.employer) = (name, employer) }
  }

  /// Ann (30, employed), Bo (no age) and Cy (41), and Acme.
  static func snapshots() throws -> (people: [ObjectSnapshot], acme: ObjectSnapshot) {
    let context = ObjectContext(schema: RecordTests.schema, notificationCenter: nil)
    return try context.performAndWait { context in
      let acme = try context.insert(Company(name: "Acme", staff: []))
      var ann = RecordTests.ann(employer: acme.objectID)
      ann.active = true
      var bo = RecordTests.ann(employer: nil)
      (bo.name, bo.age, bo.small, bo.score, bo.active) = ("Bo", nil, 7, 2.5, false)
      var cy = RecordTests.ann(employer: nil)
      (cy.name, cy.age, cy.small, cy.score, cy.active) = ("Cy", 41, 9, 3.5, true)
      let people = try [ann, bo, cy].map { try context.insert($0) }
      return (people.map { $0.snapshot() }, acme.snapshot())
    }
  }

  @Test func recordsOfSeveralTypesAndEntitiesReadInTurnEachReadTheirOwn() throws {
    let (people, acme) = try Self.snapshots()
    for _ in 0..<3 {
      for person in people {
        let full = try person.decode(RecordTests.Person.self)
        #expect(try person.decode(AgeFirst.self) == AgeFirst(age: full.age, name: full.name))
        #expect(try acme.decode(Company.self).name == "Acme")
        #expect(
          try person.decode(Wandering.self)
            == Wandering(name: full.name, score: full.score, count: Int(full.small)))
        #expect(try person.decode(RecordTests.Person.self) == full)
      }
    }
    #expect(try people.map { try $0.decode(AgeFirst.self).age } == [30, nil, 41])
  }

  @Test func aRecordReadInsideAnotherOnesDecodingReadsItsOwnSnapshot() throws {
    let (people, acme) = try Self.snapshots()
    Employee.snapshots.withLock { $0[acme.objectID] = acme }
    let acmeRecord = Company(name: "Acme", staff: acme.targets(of: "staff")!.objectIDs)
    #expect(try people[0].decode(Employee.self) == Employee(name: "Ann", employer: acmeRecord))
    #expect(try people[1].decode(Employee.self) == Employee(name: "Bo", employer: nil))
    // And again, with the thread's decoder's caches filled.
    #expect(try people[0].decode(Employee.self).employer == acmeRecord)
  }

  @Test func recordsReadOnManyThreadsAtOnceEachReadTheirOwn() throws {
    let (people, acme) = try Self.snapshots()
    let expected = try people.map { try $0.decode(RecordTests.Person.self) }
    let mismatches = LockedState(0)
    DispatchQueue.concurrentPerform(iterations: 64) { round in
      for index in 0..<300 {
        let person = people[(round + index) % people.count]
        let read = try? person.decode(RecordTests.Person.self)
        let other = try? acme.decode(Company.self)
        if read != expected[(round + index) % people.count] || other?.name != "Acme" {
          mismatches.withLock { $0 += 1 }
        }
      }
    }
    #expect(mismatches.withLock { $0 } == 0)
  }

  /// Runs `body` on a thread of its own and returns once the thread has
  /// ended, its thread-local destructors run (`pthread_join` waits for
  /// them): the thread's record decoder is then with the ended threads'.
  static func runOnThreadToItsEnd(_ body: @escaping @Sendable () -> Void) {
    var thread = pthread_t()
    let status = pthread_create(
      &thread, nil, { startThreadBody($0) }, Unmanaged.passRetained(ThreadBody(body)).toOpaque())
    precondition(status == 0, "pthread_create failed with \(status)")
    pthread_join(thread, nil)
  }

  /// A thread's decoder outlives its thread and serves a later one, with
  /// the container and slots its last record left: threads that start
  /// after others ended, each reading another record type first, read
  /// their own.
  @Test func recordsReadOnThreadsThatStartAfterOthersEndedReadTheirOwn() throws {
    let (people, acme) = try Self.snapshots()
    let expected = try people.map { try $0.decode(RecordTests.Person.self) }
    let mismatches = LockedState(0)
    for round in 0..<12 {
      Self.runOnThreadToItsEnd {
        for index in 0..<20 {
          let slot = (round + index) % people.count
          let matches: Bool
          switch (round + index) % 3 {
          case 0: matches = (try? people[slot].decode(RecordTests.Person.self)) == expected[slot]
          case 1: matches = (try? people[slot].decode(AgeFirst.self))?.name == expected[slot].name
          default: matches = (try? acme.decode(Company.self))?.name == "Acme"
          }
          if !matches { mismatches.withLock { $0 += 1 } }
        }
      }
    }
    #expect(mismatches.withLock { $0 } == 0)
  }

  /// A person that reads, inside its own decoding, the next person of a
  /// chain (a record of its own type, two deep) after a read of another
  /// record that throws midway and is caught.
  struct Chained: Decodable, Equatable {
    var name: String
    var next: String?
    var age: Int?
    static let people = LockedState<[String: ObjectSnapshot]>([:])
    static let chain = ["Ann": "Bo", "Bo": "Cy"]

    enum CodingKeys: String, CodingKey { case name, age }

    /// Reads the name, then the age as a string: throws.
    struct FailingMidway: Decodable {
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try container.decode(String.self, forKey: .name)
        _ = try container.decode(String.self, forKey: .age)
      }
    }

    init(name: String, next: String?, age: Int?) { (self.name, self.next, self.age) = (name, next, age) }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      name = try container.decode(String.self, forKey: .name)
      let ann = Self.people.withLock { $0["Ann"] }
      #expect(throws: ObjectGraphError.self) { try ann?.decode(FailingMidway.self) }
      let following = Self.chain[name].flatMap { name in Self.people.withLock { $0[name] } }
      next = try following?.decode(Chained.self).name
      age = try container.decodeIfPresent(Int.self, forKey: .age)
    }
  }

  @Test func aRecordReadInsideOneOfItsOwnTypeOrAfterOneThatThrewLeavesTheOuterReadIntact() throws {
    let (people, _) = try Self.snapshots()
    Chained.people.withLock { table in
      for (name, person) in zip(["Ann", "Bo", "Cy"], people) { table[name] = person }
    }
    for _ in 0..<3 {
      #expect(try people[0].decode(Chained.self) == Chained(name: "Ann", next: "Bo", age: 30))
      #expect(try people[1].decode(Chained.self) == Chained(name: "Bo", next: "Cy", age: nil))
    }
    #expect(try people[2].decode(AgeFirst.self) == AgeFirst(age: 41, name: "Cy"))
  }

  /// The decoder's slots are cached for an entity's layout: a schema made
  /// after another was freed (whose layout may take the freed one's
  /// address) with the keys in another order reads its own slots.
  @Test func aSchemaMadeAfterAnotherWasFreedReadsItsOwnSlots() throws {
    struct Named: Decodable { var name: String }
    for round in 0..<200 {
      let attributes: [AttributeDescription] =
        round.isMultiple(of: 2)
        ? [.init("name", .string), .init("title", .string)] : [.init("title", .string), .init("name", .string)]
      let schema = try ObjectSchema([EntityDescription("Person", attributes: attributes)])
      let context = ObjectContext(schema: schema, notificationCenter: nil)
      let snapshot = try context.performAndWait {
        try $0.insert("Person", values: ["name": "Ann", "title": "Dr"]).snapshot()
      }
      #expect(try snapshot.decode(Named.self).name == "Ann", "round \(round)")
    }
  }

  @Test func optionalsReadNilForANilValueAnEmptyRelationshipOrAMissingKey() throws {
    struct Optionals: Decodable, Equatable {
      var age: Int?
      var employer: ObjectID?
      var homepage: URL?
      var nickname: String?
      var score: Double?
      var active: Bool?
    }
    struct WrongOptional: Decodable { var age: String? }
    let (people, _) = try Self.snapshots()
    let bo = try people[1].decode(Optionals.self)
    #expect(
      bo
        == Optionals(
          age: nil, employer: nil, homepage: URL(string: "https://example.com/ann"), score: 2.5, active: false))
    let ann = try people[0].decode(Optionals.self)
    #expect(ann.age == 30)
    #expect(ann.employer != nil)
    let error = try #require(throws: ObjectGraphError.self) { try people[0].decode(WrongOptional.self) }
    #expect(error.message == "Person.age: an integer cannot be read as String")
  }

  @Test func aContainerKeptPastItsRecordTraps() async throws {
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let schema = try ObjectSchema([EntityDescription("Person", attributes: [.init("name", .string)])])
      let context = ObjectContext(schema: schema, notificationCenter: nil)
      let snapshot = try context.performAndWait { try $0.insert("Person", values: ["name": "Ann"]).snapshot() }
      _ = try snapshot.decode(Keeper.self)
      _ = try Keeper.kept?.decode(String.self, forKey: .name)
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains(usedAfterItsRecord))
  }

  /// A container kept past its record on a thread that ended, used while
  /// a later thread reads a record with the same decoder, traps rather
  /// than read that thread's record.
  @Test func aContainerKeptPastItsThreadTrapsWhenAnotherThreadReadsWithItsDecoder() async throws {
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Peeker: Decodable {
        init(from decoder: any Decoder) throws { _ = try Keeper.kept?.decode(String.self, forKey: .name) }
      }
      let schema = try ObjectSchema([EntityDescription("Person", attributes: [.init("name", .string)])])
      let context = ObjectContext(schema: schema, notificationCenter: nil)
      let (ann, bo) = try context.performAndWait { context in
        (
          try context.insert("Person", values: ["name": "Ann"]).snapshot(),
          try context.insert("Person", values: ["name": "Bo"]).snapshot()
        )
      }
      Self.runOnThreadToItsEnd { _ = try? ann.decode(Keeper.self) }
      // The second thread takes the first one's decoder.
      Self.runOnThreadToItsEnd { _ = try? bo.decode(Peeker.self) }
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains(usedAfterItsRecord))
  }
}

/// A record that keeps its keyed container past its `init(from:)` (in the
/// exit tests' child processes, one reading each).
private struct Keeper: Decodable {
  nonisolated(unsafe) static var kept: KeyedDecodingContainer<CodingKeys>?
  var name: String
  enum CodingKeys: String, CodingKey { case name }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    Self.kept = container
  }
}

/// What a container or decoder used past its record's `init(from:)` traps
/// with.
private let usedAfterItsRecord =
  "a record's decoder or keyed container was used after the record's init(from:) returned"

/// What ``RecordDecoderReuseTests/runOnThreadToItsEnd(_:)`` runs.
private final class ThreadBody {
  let run: @Sendable () -> Void
  init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

// A thread's start routine (its argument is optional on some platforms,
// not on others: one function for each).
private func startThreadBody(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  if let argument { Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().run() }
  return nil
}

private func startThreadBody(_ argument: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
  Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().run()
  return nil
}
