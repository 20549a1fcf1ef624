import ObjectGraph
import PredicateDSL
import Testing

@Suite("Context: objects and values")
struct ContextTests {
  @Test func insertAppliesDefaultsAndGivesIncreasingIdentifiers() throws {
    let context = Fixtures.context()
    try context.run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Employee", values: ["name": "Bob", "salary": 10])
      #expect(ann["age"] == 0)
      #expect(ann["active"] == true)
      #expect(ann["score"] == .null)
      #expect(ann["nope"] == nil)
      #expect(bob["salary"] == .double(10))
      #expect(ann.objectID < bob.objectID)
      #expect(ann.isInserted && context.hasChanges)
      #expect(context.object(with: bob.objectID) === bob)
      #expect(ann.entityName == "Person" && bob.entityName == "Employee")
      #expect(ann.description == #"Person #\#(ann.objectID.rawValue) {name: "Ann", age: 0, active: TRUE}"#)
    }
  }

  @Test(arguments: [
    ("age", FilterValue.string("30"), "Person.age takes integer values, not string \"30\""),
    ("age", .double(30.5), "Person.age takes integer values, not double 30.5"),
    ("name", .int(1), "Person.name takes string values, not integer 1"),
    ("active", .int(1), "Person.active takes boolean values, not integer 1"),
  ])
  func rejectsValuesOfTheWrongTypeAtOnce(key: String, value: FilterValue, message: String) throws {
    let context = Fixtures.context()
    try context.run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 3])
      let error = try #require(throws: ObjectGraphError.self) { try ann.setValue(value, forKey: key) }
      #expect(error.code == .typeMismatch)
      #expect(error.message == message)
      #expect(ann["age"] == 3 && ann["name"] == "Ann")
      var values: [String: FilterValue] = ["name": "Bo"]
      values[key] = value
      let insertError = try #require(throws: ObjectGraphError.self) {
        try context.insert("Person", values: values)
      }
      #expect(insertError.message == message)
      #expect(try context.objects(of: "Person").count == 1)
    }
  }

  @Test func namesUnknownEntitiesAndKeys() throws {
    let context = Fixtures.context()
    try context.run { context throws in
      let entity = try #require(throws: ObjectGraphError.self) { try context.insert("Persn") }
      #expect(entity.code == .unknownEntity)
      #expect(entity.message == "unknown entity 'Persn' (entities: Company, Department, Person, Employee, Passport)")
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let key = try #require(throws: ObjectGraphError.self) { try ann.setValue(3, forKey: "Age") }
      #expect(key.message == "Person has no attribute 'Age' (did you mean 'age'?)")
      let misspelt = try #require(throws: ObjectGraphError.self) { try ann.setValue(3, forKey: "scroe") }
      #expect(misspelt.message == "Person has no attribute 'scroe' (did you mean 'score'?)")
      let other = try #require(throws: ObjectGraphError.self) { try ann.setValue(3, forKey: "height") }
      #expect(
        other.message
          == "Person has no attribute 'height' (keys: name, age, score, active, employer, department, passport)")
      let relationship = try #require(throws: ObjectGraphError.self) { try ann.setValue(3, forKey: "employer") }
      #expect(relationship.message == "Person.employer is a relationship; set it with setRelationship, add or remove")
    }
  }

  @Test func convertsIntegersForDoubleAttributes() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "score": 3])
      #expect(ann["score"] == .double(3))
    }
  }

  @Test func setValuesIsAllOrNothing() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try context.save()
      #expect(throws: ObjectGraphError.self) {
        try context.setValues(["age": 40, "name": 7], of: ann)
      }
      #expect(ann["age"] == 0)
      #expect(!context.hasChanges)
      try context.setValues(["age": 40, "name": "Anne"], of: ann)
      #expect(ann["age"] == 40 && ann["name"] == "Anne")
    }
  }

  @Test func settingTheSameValueIsNoChange() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      try context.save()
      try ann.setValue(30, forKey: "age")
      #expect(!context.hasChanges)
      try ann.setValue(31, forKey: "age")
      #expect(context.hasChanges && ann.hasChanges)
      try ann.setValue(30, forKey: "age")
      #expect(!context.hasChanges)
      #expect(try context.save() == nil)
      #expect(context.sequenceNumber == 1)
    }
  }

  @Test func rollbackRestoresTheLastSave() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try ann.setRelationship("employer", to: acme)
      try context.save()

      try ann.setValue(99, forKey: "age")
      try ann.setRelationship("employer", to: nil)
      try bob.setRelationship("employer", to: acme)
      try context.delete(bob)
      let cid = try context.insert("Person", values: ["name": "Cid"])
      #expect(context.hasChanges)

      context.rollback()
      #expect(!context.hasChanges)
      #expect(ann["age"] == 30)
      #expect(ann.targets(of: "employer") == .toOne(acme.objectID))
      #expect(acme.targets(of: "employees") == .toMany([ann.objectID]))
      #expect(bob.targets(of: "employer") == .toOne(nil))
      #expect(!bob.isDeleted && context.object(with: bob.objectID) === bob)
      #expect(cid.isDeleted && context.object(with: cid.objectID) == nil)
      #expect(try context.fetch("Person").map(\.objectID) == [ann.objectID, bob.objectID])
      #expect(try context.save() == nil)
    }
  }

  /// Rolled-back deletes come back in identifier order, even behind holes.
  @Test func fetchKeepsIdentifierOrderAfterRollbacks() throws {
    try Fixtures.context().run { context throws in
      let a = try context.insert("Person", values: ["name": "A"])
      let b = try context.insert("Person", values: ["name": "B"])
      let c = try context.insert("Person", values: ["name": "C"])
      try context.save()
      try context.delete(c)
      try context.save()
      try context.delete(a)
      context.rollback()
      #expect(try context.fetch("Person").map(\.objectID) == [a.objectID, b.objectID])
      #expect(try context.fetch("Person", limit: 1).map(\.objectID) == [a.objectID])
    }
  }

  @Test func deletedObjectsRefuseChanges() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try context.delete(ann)
      let error = try #require(throws: ObjectGraphError.self) { try ann.setValue(1, forKey: "age") }
      #expect(error.code == .invalidObject)
      #expect(error.message == "Person \(ann.objectID) is deleted")
      try context.delete(ann)  // twice: nothing
      #expect(!context.hasChanges)  // inserted, then deleted: nothing to save
    }
  }

  @Test func objectsOfAnotherContextAreRefused() throws {
    let first = Fixtures.context("first")
    let second = Fixtures.context("second")
    let ann = try first.run { try $0.insert("Person", values: ["name": "Ann"]) }
    try second.run { context throws in
      let bob = try context.insert("Person", values: ["name": "Bob"])
      let error = try #require(throws: ObjectGraphError.self) {
        try context.setRelationship("passport", of: bob, to: ann)
      }
      #expect(error.message == "Person \(ann.objectID) belongs to another context")
    }
  }

  /// An object outlives its context; no later context (one may be allocated
  /// where the first was) takes it for its own.
  @Test func objectsOfAGoneContextAreRefused() throws {
    var first: ObjectContext? = Fixtures.context("first")
    let ann = try first!.run { try $0.insert("Person", values: ["name": "Ann"]) }
    first = nil
    #expect(ann.context == nil)
    for round in 0..<20 {
      let context = Fixtures.context("later \(round)")
      try context.run { context throws in
        let bob = try context.insert("Person", values: ["name": "Bob"])
        let error = try #require(throws: ObjectGraphError.self) {
          try context.setRelationship("passport", of: bob, to: ann)
        }
        #expect(error.message == "Person \(ann.objectID) belongs to another context")
      }
    }
  }
}
