import Foundation
import ObjectGraph
import PredicateDSL
import Testing

/// Records: `Codable` types read from snapshots and written into objects,
/// with no JSON between.
@Suite("Object graph: records")
struct RecordTests {
  enum Level: String, Codable { case junior, senior }

  struct Company: EntityRecord, Equatable {
    static let entityName = "Company"
    var name: String
    var staff: [ObjectID]
  }

  /// Every attribute type, read as the Swift types the docs list.
  struct Person: EntityRecord, Equatable {
    static let entityName = "Person"
    var name: String
    var age: Int?
    var small: UInt8
    var score: Double
    var ratio: Float
    var active: Bool
    var born: Date
    var token: UUID
    var avatar: Data
    var balance: Decimal
    var homepage: URL?
    var level: Level
    var employer: ObjectID?

    enum CodingKeys: String, CodingKey {
      case name, age, small = "count", score, ratio = "score2", active, born, token, avatar, balance, homepage, level,
        employer
    }
  }

  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company", attributes: [.init("name", .string)],
          relationships: [.toMany("staff", destination: "Person", inverse: "employer")]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string), .init("age", .integer, isOptional: true), .init("count", .integer),
            .init("score", .double), .init("score2", .double), .init("active", .boolean), .init("born", .date),
            .init("token", .uuid), .init("avatar", .data), .init("balance", .double),
            .init("homepage", .string, isOptional: true), .init("level", .string),
          ],
          relationships: [.toOne("employer", destination: "Company", inverse: "staff", isOptional: true)]),
      ])
    } catch {
      fatalError("\(error)")
    }
  }()

  static func ann(employer: ObjectID?) -> Person {
    Person(
      name: "Ann", age: 30, small: 200, score: 1.5, ratio: 0.25, active: true,
      born: Date(timeIntervalSinceReferenceDate: 86_400),
      token: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
      avatar: Data([1, 2, 3]), balance: Decimal(string: "12.5")!, homepage: URL(string: "https://example.com/ann"),
      level: .senior, employer: employer)
  }

  @Test func aRecordRoundTripsThroughAnObjectAndItsSnapshot() throws {
    let context = ObjectContext(schema: Self.schema, notificationCenter: nil)
    try context.performAndWait { context in
      let acme = try context.insert(Company(name: "Acme", staff: []))
      let record = Self.ann(employer: acme.objectID)
      let ann = try context.insert(record)
      // Stored as the attribute types hold them, the rename included.
      #expect(ann["count"] == .int(200))
      #expect(ann["level"] == .string("senior"))
      #expect(ann["homepage"] == .string("https://example.com/ann"))
      #expect(ann["balance"] == .double(12.5))
      #expect(try ann.decode(Person.self) == record)
      // The inverse is kept: the company reads its staff.
      #expect(try acme.decode(Company.self) == Company(name: "Acme", staff: [ann.objectID]))
      _ = try context.save()
      #expect(try context.fetch(Person.self, where: "count == %d", 200) == [record])
      #expect(try context.fetch(Person.self, where: "count == %d", 1).isEmpty)
    }
  }

  @Test func anUpdateChangesOnlyTheKeysWhoseValuesDiffer() throws {
    let context = ObjectContext(schema: Self.schema, notificationCenter: nil)
    try context.performAndWait { context in
      let ann = try context.insert(Self.ann(employer: nil))
      _ = try context.save()
      var record = try ann.decode(Person.self)
      try context.update(ann, from: record)
      #expect(!context.hasChanges)
      record.age = nil
      record.score = 2
      try context.update(ann, from: record)
      let save = try #require(try context.save())
      #expect(save.updated.map { $0.changedKeys.sorted() } == [["age", "score"]])
      #expect(ann["age"] == .null)
    }
  }

  @Test func floatsAndWholeDoublesGoBackAsTheyWereRead() throws {
    // A double attribute read as Float, an integer one as Double (and as
    // optionals): written back unchanged, they change nothing.
    struct Scores: Codable {
      var name: String
      var score2: Float
      var score: Float?
      var count: Double
      var age: Double?
    }
    let context = ObjectContext(schema: Self.schema, notificationCenter: nil)
    try context.performAndWait { context in
      let ann = try context.insert(Self.ann(employer: nil))
      try ann.setValue(.double(0.1), forKey: "score2")
      try ann.setValue(.double(0.3), forKey: "score")
      _ = try context.save()
      var scores = try ann.decode(Scores.self)
      #expect(scores.score2 == 0.1 && scores.score == 0.3 && scores.count == 200 && scores.age == 30)
      try context.update(ann, from: scores)
      #expect(!context.hasChanges)
      scores.name = "Ann B"
      scores.count = 201
      try context.update(ann, from: scores)
      let save = try #require(try context.save())
      #expect(save.updated.map { $0.changedKeys.sorted() } == [["count", "name"]])
      #expect(ann["score2"] == .double(0.1))
      #expect(ann["count"] == .int(201))
      // A double beyond Float's range is refused, not read as infinity.
      try ann.setValue(.double(1e40), forKey: "score2")
      let error = #expect(throws: ObjectGraphError.self) { try ann.decode(Scores.self) }
      #expect(error?.message == "Person.score2: the number 1e+40 does not fit Float")
      // An integer a Double would round is refused, not rounded and then
      // written back changed.
      try ann.setValue(.double(0.5), forKey: "score2")
      try ann.setValue(.int(9_007_199_254_740_993), forKey: "count")
      let rounded = #expect(throws: ObjectGraphError.self) { try ann.decode(Scores.self) }
      #expect(rounded?.message == "Person.count: the integer 9007199254740993 does not fit Double exactly")
    }
  }

  @Test func aMismatchNamesTheEntityTheKeyTheStoredValueAndTheSwiftType() throws {
    struct Narrow: Decodable { var count: Int8 }
    struct Wrong: Decodable { var name: Int }
    struct Required: Decodable { var homepage: String }
    struct Misspelled: Decodable { var nmae: String }
    struct Related: Decodable { var employer: String }
    struct Absent: Decodable { var nmae: String? }
    let context = ObjectContext(schema: Self.schema, notificationCenter: nil)
    try context.performAndWait { context in
      var record = Self.ann(employer: nil)
      record.homepage = nil
      let ann = try context.insert(record).snapshot()
      func message<T: Decodable>(_ type: T.Type) -> String? {
        (#expect(throws: ObjectGraphError.self) { try ann.decode(type) })?.message
      }
      #expect(message(Narrow.self) == "Person.count: the integer 200 does not fit Int8")
      #expect(message(Wrong.self) == "Person.name: a string cannot be read as Int")
      #expect(message(Required.self) == "Person.homepage: nil cannot be read as String; declare it String?")
      #expect(
        message(Misspelled.self)
          == "Person has no key 'nmae' (did you mean 'name'?): name the record's property after a key, or map it"
          + " with CodingKeys")
      #expect(
        message(Related.self)
          == "Person.employer: a to-one relationship is read as ObjectID?, not String")
      // An optional key the entity does not have reads as nil.
      #expect(try ann.decode(Absent.self).nmae == nil)
      // What a value's own init(from:) throws names the key.
      let boss = try context.insert(Self.ann(employer: nil))
      try boss.setValue("boss", forKey: "level")
      #expect(
        (#expect(throws: ObjectGraphError.self) { try boss.snapshot().decode(Person.self) })?.message
          == "Person.level: Level's init(from:) threw: Cannot initialize Level from invalid String value boss")
    }
  }

  @Test func aRecordThatCannotBeWrittenChangesNothing() throws {
    struct Stray: Encodable {
      var name = "Bo"
      var nickname = "B"
    }
    struct Huge: Encodable { var count = UInt64.max }
    let context = ObjectContext(schema: Self.schema, notificationCenter: nil)
    context.performAndWait { context in
      let before = context.registeredObjectCount
      let stray = #expect(throws: ObjectGraphError.self) { try context.insert(Stray(), as: "Person") }
      #expect(
        stray?.message
          == "Person has no key 'nickname': name the record's property after a key, or map it with CodingKeys")
      let huge = #expect(throws: ObjectGraphError.self) { try context.insert(Huge(), as: "Person") }
      #expect(huge?.message == "Person.count: 18446744073709551615 does not fit the 64-bit integers an attribute holds")
      // A destination that is no live object: nothing is inserted.
      let dangling = #expect(throws: ObjectGraphError.self) {
        try context.insert(Self.ann(employer: ObjectID(rawValue: 999_999)))
      }
      #expect(dangling?.code == .invalidObject)
      #expect(dangling?.message == "Person.employer: #999999 is not a live object of this context")
      #expect(context.registeredObjectCount == before)
      #expect(!context.hasChanges)
    }
  }
  @Test func aRefusedRelationshipInsertsNothingAndTakesNothingAway() throws {
    let schema = try ObjectSchema([
      EntityDescription("Company", attributes: [.init("name", .string)]),
      EntityDescription("Desk", relationships: [.toOne("owner", destination: "Person", inverse: "desk")]),
      EntityDescription(
        "Person", attributes: [.init("name", .string)],
        relationships: [
          .toOne("desk", destination: "Desk", inverse: "owner", deleteRule: .cascade),
          .toOne("mentor", destination: "Person", inverse: "mentees"),
          .toMany("mentees", destination: "Person", inverse: "mentor"),
        ]),
    ])
    // The desk comes first (in declaration and in name order), so it would
    // be linked, taken from Bo, before the mentor is refused.
    struct Hire: Encodable {
      var name = "Cy"
      var desk: ObjectID?
      var mentor: ObjectID?
    }
    let context = ObjectContext(schema: schema, notificationCenter: nil)
    try context.performAndWait { context in
      let bo = try context.insert("Person", values: ["name": "Bo"])
      let desk = try context.insert("Desk", values: [:])
      let acme = try context.insert("Company", values: ["name": "Acme"])
      try bo.setRelationship("desk", to: desk)
      _ = try context.save()
      let before = context.registeredObjectCount
      let refused = #expect(throws: ObjectGraphError.self) {
        try context.insert(Hire(desk: desk.objectID, mentor: acme.objectID), as: "Person")
      }
      #expect(refused?.code == .typeMismatch)
      #expect(refused?.message == "Person.mentor takes Person objects, not Company \(acme.objectID)")
      #expect(context.registeredObjectCount == before)
      #expect(!context.hasChanges)
      #expect(!desk.isDeleted)
      #expect(desk.targets(of: "owner") == .toOne(bo.objectID))
    }
  }
}
