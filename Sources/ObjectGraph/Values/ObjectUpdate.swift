import PredicateDSL

/// An object that a save updated: its values before and after, and which
/// keys changed.
public struct ObjectUpdate: Sendable, Hashable {
  /// The fields in one immutable box: an update is copied into every save
  /// and every delivery that reports it, and copying a reference is one
  /// retain where the fields would be seven.
  ///
  /// Visible to inlinable code so that the watcher's per-object reads
  /// (`objectID`, `changedAttributes`, ...) are loads, not calls.
  @usableFromInline final class Storage: Sendable {
    @usableFromInline let before: ObjectSnapshot
    @usableFromInline let after: ObjectSnapshot
    @usableFromInline let changedKeys: ChangedKeys
    /// The changed attribute slots as bits (see `changedAttributes`).
    @usableFromInline let changedAttributes: UInt64

    init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: ChangedKeys, changedAttributes: UInt64? = nil) {
      self.before = before
      self.after = after
      self.changedKeys = changedKeys
      self.changedAttributes = changedAttributes ?? ObjectUpdate.attributeBits(before: before, after: after)
    }
  }

  /// The changed keys: as a list, or as slots of the object's layout, which
  /// a save records without creating a string array per update (most
  /// readers test the slots and never ask for the names).
  @usableFromInline enum ChangedKeys: Sendable {
    case listed([String])
    /// Bit *n* of each mask for slot *n* of the attributes and of the
    /// relationships; only for layouts of at most 64 of each.
    case slots(attributes: UInt64, relationships: UInt64)
  }

  @usableFromInline var storage: Storage

  /// The object as it was saved before.
  public var before: ObjectSnapshot {
    get { storage.before }
    set { storage = Storage(before: newValue, after: storage.after, changedKeys: .listed(changedKeys)) }
  }
  /// The object as this save saved it.
  public var after: ObjectSnapshot {
    get { storage.after }
    set { storage = Storage(before: storage.before, after: newValue, changedKeys: .listed(changedKeys)) }
  }
  /// The keys whose values differ, attributes then relationships, in schema
  /// order. Never empty: a save that changes nothing is not an update.
  ///
  /// - Complexity: O(*k*) in the number of changed keys: an update made by
  ///   a save creates the array when asked (one that changes one key reads
  ///   it from its entity's layout).
  public var changedKeys: [String] {
    get {
      switch storage.changedKeys {
      case .listed(let keys): return keys
      case .slots(let attributes, let relationships):
        let layout = storage.after.layout
        if relationships == 0 && attributes.nonzeroBitCount == 1 {
          return layout.singleKeys[attributes.trailingZeroBitCount]
        }
        if attributes == 0 && relationships.nonzeroBitCount == 1 {
          return layout.singleKeys[layout.attributes.count + relationships.trailingZeroBitCount]
        }
        var keys: [String] = []
        keys.reserveCapacity(attributes.nonzeroBitCount + relationships.nonzeroBitCount)
        forEachChangedKey(attributes, relationships) { key in
          keys.append(key)
          return true
        }
        return keys
      }
    }
    set { storage = Storage(before: storage.before, after: storage.after, changedKeys: .listed(newValue)) }
  }

  /// Whether any changed key satisfies `predicate`, in `changedKeys` order,
  /// without creating the array; stops at the first that does.
  package func containsChangedKey(where predicate: (String) -> Bool) -> Bool {
    switch storage.changedKeys {
    case .listed(let keys): return keys.contains(where: predicate)
    case .slots(let attributes, let relationships):
      return !forEachChangedKey(attributes, relationships) { !predicate($0) }
    }
  }

  /// Whether an attribute (not only relationships) is among the changed
  /// keys, by the entity's layout.
  package var hasChangedAttributeKey: Bool {
    switch storage.changedKeys {
    case .listed(let keys):
      let layout = storage.after.layout
      return keys.contains { key in
        if case .attribute = layout.slot(key) { true } else { false }
      }
    case .slots(let attributes, _): return attributes != 0
    }
  }

  /// Whether `key` is one of the changed keys.
  public func isChanged(_ key: String) -> Bool {
    switch storage.changedKeys {
    case .listed(let keys): return keys.contains(key)
    case .slots(let attributes, let relationships):
      switch after.layout.slot(key) {
      case .attribute(let slot): return attributes & (1 << UInt64(slot)) != 0
      case .relationship(let slot): return relationships & (1 << UInt64(slot)) != 0
      case nil: return false
      }
    }
  }

  /// Calls `body` with the name of each slot in the masks, attributes then
  /// relationships, in slot order, while it returns true.
  ///
  /// - Returns: Whether every call returned true.
  @discardableResult
  private func forEachChangedKey(_ attributes: UInt64, _ relationships: UInt64, _ body: (String) -> Bool) -> Bool {
    let layout = storage.after.layout
    var mask = attributes
    while mask != 0 {
      guard body(layout.attributes[mask.trailingZeroBitCount].name) else { return false }
      mask &= mask - 1
    }
    mask = relationships
    while mask != 0 {
      guard body(layout.relationships[mask.trailingZeroBitCount].name) else { return false }
      mask &= mask - 1
    }
    return true
  }

  /// The changed attribute slots as bits: bit *n* for slot *n* below 63,
  /// bit 63 for any slot from 63 on. A slot is changed when its values are
  /// not identical (``PredicateDSL/FilterValue`` `isIdentical(to:)`), which
  /// may include attributes `changedKeys` leaves out as equal. A watcher
  /// tests it against the slots its watches read, without looking the
  /// changed keys up by name.
  @inlinable package var changedAttributes: UInt64 { storage.changedAttributes }

  /// Whether the update lists any changed key (one fed to a watcher by hand
  /// might not).
  @inlinable package var hasChangedKeys: Bool {
    switch storage.changedKeys {
    case .listed(let keys): !keys.isEmpty
    case .slots(let attributes, let relationships): attributes | relationships != 0
    }
  }

  /// The index of the object's entity in its schema, read without copying
  /// a snapshot.
  package var entityIndex: Int { storage.after.layout.index }

  /// Creates an update.
  public init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: [String]) {
    storage = Storage(before: before, after: after, changedKeys: .listed(changedKeys))
  }

  /// Creates an update whose changed keys and attribute slots the caller
  /// already knows, as `changedAttributes` describes them: the save's own
  /// path.
  package init(before: ObjectSnapshot, after: ObjectSnapshot, changedKeys: [String], changedAttributes: UInt64) {
    storage = Storage(
      before: before, after: after, changedKeys: .listed(changedKeys), changedAttributes: changedAttributes)
  }

  /// Creates an update whose changed keys are slots of the snapshots'
  /// layout, with `changedAttributes` as it describes them: the save's own
  /// path, for layouts of at most 64 attributes and 64 relationships.
  ///
  /// - Parameters:
  ///   - changedAttributeKeys: Bit *n* for attribute slot *n*, when its
  ///     value changed as `==` tells.
  ///   - changedRelationships: Bit *n* for relationship slot *n*.
  package init(
    before: ObjectSnapshot, after: ObjectSnapshot, changedAttributeKeys: UInt64, changedRelationships: UInt64,
    changedAttributes: UInt64
  ) {
    assert(after.layout.attributes.count <= 64 && after.layout.relationships.count <= 64)
    storage = Storage(
      before: before, after: after,
      changedKeys: .slots(attributes: changedAttributeKeys, relationships: changedRelationships),
      changedAttributes: changedAttributes)
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
  @inlinable public var objectID: ObjectID { storage.after.objectID }

  /// Each changed key with its old and new value.
  public var changes: [PropertyChange] {
    changedKeys.compactMap(change(forKey:))
  }

  /// The change of one key, or nil when it did not change.
  public func change(forKey key: String) -> PropertyChange? {
    guard isChanged(key), let old = before.property(key), let new = after.property(key) else {
      return nil
    }
    return PropertyChange(key: key, old: old, new: new)
  }
}
