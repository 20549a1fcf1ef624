import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("Context: fetching")
struct FetchTests {
  /// Ann 30 (Acme), Bob 45 (Acme, an employee), Cid nil age, Dee 45 (Initech).
  private func populated() throws -> ObjectContext {
    let context = Fixtures.context()
    try context.run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let initech = try context.insert("Company", values: ["name": "Initech"])
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Employee", values: ["name": "Bob", "age": 45, "salary": 100])
      try context.insert("Person", values: ["name": "Cid", "age": .null])
      let dee = try context.insert("Person", values: ["name": "Dee", "age": 45])
      try acme.add(ann, to: "employees")
      try acme.add(bob, to: "employees")
      try initech.add(dee, to: "employees")
      try context.save()
    }
    return context
  }

  @Test func filtersSortsAndPages() throws {
    try populated().run { context throws in
      #expect(try namesOf(context.fetch("Person", where: "age > %d", 29)) == ["Ann", "Bob", "Dee"])
      #expect(try namesOf(context.fetch("Person", where: "age == nil")) == ["Cid"])
      let sorted = try context.fetch("Person", sortedBy: [.descending("age"), .ascending("name")])
      #expect(namesOf(sorted) == ["Bob", "Dee", "Ann", "Cid"])
      #expect(try namesOf(context.fetch("Person", sortedBy: [.ascending("age")])) == ["Cid", "Ann", "Bob", "Dee"])
      #expect(
        try namesOf(context.fetch("Person", sortedBy: [.ascending("name")], limit: 2, offset: 1)) == ["Bob", "Cid"])
      #expect(try namesOf(context.fetch("Person", limit: 0)) == [])
      #expect(try namesOf(context.fetch("Person", offset: 10)) == [])
      // A limit that would overflow past the offset takes the rest.
      #expect(
        try namesOf(context.fetch("Person", sortedBy: [.ascending("name")], limit: Int.max, offset: 2)) == [
          "Cid", "Dee",
        ])
      #expect(try context.count(ObjectFetchRequest(entity: "Person", predicate: "age >= 30")) == 3)
      #expect(try context.count(ObjectFetchRequest(entity: "Person", limit: 2)) == 2)
    }
  }

  @Test func subEntitiesAreIncludedUnlessExcluded() throws {
    try populated().run { context throws in
      #expect(try namesOf(context.fetch("Employee")) == ["Bob"])
      #expect(try context.fetch("Person").count == 4)
      let exact = ObjectFetchRequest(entity: "Person", includesSubentities: false)
      #expect(try namesOf(context.fetch(exact)) == ["Ann", "Cid", "Dee"])
      #expect(try namesOf(context.fetch("Employee", where: "salary > 50")) == ["Bob"])
    }
  }

  @Test func keyPathsFollowRelationships() throws {
    try populated().run { context throws in
      #expect(try namesOf(context.fetch("Person", where: "employer.name == 'Acme'")) == ["Ann", "Bob"])
      #expect(try namesOf(context.fetch("Person", where: "employer == nil")) == ["Cid"])
      #expect(try namesOf(context.fetch("Company", where: "employees.@count == 2")) == ["Acme"])
      #expect(try namesOf(context.fetch("Company", where: "ANY employees.age > 40")) == ["Acme", "Initech"])
      #expect(try namesOf(context.fetch("Company", where: "ALL employees.age > 40")) == ["Initech"])
      #expect(try namesOf(context.fetch("Company", where: "employees.@avg.age == 37.5")) == ["Acme"])
      #expect(
        try namesOf(context.fetch("Company", where: "SUBQUERY(employees, $e, $e.age < 40).@count > 0")) == ["Acme"])
      #expect(try namesOf(context.fetch("Person", where: "SELF.name BEGINSWITH 'D'")) == ["Dee"])
    }
  }

  @Test func pendingInsertsAreFetchedAndPendingDeletesAreNot() throws {
    try populated().run { context throws in
      try context.insert("Person", values: ["name": "Eve", "age": 50])
      let ann = try #require(try context.fetch("Person", where: "name == 'Ann'").first)
      try context.delete(ann)
      #expect(try namesOf(context.fetch("Person", where: "age >= 30")) == ["Bob", "Dee", "Eve"])
      context.rollback()
      #expect(try namesOf(context.fetch("Person", where: "age >= 30")) == ["Ann", "Bob", "Dee"])
    }
  }

  @Test func badRequestsAreErrorsThatSayWhatAndWhere() throws {
    try populated().run { context throws in
      let unknown = try #require(throws: PredicateCompileError.self) {
        try context.fetch("Person", where: "name == 'x' AND agee > 3")
      }
      #expect(unknown.message == "Person has no key 'agee' (did you mean 'age'?)")
      #expect(unknown.location?.column == 17)
      #expect(unknown.entity == "Person")
      let deep = try #require(throws: PredicateCompileError.self) {
        try context.fetch("Person", where: "employer.nme == 'x'")
      }
      #expect(deep.message == "Company has no key 'nme' (did you mean 'name'?)")
      let typed = try #require(throws: PredicateCompileError.self) {
        try context.fetch("Person", where: "age BEGINSWITH '3'")
      }
      #expect(typed.code == .typeMismatch)
      let entity = try #require(throws: ObjectGraphError.self) { try context.fetch("People") }
      #expect(entity.code == .unknownEntity)
      let sort = try #require(throws: ObjectGraphError.self) {
        try context.fetch("Person", sortedBy: [.ascending("employer")])
      }
      #expect(sort.message == "Person has no attribute 'employer' to sort by")
      let offset = try #require(throws: ObjectGraphError.self) { try context.fetch("Person", offset: -4) }
      #expect(offset.code == .invalidRequest)
      #expect(offset.message == "a fetch's offset cannot be negative (-4)")
      let limit = try #require(throws: ObjectGraphError.self) { try context.fetch("Person", limit: -1) }
      #expect(limit.message == "a fetch's limit cannot be negative (-1)")
      #expect(throws: PredicateParseError.self) { try context.fetch("Person", where: "age >") }
    }
  }

  /// Fetch results agree with evaluating the same compiled predicate object
  /// by object, over random objects and predicates (seeded).
  @Test func agreesWithObjectByObjectEvaluation() throws {
    let seed = SeededGenerator.seed(default: 0x0B1E_C7)
    var random = SeededGenerator(seed: seed)
    let context = Fixtures.context()
    let predicates = [
      "age > %@", "age BETWEEN {%@, 60}", "name BEGINSWITH[c] 'a'", "score < %@ OR active == NO",
      "age IN {1, 2, 3, %@}", "NOT (age >= %@ AND name CONTAINS 'e')", "employer.name == 'C1'",
      "ANY employer.employees.age > %@",
    ]
    try context.run { context throws in
      let companies = try (0..<3).map { try context.insert("Company", values: ["name": .string("C\($0)")]) }
      for index in 0..<300 {
        let person = try context.insert(
          index % 5 == 0 ? "Employee" : "Person",
          values: [
            "name": .string(["ann", "Abe", "eve", "Bob", "cee"][index % 5] + "\(index)"),
            "age": Int.random(in: 0...4, using: &random) == 0 ? .null : .int(Int64.random(in: 0...80, using: &random)),
            "score": .double(Double.random(in: 0...1, using: &random)),
            "active": .bool(Bool.random(using: &random)),
          ])
        if Bool.random(using: &random) {
          try person.setRelationship("employer", to: companies.randomElement(using: &random))
        }
      }
      try context.save()
      let people = try context.objects(of: "Person")
      for format in predicates {
        for _ in 0..<5 {
          let argument = FilterValue.int(Int64.random(in: 0...80, using: &random))
          let arguments = format.contains("%@") ? [argument] : []
          let filter = try context.schema.filter(format, arguments: arguments, for: "Person")
          let expected = try people.filter { try filter.evaluate($0) }.map(\.objectID)
          let request = try ObjectFetchRequest(entity: "Person", predicate: format, arguments: arguments)
          let fetched = try context.fetch(request).map(\.objectID)
          #expect(fetched == expected, "\(format) with \(arguments), seed \(seed) (replay with CONTEXTWATCHER_SEED)")
          #expect(try context.count(request) == expected.count)
        }
      }
    }
  }
}

/// The `name` of each object, in order.
private func namesOf(_ objects: [ManagedObject]) -> [String] {
  objects.map { if case .string(let name)? = $0["name"] { name } else { "?" } }
}
