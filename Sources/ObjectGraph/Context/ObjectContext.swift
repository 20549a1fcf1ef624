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
  // release builds too); `observers` is a lock-protected registry, and the
  // `let`s are immutable Sendable values.

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
  public func perform(_ work: @escaping @Sendable (ObjectContext) -> Void) {
    queue.async { self.asWorker { work(self) } }
  }

  /// Runs `body` (on the queue) with the current thread noted as the
  /// context's worker, and the previous worker restored after (calls nest).
  @inline(__always)
  private func asWorker<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
    let previous = worker.exchange(currentThreadID(), ordering: .relaxed)
    defer { worker.store(previous, ordering: .relaxed) }
    return try body()
  }

  /// Runs `work` on the context's queue and waits for it; runs it at once
  /// when already there.
  ///
  /// - Returns: What `work` returns.
  /// - Throws: What `work` throws.
  public func performAndWait<Result, Failure: Error>(
    _ work: (ObjectContext) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    if isOnQueue { return try work(self) }
    let outcome: Swift.Result<Result, Failure> = queue.sync {
      asWorker {
        do throws(Failure) { return .success(try work(self)) } catch { return .failure(error) }
      }
    }
    return try outcome.get()
  }

  /// Runs `work` on the context's queue from async code, and returns its
  /// result.
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
      case .inserted: next.lifecycle = .invalid
      case .registered: next.lifecycle = .deleted
      case .deleted, .invalid: continue
      }
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
  /// - Important: Confined to ``queue``.
  public func rollback() {
    checkQueue()
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

  private func suggestion(_ key: String, _ layout: EntityLayout) -> String {
    let keys = layout.keys
    let lowered = key.lowercased()
    if let match = keys.first(where: { $0.lowercased() == lowered }) { return " (did you mean '\(match)'?)" }
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

  /// Keeps the saved values of a registered object before its first change.
  func willChange(_ object: ManagedObject) {
    guard object.lifecycle == .registered, object.committed == nil else { return }
    object.committed = (object.values, object.relationships)
    changedObjects.append(object)
  }
}

/// The live objects of one entity in identifier order, with O(1) removal:
/// a removed object leaves a hole that compaction fills later; and, for
/// each indexed attribute, the live objects by value.
///
/// Invariant: an object is in `valueIndexes[slot][AttributeIndexKey(v)]`
/// exactly when it is in `slots` and its value at `slot` is `v` and not NaN
/// (stored values are coerced to the attribute's type, so values a
/// predicate's `==` finds equal are equal keys); each such list is in
/// identifier order.
struct EntityMembers {
  private(set) var slots: [ManagedObject?] = []
  /// For each indexed attribute's slot, the live objects by value, each
  /// list in identifier order (objects mostly arrive in that order, so
  /// most insertions append).
  private(set) var valueIndexes: [Int: [AttributeIndexKey: [ManagedObject]]]
  /// The keys of `valueIndexes`, kept apart: iterating the dictionary's
  /// own keys while changing its values would hold a second reference to
  /// its storage, and every change would copy the dictionary, the inner
  /// dictionary and the list changed (quadratic inserts).
  private let indexedSlots: [Int]
  private var holes = 0
  /// False after an object came back out of order (a rolled-back delete).
  private var isSorted = true
  /// The largest identifier appended so far (holes may follow it).
  private var largestID = ObjectID(rawValue: 0)

  init(indexedSlots: [Int]) {
    valueIndexes = Dictionary(uniqueKeysWithValues: indexedSlots.map { ($0, [:]) })
    self.indexedSlots = indexedSlots
  }

  var count: Int { slots.count - holes }

  mutating func append(_ object: ManagedObject) {
    if object.objectID < largestID { isSorted = false } else { largestID = object.objectID }
    object.memberIndex = slots.count
    slots.append(object)
    for slot in indexedSlots { index(object, slot: slot) }
  }

  mutating func remove(_ object: ManagedObject) {
    let index = object.memberIndex
    guard index < slots.count, slots[index] === object else { return }
    for slot in indexedSlots { unindex(object, slot: slot, value: object.values[slot]) }
    slots[index] = nil
    holes += 1
    if holes > 32 && holes * 2 > slots.count { compact() }
  }

  /// Moves a member in the index of `slot`, if that attribute is indexed,
  /// from `old` to its current value. Call it after the value changed.
  mutating func valueChanged(_ object: ManagedObject, slot: Int, from old: FilterValue) {
    guard valueIndexes[slot] != nil, object.memberIndex < slots.count, slots[object.memberIndex] === object else {
      return
    }
    unindex(object, slot: slot, value: old)
    index(object, slot: slot)
  }

  private mutating func index(_ object: ManagedObject, slot: Int) {
    let id = object.objectID
    guard !Self.isUnmatchable(object.values[slot]) else { return }
    valueIndexes[slot]![AttributeIndexKey(object.values[slot]), default: []].insertInOrder(object, id: id)
  }

  /// A NaN equals nothing, itself included (as a dictionary key too): no
  /// `==` or `IN` selects it, so it is not indexed.
  private static func isUnmatchable(_ value: FilterValue) -> Bool {
    switch value {
    case .double(let number), .date(secondsSinceReferenceDate: let number): number.isNaN
    default: false
    }
  }

  private mutating func unindex(_ object: ManagedObject, slot: Int, value: FilterValue) {
    guard !Self.isUnmatchable(value) else { return }
    let id = object.objectID
    let key = AttributeIndexKey(value)
    guard valueIndexes[slot]![key]?.removeInOrder(id: id) == true else { return }
    if valueIndexes[slot]![key]!.isEmpty { valueIndexes[slot]![key] = nil }
  }

  /// Appends the members whose value at `slot` is one of `values`
  /// (coerced to the attribute's type) to `found`, each list once however
  /// often its value repeats; false when the attribute is not indexed.
  func members(slot: Int, values: some Sequence<FilterValue>, into found: inout [[ManagedObject]]) -> Bool {
    guard let index = valueIndexes[slot] else { return false }
    var seen: Set<AttributeIndexKey> = []
    for value in values {
      let key = AttributeIndexKey(value)
      if let bucket = index[key], seen.insert(key).inserted { found.append(bucket) }
    }
    return true
  }

  /// Appends the members whose value `v` at `slot` makes
  /// `v <operation> constant` true, compared as a predicate compares them,
  /// to `found`, one list per value; false when the attribute is not
  /// indexed or a value cannot be compared with the constant (the scan then
  /// raises the predicate's error).
  func members(
    slot: Int, where operation: ComparisonSyntax.Operator, _ constant: FilterValue,
    into found: inout [[ManagedObject]]
  ) -> Bool {
    guard let index = valueIndexes[slot] else { return false }
    let accepts: (less: Bool, same: Bool, greater: Bool) =
      switch operation {
      case .less: (true, false, false)
      case .lessOrEqual: (true, true, false)
      case .greater: (false, false, true)
      case .greaterOrEqual: (false, true, true)
      default: (false, false, false)
      }
    for (key, bucket) in index {
      let sign: Int?
      do { sign = try FilterValue.predicateOrder(key.value, constant) } catch { return false }
      // nil: a nil value, which no ordering accepts.
      guard let sign else { continue }
      if sign < 0 ? accepts.less : (sign == 0 ? accepts.same : accepts.greater) { found.append(bucket) }
    }
    return true
  }

  /// Compacts and, when needed, sorts the slots.
  mutating func prepareForReading() {
    if !isSorted {
      var objects = slots.compactMap { $0 }
      objects.sort { $0.objectID < $1.objectID }
      slots = objects
      holes = 0
      isSorted = true
      for (index, object) in objects.enumerated() { object.memberIndex = index }
    } else if holes * 4 > slots.count {
      compact()
    }
  }

  private mutating func compact() {
    var compacted: [ManagedObject?] = []
    compacted.reserveCapacity(slots.count - holes)
    for case let object? in slots {
      object.memberIndex = compacted.count
      compacted.append(object)
    }
    slots = compacted
    holes = 0
  }
}

extension [ManagedObject] {
  /// Inserts `object` at its place in identifier order.
  fileprivate mutating func insertInOrder(_ object: ManagedObject, id: ObjectID) {
    if let last = last, last.objectID > id {
      insert(object, at: firstIndex { $0.objectID > id }!)
    } else {
      append(object)
    }
  }

  /// Removes the object with `id` from a list in identifier order.
  fileprivate mutating func removeInOrder(id: ObjectID) -> Bool {
    var (low, high) = (0, count)
    while low < high {
      let middle = (low + high) / 2
      if self[middle].objectID < id { low = middle + 1 } else { high = middle }
    }
    guard low < count, self[low].objectID == id else { return false }
    remove(at: low)
    return true
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
