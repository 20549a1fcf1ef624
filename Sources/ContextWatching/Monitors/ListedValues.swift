import ObjectGraph
import PredicateDSL

/// The attribute values of each listed object, by identifier: where a list
/// finds an object it holds when it knows only the object's identifier.
///
/// A list orders objects by values read from their attributes (plus
/// derived values and the identifier), so an object's values are enough
/// to search the list for it. This table keeps one reference per object
/// (the snapshot's value storage, shared with the snapshot) in an
/// open-addressing table with linear probing: 16 bytes a slot, at most
/// four-fifths of the slots in use, so about 20 to 40 bytes an object,
/// where a `Dictionary` of snapshots takes 40 bytes a slot with up to
/// twice the slots.
///
/// Invariants: the capacity is a power of two; a slot is empty exactly
/// when its `values` is nil; every key sits at its home slot or after it,
/// with no empty slot between (removal shifts later keys back instead of
/// leaving markers); `count` is the number of full slots.
struct ListedValues: Sendable {
  private struct Slot: Sendable {
    var key: UInt64
    var values: [FilterValue]?
  }

  private var slots: ContiguousArray<Slot>
  private(set) var count: Int

  /// Creates a table with room for `capacity` objects before it grows.
  init(minimumCapacity capacity: Int = 0) {
    var size = 8
    while size * 4 / 5 < capacity { size *= 2 }
    slots = ContiguousArray(repeating: Slot(key: 0, values: nil), count: size)
    count = 0
  }

  /// The values of object `id`, or nil when the table does not hold it.
  ///
  /// - Complexity: O(1) on average.
  subscript(id: ObjectID) -> [FilterValue]? {
    slots.withUnsafeBufferPointer { slots in
      let mask = slots.count - 1
      var index = Self.home(id.rawValue, capacity: slots.count)
      while let values = slots[index].values {
        if slots[index].key == id.rawValue { return values }
        index = (index + 1) & mask
      }
      return nil
    }
  }

  /// Sets the values of object `id`, adding it when it is new.
  mutating func set(_ values: [FilterValue], for id: ObjectID) {
    if (count + 1) * 5 > slots.count * 4 { grow() }
    let mask = slots.count - 1
    var index = Self.home(id.rawValue, capacity: slots.count)
    while slots[index].values != nil {
      if slots[index].key == id.rawValue {
        slots[index].values = values
        return
      }
      index = (index + 1) & mask
    }
    slots[index] = Slot(key: id.rawValue, values: values)
    count += 1
  }

  /// Removes object `id`, if the table holds it.
  mutating func remove(_ id: ObjectID) {
    let mask = slots.count - 1
    var index = Self.home(id.rawValue, capacity: slots.count)
    while slots[index].key != id.rawValue || slots[index].values == nil {
      guard slots[index].values != nil else { return }
      index = (index + 1) & mask
    }
    slots[index].values = nil
    count -= 1
    // Shift back every later key of the run that may no longer be reached
    // past the emptied slot: one whose home is not in (hole, candidate].
    var hole = index
    var candidate = (index + 1) & mask
    while slots[candidate].values != nil {
      let home = Self.home(slots[candidate].key, capacity: slots.count)
      let isReachable = hole <= candidate ? (hole < home && home <= candidate) : (hole < home || home <= candidate)
      if !isReachable {
        slots[hole] = slots[candidate]
        slots[candidate].values = nil
        hole = candidate
      }
      candidate = (candidate + 1) & mask
    }
  }

  private mutating func grow() {
    let old = slots
    slots = ContiguousArray(repeating: Slot(key: 0, values: nil), count: old.count * 2)
    count = 0
    for slot in old { if let values = slot.values { set(values, for: ObjectID(rawValue: slot.key)) } }
  }

  /// A key's first slot in a table of `capacity` slots (a power of two):
  /// Fibonacci hashing, the top bits of the key times 2⁶⁴/φ, so that
  /// consecutive identifiers (the usual case) spread over the table.
  static func home(_ key: UInt64, capacity: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - capacity.trailingZeroBitCount))
  }
}
