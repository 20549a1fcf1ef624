import PredicateDSL

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
  func members(slot: Int, values: [FilterValue], into found: inout [[ManagedObject]]) -> Bool {
    guard let index = valueIndexes[slot] else { return false }
    if values.count == 1 {
      // One value (`==`): nothing to deduplicate.
      if let bucket = index[AttributeIndexKey(values[0])] { found.append(bucket) }
      return true
    }
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
