public import Dispatch
public import Foundation
public import PredicateDSL
import Synchronization

/// An in-memory object graph confined to one queue: what a managed object
/// context is to Core Data.
///
/// Insert objects, change them, delete them, then ``save(author:)``: the
/// save validates every pending change, commits them all or none, and hands
/// a ``ContextSave`` (snapshots of what was inserted, updated and deleted)
/// to save observers and to `NotificationCenter`.
///
/// ```swift
/// let context = ObjectContext(schema: schema)
/// try context.performAndWait { context in
///   let acme = try context.insert("Company", values: ["name": "Acme"])
///   let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
///   try ann.setRelationship("employer", to: acme)   // acme.employees now holds ann
///   try context.save()
/// }
/// ```
///
/// - Important: A context and its objects are confined to ``queue``. Run
///   work there with ``perform(_:)->()`` or ``performAndWait(_:)``; touching a
///   context from another queue traps with a message naming both queues.
public final class ObjectContext: @unchecked Sendable {
  // @unchecked Sendable: every mutable stored property below is touched only
  // on `queue` (each confined entry point begins with `checkQueue()`, in
  // release builds too); `observers` and `pendingObservers` are
  // lock-protected registries, and the `let`s are immutable Sendable values.

  /// The schema of the context's objects.
  public let schema: ObjectSchema
  /// The queue the context is confined to.
  public let queue: DispatchQueue
  /// A name for messages: `"main"`, `"importer"`.
  public let name: String
  /// Where saves are posted as ``didSaveNotification``; nil posts nothing.
  ///
  /// - Important: Confined to ``queue``.
  public var notificationCenter: NotificationCenter? {
    get {
      checkQueue()
      return _notificationCenter
    }
    set {
      checkQueue()
      _notificationCenter = newValue
    }
  }
  /// The author label of saves that do not name one, as Core Data's
  /// `transactionAuthor`.
  ///
  /// - Important: Confined to ``queue``.
  public var author: String? {
    get {
      checkQueue()
      return _author
    }
    set {
      checkQueue()
      _author = newValue
    }
  }

  private let queueKey = DispatchSpecificKey<Bool>()
  /// The thread running work given to `perform` or `performAndWait`, while
  /// it runs (0 otherwise). `checkQueue()` compares it with the current
  /// thread first: two loads, where asking Dispatch for the queue's
  /// specific value is a call into Dispatch and a lookup, on every call
  /// that touches the context.
  private let worker = Atomic<UInt>(0)
  private var _notificationCenter: NotificationCenter?
  private var _author: String?

  // The graph's tables. Exclusivity is not checked at run time on them:
  // they are touched only on `queue`, one statement at a time (no access
  // hands out an inout reference that outlives its statement), and the
  // checks would add about a tenth to an insert's cost.

  /// Every object that is inserted, registered or deleted-but-unsaved.
  @exclusivity(unchecked) var allObjects: [ObjectID: ManagedObject] = [:]
  /// Live objects (inserted or registered, not deleted) of each entity,
  /// exactly (not its sub-entities), for fetching.
  @exclusivity(unchecked) var members: [EntityMembers]
  /// Objects inserted since the last save, in insertion order (some may
  /// have been deleted since).
  @exclusivity(unchecked) var insertedObjects: [ManagedObject] = []
  /// Registered objects changed since the last save (they hold a
  /// `committed` copy).
  @exclusivity(unchecked) var changedObjects: [ManagedObject] = []
  /// Objects deleted since the last save, both registered and inserted ones.
  @exclusivity(unchecked) var deletedObjects: [ManagedObject] = []
  /// The sequence number of the last successful save.
  var lastSequenceNumber: Int = 0

  let observers = SaveObserverRegistry()
  /// The observers of pending changes: while there are none, changes are
  /// not tracked for them.
  let pendingObservers = SaveObserverRegistry()
  /// Objects changed, inserted or deleted since the context last published
  /// its pending changes, while someone follows them; each holds its
  /// `published` image.
  @exclusivity(unchecked) var unpublishedObjects: [ManagedObject] = []
  /// Pending changes waiting to be handed to their observers while those
  /// run (see `pendingNotifications`).
  var pendingChangeNotifications: [ContextSave] = []
  var isPublishing = false
  /// Saves waiting to be handed to observers while observers run, so that a
  /// save made inside an observer reaches every observer after this one.
  var pendingNotifications: [ContextSave] = []
  var isNotifying = false

  private static let nextObjectID = Atomic<UInt64>(1)
  private static let nextSerial = Atomic<UInt64>(1)
  /// A number no other context of the process has: an object's
  /// `contextSerial` names its context without a reference to it.
  let serial = ObjectContext.nextSerial.add(1, ordering: .relaxed).oldValue

  /// Creates an empty context.
  ///
  /// - Parameters:
  ///   - schema: The entities the context stores.
  ///   - queue: The queue the context is confined to; by default a new
  ///     serial queue of its own.
  ///   - name: A name for messages and for the default queue's label.
  ///   - notificationCenter: Where saves are posted; nil posts nothing.
  public init(
    schema: ObjectSchema, queue: DispatchQueue? = nil, name: String = "context",
    notificationCenter: NotificationCenter? = .default
  ) {
    self.schema = schema
    self.name = name
    self.queue = queue ?? DispatchQueue(label: "ObjectContext.\(name)")
    self._notificationCenter = notificationCenter
    members = schema.layouts.map { EntityMembers(indexedSlots: $0.indexedSlots) }
    self.queue.setSpecific(key: queueKey, value: true)
  }

  deinit {
    // The key is ours alone; clearing it keeps a shared queue clean.
    queue.setSpecific(key: queueKey, value: nil)
  }

  // MARK: Running work on the queue

  /// Runs `work` on the context's queue, asynchronously.
  ///
  /// When `work` changed something, its changes are published to the
  /// observers of pending changes when it returns (see
  /// ``processPendingChanges()``).
  public func perform(_ work: @escaping @Sendable (ObjectContext) -> Void) {
    queue.async { self.asWorker { work(self) } }
  }

  /// Runs `body` (on the queue) with the current thread noted as the
  /// context's worker, and the previous worker restored after (calls nest);
  /// then publishes the pending changes `body` made, as Core Data does at
  /// the end of an event.
  @inline(__always)
  private func asWorker<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
    let previous = worker.exchange(currentThreadID(), ordering: .relaxed)
    defer {
      if !unpublishedObjects.isEmpty { publishPendingChanges() }
      worker.store(previous, ordering: .relaxed)
    }
    return try body()
  }

  /// Runs `work` on the context's queue and waits for it; runs it at once
  /// when already there.
  ///
  /// When `work` changed something, its changes are published to the
  /// observers of pending changes when it returns or throws (see
  /// ``processPendingChanges()``).
  ///
  /// - Returns: What `work` returns.
  /// - Throws: What `work` throws.
  public func performAndWait<Result, Failure: Error>(
    _ work: (ObjectContext) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    if isOnQueue {
      defer { if !unpublishedObjects.isEmpty { publishPendingChanges() } }
      return try work(self)
    }
    let outcome: Swift.Result<Result, Failure> = queue.sync {
      asWorker {
        do throws(Failure) { return .success(try work(self)) } catch { return .failure(error) }
      }
    }
    return try outcome.get()
  }

  /// Runs `work` on the context's queue from async code, and returns its
  /// result. Pending changes are published as ``perform(_:)->()`` does.
  ///
  /// - Throws: What `work` throws.
  public func perform<Result: Sendable>(
    _ work: @escaping @Sendable (ObjectContext) throws -> Result
  ) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { self.asWorker { continuation.resume(with: Swift.Result { try work(self) }) } }
    }
  }

  /// Whether the current code runs on the context's queue.
  public var isOnQueue: Bool {
    worker.load(ordering: .relaxed) == currentThreadID() || DispatchQueue.getSpecific(key: queueKey) != nil
      || (queue === DispatchQueue.main && Thread.isMainThread)
  }

  /// Traps unless the current code runs on the context's queue: inside work
  /// given to `perform` or `performAndWait` (checked first, cheaply: code
  /// such work runs synchronously counts, as the queue is held for it), or
  /// on the queue otherwise.
  @inline(__always)
  func checkQueue(_ function: StaticString = #function) {
    if worker.load(ordering: .relaxed) != currentThreadID() && DispatchQueue.getSpecific(key: queueKey) == nil {
      offQueue(function)
    }
  }

  private func offQueue(_ function: StaticString) {
    if queue === DispatchQueue.main && Thread.isMainThread { return }
    let thread = Thread.isMainThread ? "the main thread" : "thread '\(Thread.current.name ?? "unnamed")'"
    fatalError(
      "ObjectContext '\(name)' used off its queue in \(function): it is confined to queue "
        + "'\(queue.label)', but this code runs on \(thread) outside that queue. "
        + "Use perform(_:) or performAndWait(_:).")
  }

  // MARK: Objects

  /// Inserts a new object of `entity`, with its attributes' default values
  /// overridden by `values`.
  ///
  /// - Parameters:
  ///   - entity: The entity's name.
  ///   - values: Attribute values by key. Relationships are set afterwards,
  ///     with ``ManagedObject/setRelationship(_:to:)`` and
  ///     ``ManagedObject/add(_:to:)``.
  /// - Returns: The new object, with a new identifier.
  /// - Throws: ``ObjectGraphError`` for an unknown entity or key, or a value
  ///   of the wrong type; nothing is inserted then.
  /// - Important: Confined to ``queue``.
  @discardableResult
  public func insert(
    _ entity: String, values: [String: FilterValue] = [:]
  ) throws(ObjectGraphError)
    -> ManagedObject
  {
    checkQueue()
    guard let layout = schema.layout(named: entity) else {
      throw ObjectGraphError(
        .unknownEntity, "unknown entity '\(entity)' (entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    var initial = layout.initialValues
    for (key, value) in values {
      let slot = try attributeSlot(key, in: layout)
      initial[slot] = try coerce(value, for: layout.attributes[slot], in: layout)
    }
    let id = ObjectID(rawValue: Self.nextObjectID.wrappingAdd(1, ordering: .relaxed).oldValue)
    let object = ManagedObject(objectID: id, layout: layout, context: self)
    object.values = initial
    if !pendingObservers.isEmpty { notePending(object, existed: false) }
    allObjects[id] = object
    members[layout.index].append(object)
    insertedObjects.append(object)
    return object
  }

  /// The live object with `id`, or nil when there is none (never inserted
  /// here, deleted, or rolled back).
  ///
  /// - Important: Confined to ``queue``.
  public func object(with id: ObjectID) -> ManagedObject? {
    checkQueue()
    guard let object = allObjects[id], !object.isDeleted else { return nil }
    return object
  }

  /// Every live object of `entity` and its sub-entities, in identifier
  /// order.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity.
  /// - Important: Confined to ``queue``.
  public func objects(of entity: String) throws(ObjectGraphError) -> [ManagedObject] {
    checkQueue()
    guard let layout = schema.layout(named: entity) else {
      throw ObjectGraphError(
        .unknownEntity, "unknown entity '\(entity)' (entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    var objects: [ManagedObject] = []
    for index in layout.kindIndexes {
      members[index].prepareForReading()
      for case let object? in members[index].slots { objects.append(object) }
    }
    if layout.kindIndexes.count > 1 { objects.sort { $0.objectID < $1.objectID } }
    return objects
  }

  /// The objects of `entity` and its sub-entities as of the last save, in
  /// identifier order: those saved and still live, with the values they
  /// were saved with, and those deleted since; not those inserted since.
  /// What a watch that follows saves alone has seen of them.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity.
  /// - Important: Confined to ``queue``.
  package func savedSnapshots(of entity: String) throws(ObjectGraphError) -> [ObjectSnapshot] {
    let objects = try objects(of: entity)
    let layout = schema.layout(named: entity)!
    var snapshots: [ObjectSnapshot] = []
    for object in objects where object.lifecycle == .registered { snapshots.append(Self.savedSnapshot(of: object)) }
    for object in deletedObjects where object.lifecycle == .deleted && object.layout.isKind(of: layout) {
      snapshots.append(Self.savedSnapshot(of: object))
    }
    snapshots.sort { $0.objectID < $1.objectID }
    return snapshots
  }

  /// A saved object's values as last saved.
  private static func savedSnapshot(of object: ManagedObject) -> ObjectSnapshot {
    guard let committed = object.committed else { return object.snapshot() }
    return ObjectSnapshot(
      objectID: object.objectID, layout: object.layout, values: committed.values,
      relationships: committed.relationships)
  }

  /// The number of live objects.
  ///
  /// - Important: Confined to ``queue``.
  public var registeredObjectCount: Int {
    checkQueue()
    return allObjects.count - deletedObjects.count
  }

  /// Whether there are changes to save.
  ///
  /// - Important: Confined to ``queue``.
  public var hasChanges: Bool {
    checkQueue()
    return insertedObjects.contains { $0.lifecycle == .inserted }
      || deletedObjects.contains { $0.lifecycle == .deleted }
      || changedObjects.contains { $0.lifecycle == .registered && $0.hasChanges }
  }

  /// Sets an attribute of `object`.
  ///
  /// Setting the value an attribute already has changes nothing.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship key
  ///   (use ``setRelationship(_:of:to:)``), a value of the wrong type (an
  ///   integer is accepted for a double attribute), or a deleted object.
  /// - Important: Confined to ``queue``.
  public func setValue(
    _ value: FilterValue, forKey key: String, of object: ManagedObject
  )
    throws(ObjectGraphError)
  {
    checkQueue()
    try checkLive(object)
    let slot = try attributeSlot(key, in: object.layout)
    let coerced = try coerce(value, for: object.layout.attributes[slot], in: object.layout)
    guard object.values[slot] != coerced else { return }
    willChange(object)
    let old = object.values[slot]
    object.values[slot] = coerced
    object.touchedAttributes |= ObjectUpdate.attributeBit(slot)
    if !object.layout.indexedSlots.isEmpty { members[object.layout.index].valueChanged(object, slot: slot, from: old) }
  }

  /// Sets the attributes of `object` named in `values`, all or none.
  ///
  /// - Throws: ``ObjectGraphError`` as ``setValue(_:forKey:of:)`` does;
  ///   nothing changes then.
  /// - Important: Confined to ``queue``.
  public func setValues(_ values: [String: FilterValue], of object: ManagedObject) throws(ObjectGraphError) {
    checkQueue()
    try checkLive(object)
    var updated = object.values
    var touched: UInt64 = 0
    for (key, value) in values {
      let slot = try attributeSlot(key, in: object.layout)
      updated[slot] = try coerce(value, for: object.layout.attributes[slot], in: object.layout)
      touched |= ObjectUpdate.attributeBit(slot)
    }
    guard updated != object.values else { return }
    willChange(object)
    let old = object.values
    object.values = updated
    object.touchedAttributes |= touched
    for slot in object.layout.indexedSlots where old[slot] != updated[slot] {
      members[object.layout.index].valueChanged(object, slot: slot, from: old[slot])
    }
  }

  /// Deletes `object`, applying the delete rule of each of its
  /// relationships: *nullify* removes it from the destinations' inverse,
  /// *cascade* deletes the destinations too, *deny* makes the save fail
  /// while a destination that is not deleted remains.
  ///
  /// A deleted object keeps its values; the save reports the values it was
  /// last saved with.
  /// Deleting an object twice changes nothing.
  ///
  /// - Throws: ``ObjectGraphError`` for an object of another context.
  /// - Important: Confined to ``queue``.
  public func delete(_ object: ManagedObject) throws(ObjectGraphError) {
    checkQueue()
    try checkOwned(object)
    var work = [object]
    while let next = work.popLast() {
      switch next.lifecycle {
      case .inserted, .registered:
        if !pendingObservers.isEmpty { notePending(next, existed: true) }
      case .deleted, .invalid: continue
      }
      next.lifecycle = next.lifecycle == .inserted ? .invalid : .deleted
      deletedObjects.append(next)
      members[next.layout.index].remove(next)
      for (slot, relationship) in next.layout.relationships.enumerated() {
        let targets = next.relationships[slot]
        guard !targets.isEmpty else { continue }
        switch relationship.description.deleteRule {
        case .nullify:
          for id in targets.objectIDs {
            guard let target = allObjects[id] else { continue }
            detach(id: next.objectID, from: target, slot: relationship.inverseSlot)
          }
        case .cascade:
          for id in targets.objectIDs {
            if let target = allObjects[id] { work.append(target) }
          }
        case .deny:
          break  // checked by save
        }
      }
    }
  }

  /// Discards every change since the last save: inserted objects go, deleted
  /// ones come back, changed ones get their saved values back.
  ///
  /// Observers of pending changes are told what the rollback undid, as
  /// pending changes published at once: objects they saw inserted are
  /// deleted, objects they saw deleted are inserted again, and objects they
  /// saw change are updated back to their saved values.
  ///
  /// - Important: Confined to ``queue``.
  public func rollback() {
    checkQueue()
    if !pendingObservers.isEmpty {
      for object in insertedObjects { notePending(object) }
      for object in changedObjects { notePending(object) }
      for object in deletedObjects { notePending(object) }
    }
    for object in changedObjects {
      if let committed = object.committed {
        let old = object.values
        object.values = committed.values
        for slot in object.layout.indexedSlots where old[slot] != committed.values[slot] {
          members[object.layout.index].valueChanged(object, slot: slot, from: old[slot])
        }
        object.relationships = committed.relationships
        object.committed = nil
        object.touchedAttributes = 0
      }
    }
    for object in insertedObjects {
      if object.lifecycle == .inserted { members[object.layout.index].remove(object) }
      object.lifecycle = .invalid
      allObjects[object.objectID] = nil
    }
    for object in deletedObjects where object.lifecycle == .deleted {
      object.lifecycle = .registered
      members[object.layout.index].append(object)
    }
    insertedObjects = []
    changedObjects = []
    deletedObjects = []
    if !unpublishedObjects.isEmpty { publishPendingChanges() }
  }

  // MARK: Checks and change tracking

  func attributeSlot(_ key: String, in layout: EntityLayout) throws(ObjectGraphError) -> Int {
    switch layout.slot(key) {
    case .attribute(let slot): return slot
    case .relationship:
      throw ObjectGraphError(
        .unknownKey,
        "\(layout.name).\(key) is a relationship; set it with setRelationship, add or remove")
    case nil:
      throw ObjectGraphError(.unknownKey, "\(layout.name) has no attribute '\(key)'\(suggestion(key, layout))")
    }
  }

  func relationshipSlot(_ key: String, in layout: EntityLayout) throws(ObjectGraphError) -> Int {
    switch layout.slot(key) {
    case .relationship(let slot): return slot
    case .attribute:
      throw ObjectGraphError(.unknownKey, "\(layout.name).\(key) is an attribute, not a relationship")
    case nil:
      throw ObjectGraphError(.unknownKey, "\(layout.name) has no relationship '\(key)'\(suggestion(key, layout))")
    }
  }

  /// The key `key` likely misspells, or every key of the entity when none
  /// is close.
  private func suggestion(_ key: String, _ layout: EntityLayout) -> String {
    let keys = layout.keys
    if let match = UnknownField.suggestion(for: key, among: keys) { return " (did you mean '\(match)'?)" }
    return " (keys: \(keys.joined(separator: ", ")))"
  }

  func coerce(
    _ value: FilterValue, for attribute: AttributeDescription, in layout: EntityLayout
  )
    throws(ObjectGraphError) -> FilterValue
  {
    guard let coerced = AttributeValues.coerce(value, to: attribute.type) else {
      throw ObjectGraphError(
        .typeMismatch,
        "\(layout.name).\(attribute.name) takes \(attribute.type.rawValue) values, not "
          + "\(value.typeName) \(value)")
    }
    return coerced
  }

  func checkOwned(_ object: ManagedObject) throws(ObjectGraphError) {
    guard object.contextSerial == serial else {
      throw ObjectGraphError(
        .invalidObject, "\(object.layout.name) \(object.objectID) belongs to another context")
    }
  }

  func checkLive(_ object: ManagedObject) throws(ObjectGraphError) {
    try checkOwned(object)
    guard !object.isDeleted else {
      throw ObjectGraphError(.invalidObject, "\(object.layout.name) \(object.objectID) is deleted")
    }
  }

  /// Keeps the saved values of a registered object before its first change
  /// (and, while someone follows pending changes, its published ones).
  func willChange(_ object: ManagedObject) {
    if !pendingObservers.isEmpty { notePending(object) }
    guard object.lifecycle == .registered, object.committed == nil else { return }
    object.committed = (object.values, object.relationships)
    changedObjects.append(object)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The current thread's identifier, never 0.
@inline(__always)
private func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}
