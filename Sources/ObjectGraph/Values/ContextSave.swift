import PredicateDSL

/// What one successful save changed: snapshots of the inserted, updated and
/// deleted objects. A plain `Sendable` value, handed to save observers and
/// posted with ``ObjectContext/didSaveNotification``.
///
/// Relationship changes appear on both sides: linking a person to a company
/// updates the person's `employer` and the company's `employees`.
///
/// ```swift
/// let token = context.addSaveObserver { save in
///   for update in save.updated {
///     for change in update.changes { print(update.after.objectID, change) }
///   }
/// }
/// ```
public struct ContextSave: Sendable, Hashable {
  /// The save's number in its context: 1 for the first save, then one more
  /// for each successful save.
  public var sequenceNumber: Int
  /// Who saved, as the context's ``ObjectContext/author`` or the save's own
  /// label named it.
  public var author: String?
  /// The name of the context that saved.
  public var contextName: String
  /// Objects inserted, as saved, in identifier order.
  public var inserted: [ObjectSnapshot]
  /// Objects whose values or relationships changed, in identifier order.
  public var updated: [ObjectUpdate]
  /// Objects deleted, with the values they were last saved with (changes
  /// made before deleting them were never saved), in identifier order.
  public var deleted: [ObjectSnapshot]

  /// Creates a change value, as a source other than a context would.
  public init(
    sequenceNumber: Int, author: String?, contextName: String, inserted: [ObjectSnapshot],
    updated: [ObjectUpdate], deleted: [ObjectSnapshot]
  ) {
    self.sequenceNumber = sequenceNumber
    self.author = author
    self.contextName = contextName
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  /// How many objects changed.
  public var count: Int { inserted.count + updated.count + deleted.count }
}

/// An object that a save updated: its values before and after, and which
/// keys changed.
public struct ObjectUpdate: Sendable, Hashable {
  /// The three fields in one immutable box: an update is copied into every
  /// save and every delivery that reports it, and copying a reference is one
  /// retain where the fields would be seven.
  private final class Storage: Sendable {
    let before: ObjectSnapshot
    let after: ObjectSnapshot
    let changedKeys: [String]
    /// The changed attribute slots as bits (see `changedAttributes`).
    let changedAttributes: UInt64

    init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: [String], changedAttributes: UInt64? = nil) {
      self.before = before
      self.after = after
      self.changedKeys = changedKeys
      self.changedAttributes = changedAttributes ?? ObjectUpdate.attributeBits(before: before, after: after)
    }
  }

  private var storage: Storage

  /// The object as it was saved before.
  public var before: ObjectSnapshot {
    get { storage.before }
    set { storage = Storage(before: newValue, after: storage.after, changedKeys: storage.changedKeys) }
  }
  /// The object as this save saved it.
  public var after: ObjectSnapshot {
    get { storage.after }
    set { storage = Storage(before: storage.before, after: newValue, changedKeys: storage.changedKeys) }
  }
  /// The keys whose values differ, attributes then relationships, in schema
  /// order. Never empty: a save that changes nothing is not an update.
  public var changedKeys: [String] {
    get { storage.changedKeys }
    set { storage = Storage(before: storage.before, after: storage.after, changedKeys: newValue) }
  }

  /// The changed attribute slots as bits: bit *n* for slot *n* below 63,
  /// bit 63 for any slot from 63 on. A slot is changed when its values are
  /// not identical (``PredicateDSL/FilterValue`` `isIdentical(to:)`), which
  /// may include attributes `changedKeys` leaves out as equal. A watcher
  /// tests it against the slots its watches read, without looking the
  /// changed keys up by name.
  package var changedAttributes: UInt64 { storage.changedAttributes }

  /// Whether the update lists any changed key (one fed to a watcher by hand
  /// might not).
  package var hasChangedKeys: Bool { !storage.changedKeys.isEmpty }

  /// The index of the object's entity in its schema, read without copying
  /// a snapshot.
  package var entityIndex: Int { storage.after.layout.index }

  /// Creates an update.
  public init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: [String]) {
    storage = Storage(before: before, after: after, changedKeys: changedKeys)
  }

  /// Creates an update whose changed attribute slots the caller already
  /// knows, as `changedAttributes` describes them: the save's own path.
  package init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: [String], changedAttributes: UInt64) {
    storage = Storage(before: before, after: after, changedKeys: changedKeys, changedAttributes: changedAttributes)
  }

  /// The bit of an attribute slot in `changedAttributes`.
  @inline(__always)
  package static func attributeBit(_ slot: Int) -> UInt64 { 1 << UInt64(Swift.min(slot, 63)) }

  /// The changed attribute slots of two snapshots, compared value by value
  /// (every slot, when they are not of the same entity): for updates made
  /// by hand, whose changed keys may not name every change.
  static func attributeBits(before: ObjectSnapshot, after: ObjectSnapshot) -> UInt64 {
    guard before.layout === after.layout, before.values.count == after.values.count else { return .max }
    var bits: UInt64 = 0
    for slot in after.values.indices where !before.values[slot].isIdentical(to: after.values[slot]) {
      bits |= attributeBit(slot)
    }
    return bits
  }

  /// Updates are equal when their snapshots and changed keys are.
  public static func == (lhs: ObjectUpdate, rhs: ObjectUpdate) -> Bool {
    lhs.storage === rhs.storage
      || (lhs.before == rhs.before && lhs.after == rhs.after && lhs.changedKeys == rhs.changedKeys)
  }

  /// Hashes the snapshots and the changed keys.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(before)
    hasher.combine(after)
    hasher.combine(changedKeys)
  }

  /// The object's identity.
  public var objectID: ObjectID { after.objectID }

  /// Each changed key with its old and new value.
  public var changes: [PropertyChange] {
    changedKeys.compactMap(change(forKey:))
  }

  /// The change of one key, or nil when it did not change.
  public func change(forKey key: String) -> PropertyChange? {
    guard changedKeys.contains(key), let old = before.property(key), let new = after.property(key) else {
      return nil
    }
    return PropertyChange(key: key, old: old, new: new)
  }
}

/// One key's old and new value in an update.
public struct PropertyChange: Sendable, Hashable, CustomStringConvertible {
  /// The key.
  public var key: String
  /// The value before the save.
  public var old: PropertyValue
  /// The value after the save.
  public var new: PropertyValue

  /// Creates a change.
  public init(key: String, old: PropertyValue, new: PropertyValue) {
    self.key = key
    self.old = old
    self.new = new
  }

  /// `age: 30 → 31`.
  public var description: String { "\(key): \(old) → \(new)" }
}
