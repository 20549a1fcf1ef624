import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Context: saves and notifications")
struct SaveTests {
  @Test func reportsInsertsUpdatesAndDeletesWithOldValues() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      let first = try #require(try context.save(author: "importer"))
      #expect(first.sequenceNumber == 1 && first.author == "importer" && first.contextName == "test")
      #expect(first.inserted.map(\.objectID) == [ann.objectID, bob.objectID])
      #expect(first.inserted[0]["age"] == 30)
      #expect(first.updated.isEmpty && first.deleted.isEmpty)

      try ann.setValue(31, forKey: "age")
      try ann.setValue("Anne", forKey: "name")
      try context.delete(bob)
      let cid = try context.insert("Person", values: ["name": "Cid"])
      let second = try #require(try context.save())
      #expect(second.sequenceNumber == 2 && second.author == nil)
      #expect(second.inserted.map(\.objectID) == [cid.objectID])
      #expect(second.deleted.map(\.objectID) == [bob.objectID])
      #expect(second.deleted[0]["name"] == "Bob")
      let update = try #require(second.updated.first)
      #expect(update.changedKeys == ["name", "age"])
      #expect(update.change(forKey: "age") == PropertyChange(key: "age", old: .attribute(30), new: .attribute(31)))
      #expect(update.change(forKey: "active") == nil)
      #expect(update.before["name"] == "Ann" && update.after["name"] == "Anne")
      #expect(update.changes.map(\.description) == [#"name: "Ann" → "Anne""#, "age: 30 → 31"])
    }
  }

  @Test func relationshipChangesAppearOnBothSides() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try context.save()
      try ann.setRelationship("employer", to: acme)
      let save = try #require(try context.save())
      #expect(save.updated.map(\.objectID) == [acme.objectID, ann.objectID])
      #expect(
        save.updated[0].changes == [
          PropertyChange(key: "employees", old: .relationship(.toMany([])), new: .relationship(.toMany([ann.objectID])))
        ])
      #expect(
        save.updated[1].changes == [
          PropertyChange(key: "employer", old: .relationship(.toOne(nil)), new: .relationship(.toOne(acme.objectID)))
        ])
    }
  }

  @Test func changesUndoneBeforeTheSaveAreNoUpdate() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try context.save()
      try ann.setValue(31, forKey: "age")
      try ann.setValue(30, forKey: "age")
      try bob.setValue(5, forKey: "age")
      let save = try #require(try context.save())
      #expect(save.updated.map(\.objectID) == [bob.objectID])
    }
  }

  @Test func settingTheValueAnAttributeHoldsIsNoUpdate() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "score": .double(.nan)])
      try context.save()
      try ann.setValue(.double(.nan), forKey: "score")
      try context.setValues(["name": "Ann"], of: ann)
      #expect(!ann.hasChanges && !context.hasChanges)
      #expect(try context.save() == nil)
      try ann.setValue(.double(1), forKey: "score")
      #expect(ann.hasChanges && context.hasChanges)
    }
  }

  /// An entity of up to 70 attributes and two relationships: slots from 63
  /// on share one bit of the attributes a save compares (64 and more
  /// attributes), and the changed keys of a layout wider than 64 are listed
  /// instead of kept as bits (65 and more).
  @Test(arguments: [62, 64, 65, 70])
  func wideEntitiesReportEveryChangedKeyInSchemaOrder(attributeCount: Int) throws {
    let schema = try ObjectSchema([
      EntityDescription(
        "Wide", attributes: (0..<attributeCount).map { .init("a\($0)", .integer, isOptional: true) },
        relationships: [
          .toOne("left", destination: "Wide", inverse: "right"), .toOne("right", destination: "Wide", inverse: "left"),
        ])
    ])
    let context = ObjectContext(schema: schema, name: "wide", notificationCenter: nil)
    try context.run { context throws in
      let first = try context.insert("Wide", values: [:])
      let second = try context.insert("Wide", values: [:])
      try context.save()
      let last = attributeCount - 1
      for slot in [last, 2, last - 1, 61] { try first.setValue(.int(Int64(slot)), forKey: "a\(slot)") }
      try first.setValue(nil, forKey: "a\(last - 1)")  // set, then back: no change
      try first.setRelationship("right", to: second)
      context.rollback()
      try context.setValues(["a\(last)": 7, "a3": 3], of: first)
      try first.setRelationship("left", to: second)
      let save = try #require(try context.save())
      let update = try #require(save.updated.first { $0.objectID == first.objectID })
      #expect(update.changedKeys == ["a3", "a\(last)", "left"])
      #expect(update.isChanged("a\(last)") && update.isChanged("left") && !update.isChanged("right"))
      #expect(!update.isChanged("a2") && !update.isChanged("nope"))
      #expect(
        update.changes.map(\.description) == ["a3: nil → 3", "a\(last): nil → 7", "left: nil → \(second.objectID)"])
    }
  }

  /// A saved object is checked only on the attributes set since its last
  /// save, found by bits: slots from 63 on share one bit, and each of them
  /// is still checked.
  @Test func requiredAttributesAreCheckedWhenSetOnWideEntities() throws {
    let required: Set<Int> = [2, 63, 66]
    let schema = try ObjectSchema([
      EntityDescription(
        "Wide",
        attributes: (0..<70).map { slot in
          .init(
            "a\(slot)", .integer, isOptional: !required.contains(slot), defaultValue: required.contains(slot) ? 1 : nil)
        })
    ])
    let context = ObjectContext(schema: schema, name: "wide", notificationCenter: nil)
    try context.run { context throws in
      let missing = try context.insert("Wide", values: ["a66": .null])
      var error = try #require(throws: ContextSaveError.self) { try context.save() }
      #expect(error.problems.map(\.key) == ["a66"])
      try missing.setValue(5, forKey: "a66")
      try context.save()
      for slot in [66, 63, 2] {
        try missing.setValue(.null, forKey: "a\(slot)")
        try missing.setValue(3, forKey: "a64")  // an optional one beside it
        error = try #require(throws: ContextSaveError.self) { try context.save() }
        #expect(error.problems.map(\.message) == ["Wide \(missing.objectID): 'a\(slot)' is required"])
        try missing.setValue(7, forKey: "a\(slot)")
        #expect(try context.save() != nil)
      }
    }
  }

  @Test func anUpdateFromASaveEqualsOneMadeByHand() throws {
    try Fixtures.context().run { context throws in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 30])
      let acme = try context.insert("Company", values: ["name": "Acme"])
      try context.save()
      try ann.setValue(31, forKey: "age")
      try ann.setRelationship("employer", to: acme)
      let save = try #require(try context.save())
      let update = try #require(save.updated.first { $0.objectID == ann.objectID })
      let byHand = ObjectUpdate(before: update.before, after: update.after, changedKeys: ["age", "employer"])
      #expect(update.changedKeys == ["age", "employer"])
      #expect(update == byHand && update.hashValue == byHand.hashValue)
      var edited = update
      edited.after = update.after
      #expect(edited == update && edited.changedKeys == update.changedKeys)
      #expect(edited.isChanged("employer") && !edited.isChanged("name"))
      edited.changedKeys = ["age"]
      #expect(edited != update && !edited.isChanged("employer"))
    }
  }

  @Test func aFailedSaveListsEveryProblemAndChangesNothing() throws {
    try Fixtures.context().run { context throws in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try context.save()
      try ann.setValue(.null, forKey: "name")
      try ann.setValue(40, forKey: "age")
      let orphan = try context.insert("Department", values: [:])
      let before = context.sequenceNumber

      let error = try #require(throws: ContextSaveError.self) { try context.save() }
      #expect(
        error.problems.map(\.message) == [
          "Person \(ann.objectID): 'name' is required",
          "Department \(orphan.objectID): relationship 'company' is required",
          "Department \(orphan.objectID): 'name' is required",
        ])
      #expect(error.problems.map(\.code) == [.missingValue, .missingRelationship, .missingValue])
      #expect(error.description.hasPrefix("save failed: 3 problems: Person"))
      // Nothing applied, nothing lost.
      #expect(context.sequenceNumber == before)
      #expect(context.hasChanges && ann["age"] == 40 && orphan.isInserted)
      #expect(try context.fetch("Department").count == 1)

      try ann.setValue("Ann", forKey: "name")
      try orphan.setValue("Lab", forKey: "name")
      try orphan.setRelationship("company", to: acme)
      let save = try #require(try context.save())
      #expect(save.sequenceNumber == before + 1)
      #expect(save.inserted.map(\.objectID) == [orphan.objectID])
      #expect(save.updated.map(\.objectID) == [acme.objectID, ann.objectID])
      #expect(save.updated[1].changedKeys == ["age"])
    }
  }

  @Test func observersRunInOrderOnTheQueueAndStopWhenCancelled() throws {
    let context = Fixtures.context()
    let log = LockedState<[String]>([])
    let first = context.addSaveObserver { [queue = context.queue] save in
      dispatchPrecondition(condition: .onQueue(queue))
      log.withLock { $0.append("first \(save.sequenceNumber)") }
    }
    var second: SaveObserverToken? = context.addSaveObserver { save in
      log.withLock { $0.append("second \(save.sequenceNumber)") }
    }
    try context.run { context throws in
      try context.insert("Person", values: ["name": "Ann"])
      try context.save()
    }
    second = nil  // released: unregistered
    try context.run { context throws in
      try context.insert("Person", values: ["name": "Bob"])
      try context.save()
    }
    first.cancel()
    first.cancel()
    try context.run { context throws in
      try context.insert("Person", values: ["name": "Cid"])
      try context.save()
    }
    #expect(second == nil)
    #expect(log.withLock { $0 } == ["first 1", "second 1", "first 2"])
  }

  @Test func aSaveInsideAnObserverReachesEveryObserverAfterTheCurrentOne() throws {
    let context = Fixtures.context()
    let log = LockedState<[String]>([])
    let saver = context.addSaveObserver { [context] save in
      log.withLock { $0.append("A\(save.sequenceNumber)") }
      guard save.sequenceNumber == 1 else { return }
      _ = try? context.insert("Person", values: ["name": "Echo"])
      _ = try? context.save()
    }
    let listener = context.addSaveObserver { save in log.withLock { $0.append("B\(save.sequenceNumber)") } }
    try context.run { context throws in
      try context.insert("Person", values: ["name": "Ann"])
      try context.save()
    }
    #expect(log.withLock { $0 } == ["A1", "B1", "A2", "B2"])
    withExtendedLifetime((saver, listener)) {}
  }

  @Test func postsCoreDataStyleNotifications() throws {
    let center = NotificationCenter()
    let context = ObjectContext(schema: Fixtures.schema, name: "posting", notificationCenter: center)
    let received = LockedState<[ContextSave]>([])
    let inserted = LockedState<Int>(0)
    let observer = center.addObserver(forName: ObjectContext.didSaveNotification, object: context, queue: nil) {
      notification in
      let userInfo = notification.userInfo ?? [:]
      if let save = userInfo[ObjectContext.SaveUserInfoKey.save] as? ContextSave {
        received.withLock { $0.append(save) }
      }
      let objects = userInfo[ObjectContext.SaveUserInfoKey.inserted] as? [ObjectSnapshot]
      inserted.withLock { $0 += objects?.count ?? -100 }
      #expect(userInfo[ObjectContext.SaveUserInfoKey.updated] is [ObjectSnapshot])
      #expect(userInfo[ObjectContext.SaveUserInfoKey.deleted] is [ObjectSnapshot])
    }
    defer { center.removeObserver(observer) }
    try context.run { context throws in
      try context.insert("Person", values: ["name": "Ann"])
      try context.insert("Person", values: ["name": "Bob"])
      try context.save()
      #expect(try context.save() == nil)  // nothing to save: nothing posted
    }
    #expect(received.withLock { $0.map(\.sequenceNumber) } == [1])
    #expect(inserted.withLock { $0 } == 2)
  }
}
