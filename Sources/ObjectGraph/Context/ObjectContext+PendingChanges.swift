import PredicateDSL

extension ObjectContext {
  /// Publishes the changes made since the context last published them to
  /// the observers of pending changes, as one ``ContextSave`` of kind
  /// ``ContextSave/Kind/pending``: what Core Data's
  /// `processPendingChanges()` does, with its objects-did-change
  /// notification.
  ///
  /// The context publishes on its own at the end of each
  /// ``perform(_:)->()`` or ``performAndWait(_:)`` block that changed
  /// something, after a ``rollback()`` (with what it undid), and at the
  /// start of each ``save(author:)``; call this method to publish sooner.
  ///
  /// The value holds each object at most once, against what observers last
  /// saw: objects inserted since (as they are now), objects updated since
  /// (before: as last published; after: as they are now; changed keys),
  /// and objects deleted since (with the values last published). An object
  /// inserted and deleted in between, or changed and changed back, is not
  /// in it. Its ``ContextSave/sequenceNumber`` is that of the last save.
  ///
  /// Changes are tracked only while some observer follows them (see
  /// ``addPendingChangesObserver(_:)``): a context that nobody follows this
  /// way does no work for them. Changes made before the first such observer
  /// was added are reported by the save alone.
  ///
  /// ```swift
  /// let token = context.addPendingChangesObserver { changes in
  ///   print("not saved yet:", changes.inserted.count, changes.updated.count, changes.deleted.count)
  /// }
  /// try context.performAndWait { context in
  ///   let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
  ///   context.processPendingChanges()  // the observer sees Ann inserted
  ///   try ann.setValue(32, forKey: "age")
  ///   try context.save()  // the observer sees her age change, then the save happens
  /// }
  /// ```
  ///
  /// - Complexity: O(*n* log *n*) in the objects changed since the last
  ///   publication.
  /// - Important: Confined to ``queue``.
  public func processPendingChanges() {
    checkQueue()
    if !unpublishedObjects.isEmpty { publishPendingChanges() }
  }

  /// Registers `observer` to be called with the context's pending changes
  /// each time it publishes them (see ``processPendingChanges()``),
  /// synchronously on the context's queue. Observers run in registration
  /// order. Pending changes published inside an observer reach every
  /// observer after the current ones have.
  ///
  /// Safe to call from any thread. The observer is told of the changes made
  /// after it was added.
  ///
  /// - Returns: A token that unregisters the observer when cancelled or
  ///   released.
  public func addPendingChangesObserver(
    _ observer: @escaping @Sendable (ContextSave) -> Void
  ) -> SaveObserverToken {
    SaveObserverToken(registry: pendingObservers, id: pendingObservers.add(observer))
  }

  /// Whether some observer of pending changes is registered, so that the
  /// context tracks its changes for them: for tests of who subscribes.
  /// Safe from any thread; one being added or removed on another thread
  /// may or may not count yet.
  package var hasPendingChangesObservers: Bool { !pendingObservers.isEmpty }

  /// Keeps `object` as observers of pending changes last saw it, before its
  /// first change since the last publication. Call it only while some
  /// observer follows pending changes, before the change.
  ///
  /// - Parameter existed: Whether the object existed when last published;
  ///   by default whether it is live now (inserted or saved, not deleted),
  ///   which it was then, as nothing changed it since.
  func notePending(_ object: ManagedObject, existed: Bool? = nil) {
    guard object.published == nil else { return }
    object.published = ManagedObject.PublishedImage(
      values: object.values, relationships: object.relationships,
      existed: existed ?? (object.lifecycle == .inserted || object.lifecycle == .registered))
    unpublishedObjects.append(object)
  }

  /// Hands the changes made since the last publication to the observers of
  /// pending changes, and starts a new publication.
  ///
  /// - Parameter author: The author label of the changes; by default the
  ///   context's.
  func publishPendingChanges(author: String? = nil) {
    let objects = unpublishedObjects
    unpublishedObjects = []
    guard !pendingObservers.isEmpty else {
      // The last observer went: nobody is told, and tracking starts afresh
      // with the next one.
      for object in objects { object.published = nil }
      return
    }
    var inserted: [ObjectSnapshot] = []
    var updated: [ObjectUpdate] = []
    var deleted: [ObjectSnapshot] = []
    for object in objects {
      guard let image = object.published.take() else { continue }
      let exists = object.lifecycle == .inserted || object.lifecycle == .registered
      switch (image.existed, exists) {
      case (false, true):
        inserted.append(object.snapshot())
      case (true, true):
        // Every attribute: a rollback clears the touched ones.
        let count = object.layout.attributes.count
        let every: UInt64 = count >= 64 ? .max : (1 << UInt64(count)) &- 1
        if let update = Self.update(of: object, from: (image.values, image.relationships), touched: every) {
          updated.append(update)
        }
      case (true, false):
        deleted.append(
          ObjectSnapshot(
            objectID: object.objectID, layout: object.layout, values: image.values,
            relationships: image.relationships))
      case (false, false):
        break
      }
    }
    guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
    inserted.sort { $0.objectID < $1.objectID }
    updated.sort { $0.objectID < $1.objectID }
    deleted.sort { $0.objectID < $1.objectID }
    let changes = ContextSave(
      sequenceNumber: lastSequenceNumber, author: author ?? self.author, contextName: name, inserted: inserted,
      updated: updated, deleted: deleted, kind: .pending)
    pendingChangeNotifications.append(changes)
    guard !isPublishing else { return }
    isPublishing = true
    defer { isPublishing = false }
    var next = 0
    while next < pendingChangeNotifications.count {
      let changes = pendingChangeNotifications[next]
      next += 1
      for observer in pendingObservers.current() { observer(changes) }
    }
    pendingChangeNotifications = []
  }
}
