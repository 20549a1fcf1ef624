import ObjectGraph
import PredicateDSL
import Testing

@Suite("Context: relationships and delete rules")
struct RelationshipTests {
  @Test func toOneKeepsTheInverseOnBothSides() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let initech = try context.insert("Company", values: ["name": "Initech"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try ann.setRelationship("employer", to: acme)
      #expect(acme.targets(of: "employees") == .toMany([ann.objectID]))
      try ann.setRelationship("employer", to: initech)
      #expect(acme.targets(of: "employees") == .toMany([]))
      #expect(initech.targets(of: "employees") == .toMany([ann.objectID]))
      try ann.setRelationship("employer", to: nil)
      #expect(initech.targets(of: "employees") == .toMany([]))
    }
  }

  @Test func toManyMovesObjectsBetweenOwners() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let initech = try context.insert("Company", values: ["name": "Initech"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Employee", values: ["name": "Bob"])
      try acme.add(ann, to: "employees")
      try acme.add(bob, to: "employees")
      #expect(ann.targets(of: "employer") == .toOne(acme.objectID))
      try initech.add(ann, to: "employees")
      #expect(acme.targets(of: "employees") == .toMany([bob.objectID]))
      #expect(ann.targets(of: "employer") == .toOne(initech.objectID))
      try initech.remove(ann, from: "employees")
      #expect(ann.targets(of: "employer") == .toOne(nil))
      try context.setTargets([ann, bob], forKey: "employees", of: initech)
      #expect(initech.targets(of: "employees")?.objectIDs == [ann.objectID, bob.objectID])
      #expect(acme.targets(of: "employees") == .toMany([]))
      try context.setTargets([ann], forKey: "employees", of: initech)
      #expect(bob.targets(of: "employer") == .toOne(nil))
    }
  }

  @Test func oneToOneLetsThePreviousHolderGo() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      let passport = try context.insert("Passport", values: ["number": "X1"])
      try ann.setRelationship("passport", to: passport)
      try bob.setRelationship("passport", to: passport)
      #expect(ann.targets(of: "passport") == .toOne(nil))
      #expect(passport.targets(of: "owner") == .toOne(bob.objectID))
    }
  }

  @Test func refusesDestinationsOfTheWrongEntityOrShape() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      let wrong = try #require(throws: ObjectGraphError.self) { try ann.setRelationship("employer", to: bob) }
      #expect(wrong.message == "Person.employer takes Company objects, not Person \(bob.objectID)")
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let shape = try #require(throws: ObjectGraphError.self) { try acme.setRelationship("employees", to: ann) }
      #expect(shape.message == "Company.employees is to-many; use add, remove or setTargets")
      let attribute = try #require(throws: ObjectGraphError.self) { try ann.setRelationship("name", to: acme) }
      #expect(attribute.message == "Person.name is an attribute, not a relationship")
      let many = try #require(throws: ObjectGraphError.self) {
        try context.setTargets([acme, acme], forKey: "employer", of: ann)
      }
      #expect(many.message == "Person.employer is to-one, but 2 objects were given")
    }
  }

  @Test func nullifyRemovesTheDeletedObjectFromItsDestinations() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let lab = try context.insert("Department", values: ["name": "Lab"])
      try lab.setRelationship("company", to: acme)
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try ann.setRelationship("department", to: lab)
      try context.save()
      try context.delete(lab)
      #expect(ann.targets(of: "department") == .toOne(nil))
      let save = try #require(try context.save())
      #expect(save.deleted.map(\.objectID) == [lab.objectID])
      // The deleted department keeps its last values.
      #expect(save.deleted[0].targets(of: "members") == .toMany([ann.objectID]))
      #expect(save.updated.map(\.objectID) == [acme.objectID, ann.objectID])
      #expect(save.updated[1].changes.map(\.description) == ["department: #\(lab.objectID.rawValue) → nil"])
    }
  }

  @Test func cascadeDeletesAlongAChain() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let lab = try context.insert("Department", values: ["name": "Lab"])
      let shop = try context.insert("Department", values: ["name": "Shop"])
      try acme.add(lab, to: "departments")
      try acme.add(shop, to: "departments")
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let passport = try context.insert("Passport", values: ["number": "P"])
      try ann.setRelationship("department", to: lab)
      try ann.setRelationship("passport", to: passport)
      try context.save()

      try context.delete(acme)  // cascades to departments; members are nullified
      #expect(lab.isDeleted && shop.isDeleted && !ann.isDeleted)
      try context.delete(ann)  // cascades to the passport
      #expect(passport.isDeleted)
      let save = try #require(try context.save())
      #expect(
        save.deleted.map(\.objectID) == [acme.objectID, lab.objectID, shop.objectID, ann.objectID, passport.objectID])
      #expect(save.updated.isEmpty)
      #expect(context.registeredObjectCount == 0)
    }
  }

  @Test func denyFailsTheSaveAndLeavesEverythingInPlace() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try acme.add(ann, to: "employees")
      try acme.add(bob, to: "employees")
      try context.save()

      try context.delete(acme)
      let error = try #require(throws: ContextSaveError.self) { try context.save() }
      #expect(error.problems.map(\.code) == [.deleteDenied])
      #expect(
        error.problems[0].message
          == "Company \(acme.objectID) cannot be deleted: 'employees' (delete rule deny) still holds "
          + "Person \(ann.objectID), Person \(bob.objectID)")
      #expect(error.problems[0].key == "employees" && error.problems[0].entity == "Company")
      #expect(context.hasChanges && acme.isDeleted)
      #expect(context.sequenceNumber == 1)

      // Deleting the employees too satisfies the rule.
      try context.delete(ann)
      try context.delete(bob)
      let save = try #require(try context.save())
      #expect(save.deleted.count == 3)
    }
  }
}
