public import Foundation
import PredicateDSL

extension ObjectContext {
  /// Posted after each successful save, with the context as the object.
  ///
  /// `userInfo` is keyed like Core Data's did-save notification:
  /// ``SaveUserInfoKey/inserted``, ``SaveUserInfoKey/updated`` and
  /// ``SaveUserInfoKey/deleted`` hold arrays of ``ObjectSnapshot`` (updated
  /// objects as saved), and ``SaveUserInfoKey/save`` the whole
  /// ``ContextSave``.
  public static let didSaveNotification = Notification.Name("ObjectContextDidSave")

  /// The `userInfo` keys of ``didSaveNotification``.
  public enum SaveUserInfoKey {
    /// Inserted objects, as `[ObjectSnapshot]` (Core Data's `NSInsertedObjectsKey`).
    public static let inserted = "inserted"
    /// Updated objects as saved, as `[ObjectSnapshot]` (`NSUpdatedObjectsKey`).
    public static let updated = "updated"
    /// Deleted objects with the values they were last saved with, as `[ObjectSnapshot]` (`NSDeletedObjectsKey`).
    public static let deleted = "deleted"
    /// The whole ``ContextSave``, with old values and changed keys.
    public static let save = "save"
  }

  /// Validates and commits every pending change, all or none.
  ///
  /// Validation checks every inserted and changed object (required
  /// attributes have values, required relationships are not empty) and every
  /// deleted one (a relationship with the deny rule holds no object that
  /// survives the save). On failure the context is exactly as before the
  /// call: every pending change is still there, to fix or to roll back.
  ///
  /// First, changes not yet published to the observers of pending changes
  /// are published (see ``processPendingChanges()``), even when the save
  /// then fails.
  ///
  /// On success the save gets the next sequence number and a ``ContextSave``,
  /// which is handed synchronously, on this queue, to every save observer in
  /// registration order, then posted as ``didSaveNotification``.
  ///
  /// - Parameter author: The save's author label; by default the context's
  ///   ``author``.
  /// - Returns: What the save changed, or nil when there was nothing to save
  ///   (no sequence number is used, nothing is posted).
  /// - Throws: ``ContextSaveError`` listing every problem.
  /// - Complexity: O(*n*) in the number of pending changes.
  /// - Important: Confined to ``queue``.
  @discardableResult
  public func save(author: String? = nil) throws(ContextSaveError) -> ContextSave? {
    checkQueue()
    // As Core Data's processPendingChanges, until no observer changes
    // anything more.
    while !unpublishedObjects.isEmpty { publishPendingChanges(author: author ?? self.author) }
    let problems = validate()
    guard problems.isEmpty else { throw ContextSaveError(problems: problems) }

    var inserted: [ObjectSnapshot] = []
    inserted.reserveCapacity(insertedObjects.count)
    for object in insertedObjects where object.lifecycle == .inserted {
      inserted.append(object.snapshot())
      object.lifecycle = .registered
      object.touchedAttributes = 0
    }
    var updated: [ObjectUpdate] = []
    updated.reserveCapacity(changedObjects.count)
    for object in changedObjects where object.lifecycle == .registered {
      // (Deleted objects keep their saved values for the loop below.)
      guard let committed = object.committed.take() else { continue }
      defer { object.touchedAttributes = 0 }
      guard let update = Self.update(of: object, from: committed, touched: object.touchedAttributes) else { continue }
      updated.append(update)
    }
    // Objects are changed in identifier order more often than not.
    if !updated.isSorted(by: { $0.objectID < $1.objectID }) { updated.sort { $0.objectID < $1.objectID } }
    var deleted: [ObjectSnapshot] = []
    for object in deletedObjects {
      if object.lifecycle == .deleted {
        // The values it was last saved with: changes made before deleting
        // it were never saved, and observers last saw the saved ones.
        if let committed = object.committed {
          deleted.append(
            ObjectSnapshot(
              objectID: object.objectID, layout: object.layout, values: committed.values,
              relationships: committed.relationships))
        } else {
          deleted.append(object.snapshot())
        }
      }
      (object.committed, object.touchedAttributes) = (nil, 0)
      object.lifecycle = .invalid
      allObjects[object.objectID] = nil
    }
    deleted.sort { $0.objectID < $1.objectID }
    insertedObjects = []
    changedObjects = []
    deletedObjects = []

    guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return nil }
    lastSequenceNumber += 1
    let save = ContextSave(
      sequenceNumber: lastSequenceNumber, author: author ?? self.author, contextName: name,
      inserted: inserted, updated: updated, deleted: deleted)
    announce(save)
    return save
  }

  /// The number of the last successful save; 0 before the first.
  ///
  /// - Important: Confined to ``queue``.
  public var sequenceNumber: Int {
    checkQueue()
    return lastSequenceNumber
  }

  /// Registers `observer` to be called with every later save, synchronously
  /// on the context's queue, after the save committed and before it
  /// returns. Observers run in registration order. A save made inside an
  /// observer reaches every observer after the current save has.
  ///
  /// Safe to call from any thread.
  ///
  /// - Returns: A token that unregisters the observer when cancelled or
  ///   released.
  public func addSaveObserver(_ observer: @escaping @Sendable (ContextSave) -> Void) -> SaveObserverToken {
    SaveObserverToken(registry: observers, id: observers.add(observer))
  }

  private func announce(_ save: ContextSave) {
    pendingNotifications.append(save)
    guard !isNotifying else { return }
    isNotifying = true
    defer { isNotifying = false }
    var next = 0
    while next < pendingNotifications.count {
      let save = pendingNotifications[next]
      next += 1
      for observer in observers.current() { observer(save) }
      if let center = notificationCenter {
        center.post(
          name: Self.didSaveNotification, object: self,
          userInfo: [
            SaveUserInfoKey.inserted: save.inserted,
            SaveUserInfoKey.updated: save.updated.map(\.after),
            SaveUserInfoKey.deleted: save.deleted,
            SaveUserInfoKey.save: save,
          ])
      }
    }
    pendingNotifications = []
  }

  /// The update of `object` from `committed` to its current state, or nil
  /// when no key differs. Only the attributes whose bits are in `touched`
  /// (see ``ObjectUpdate/attributeBit(_:)``) are compared.
  static func update(
    of object: ManagedObject, from committed: consuming (values: [FilterValue], relationships: [RelationshipTargets]),
    touched touchedAttributes: UInt64
  ) -> ObjectUpdate? {
    let layout = object.layout
    // Changed keys as slot bits, named only when a reader asks; a layout
    // too wide for the bits lists them.
    let listsKeys = layout.attributes.count > 64 || layout.relationships.count > 64
    var listed: [String] = []
    var attributeKeys: UInt64 = 0
    var relationshipKeys: UInt64 = 0
    var changedAttributes: UInt64 = 0
    committed.values.withUnsafeBufferPointer { old in
      object.values.withUnsafeBufferPointer { new in
        // Only the attributes set since the last save can differ: the bits
        // of `touchedAttributes`, where bit 63 stands for every slot from
        // 63 on.
        let wide = ObjectUpdate.attributeBit(63)
        var touched = touchedAttributes & ~wide
        var nextWide = touchedAttributes & wide != 0 ? 63 : old.count
        while true {
          let slot: Int
          if touched != 0 {
            slot = touched.trailingZeroBitCount
            touched &= touched - 1
          } else if nextWide < old.count {
            slot = nextWide
            nextWide += 1
          } else {
            break
          }
          // In place: binding the values would copy (retain) each one.
          switch new[slot].difference(from: old[slot]) {
          case .none: continue
          case .representation:
            // Not identical but equal to Swift (canonically equivalent
            // strings, -0.0 and 0.0): changed for watchers, whose predicates
            // tell them apart, but not a changed key.
            changedAttributes |= ObjectUpdate.attributeBit(slot)
            continue
          case .value: changedAttributes |= ObjectUpdate.attributeBit(slot)
          }
          if listsKeys { listed.append(layout.attributes[slot].name) } else { attributeKeys |= 1 << UInt64(slot) }
        }
      }
    }
    for slot in layout.relationships.indices where committed.relationships[slot] != object.relationships[slot] {
      if listsKeys { listed.append(layout.relationships[slot].name) } else { relationshipKeys |= 1 << UInt64(slot) }
    }
    guard !listed.isEmpty || attributeKeys | relationshipKeys != 0 else { return nil }
    let before = ObjectSnapshot(
      objectID: object.objectID, layout: layout, values: committed.values,
      relationships: committed.relationships)
    if listsKeys {
      return ObjectUpdate(
        before: before, after: object.snapshot(), changedKeys: listed, changedAttributes: changedAttributes)
    }
    return ObjectUpdate(
      before: before, after: object.snapshot(), changedAttributeKeys: attributeKeys,
      changedRelationships: relationshipKeys, changedAttributes: changedAttributes)
  }

  // MARK: Validation

  private func validate() -> [ContextSaveError.Problem] {
    var problems: [ContextSaveError.Problem] = []
    for object in insertedObjects where object.lifecycle == .inserted {
      check(object, into: &problems)
    }
    for object in changedObjects where object.lifecycle == .registered {
      check(object, into: &problems)
    }
    for object in deletedObjects {
      for (slot, relationship) in object.layout.relationships.enumerated()
      where relationship.description.deleteRule == .deny {
        let survivors = object.relationships[slot].objectIDs.filter { id in
          guard let target = allObjects[id] else { return false }
          return !target.isDeleted && target.relationships[relationship.inverseSlot].contains(object.objectID)
        }
        guard !survivors.isEmpty else { continue }
        let names = survivors.map { "\(allObjects[$0]!.layout.name) \($0)" }.joined(separator: ", ")
        problems.append(
          ContextSaveError.Problem(
            .deleteDenied, objectID: object.objectID, entity: object.layout.name, key: relationship.name,
            message:
              "\(object.layout.name) \(object.objectID) cannot be deleted: '\(relationship.name)' "
              + "(delete rule deny) still holds \(names)"))
      }
    }
    problems.sort { ($0.objectID, $0.key) < ($1.objectID, $1.key) }
    return problems
  }

  private func check(_ object: ManagedObject, into problems: inout [ContextSaveError.Problem]) {
    let layout = object.layout
    // A saved object met the rules when it was saved: of its attributes,
    // only those set since can break them (bit 63 stands for every slot
    // from 63 on).
    func checkValue(_ slot: Int) {
      let attribute = layout.attributes[slot]
      guard !attribute.isOptional, object.values[slot].isNull else { return }
      problems.append(
        ContextSaveError.Problem(
          .missingValue, objectID: object.objectID, entity: layout.name, key: attribute.name,
          message: "\(layout.name) \(object.objectID): '\(attribute.name)' is required"))
    }
    var pending = layout.requiredAttributes & (object.lifecycle == .registered ? object.touchedAttributes : .max)
    while pending != 0 {
      let slot = pending.trailingZeroBitCount
      pending &= pending - 1
      if slot < 63 {
        checkValue(slot)
      } else {
        for slot in 63..<layout.attributes.count { checkValue(slot) }
      }
    }
    for slot in layout.requiredRelationshipSlots {
      let relationship = layout.relationships[slot]
      if object.relationships[slot].isEmpty {
        problems.append(
          ContextSaveError.Problem(
            .missingRelationship, objectID: object.objectID, entity: layout.name, key: relationship.name,
            message: "\(layout.name) \(object.objectID): relationship '\(relationship.name)' is required"))
      }
    }
  }
}
