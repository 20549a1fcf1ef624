import ObjectGraph
import PredicateDSL
import Testing

/// The README's object-graph example, kept working.
@Suite("README example")
struct ReadmeExampleTests {
  @Test func theObjectGraphExampleRuns() throws {
    let schema = try ObjectSchema([
      EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer, isOptional: true)])
    ])
    let context = ObjectContext(schema: schema, notificationCenter: nil)
    let printed = LockedState<[String]>([])
    let token = context.addSaveObserver { save in
      for update in save.updated { printed.withLock { $0.append("\(update.changes)") } }
    }
    let count = try context.performAndWait { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
      try context.save()
      try ann.setValue(32, forKey: "age")
      try context.save()
      return try context.fetch("Person", where: "age > %d", 30).count
    }
    #expect(count == 1)
    #expect(printed.withLock { $0 } == ["[age: 31 → 32]"])
    token.cancel()
  }

  struct Person: EntityRecord {
    static let entityName = "Person"
    var name: String
    var age: Int?
  }

  @Test func theRecordsExampleRuns() throws {
    let schema = try ObjectSchema([
      EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer, isOptional: true)])
    ])
    let context = ObjectContext(schema: schema, notificationCenter: nil)
    let (names, changed) = try context.performAndWait { context in
      let bo = try context.insert(Person(name: "Bo", age: 40))
      try context.save()
      var person = try bo.decode(Person.self)
      person.age = 41
      try context.update(bo, from: person)  // only age changes
      let save = try context.save()
      return (try context.fetch(Person.self, where: "age > %d", 40).map(\.name), save?.updated.first?.changedKeys)
    }
    #expect(names == ["Bo"])
    #expect(changed == ["age"])
  }
}
