// The filter's scratch storage: raw memory reused save after save, and the
// unchecked accesses of the classifier's hot path. Every unsafe invariant of
// the watcher's filter is listed here; the code that relies on one names it.
//
// 1. One caller at a time. `ScratchBuffer`, `Marks`, `MasterFilter.Memo`,
//    `RangeIndex` and `MasterFilter.KeyedWatches` turn off run-time
//    exclusivity checks (`@exclusivity(unchecked)`). Sound because each
//    belongs to one `MasterFilter`, which is non-copyable (no second filter
//    shares them) and reached only inside its `LockedState`'s lock, and
//    while one of their methods changes a property it calls nothing that
//    reaches the same object.
// 2. `ScratchBuffer` holds `count` initialized elements in `capacity`
//    allocated ones. `elements`, `mutableElements` and `slots` are views of
//    them, valid until the next `append`, `reserve` or `removeAll` of the same
//    buffer: nothing appends to a buffer while walking its own view (the
//    classifier walks one buffer and appends to another).
// 3. `appendReserved` writes without a capacity check: a `reserve` for at
//    least as many elements comes first (asserted in debug builds only).
//    `last` needs a non-empty buffer.
// 4. `Marks.storage` has a byte for every slot below `entries.count`:
//    `MasterFilter.add` grows the marks whenever it appends an entry. Marks
//    are clear between saves: the classifier takes (and clears) every mark
//    it sets.
// 5. `MasterFilter.Memo` has a generation and a result for every shared
//    predicate slot: `MasterFilter.sharedPredicate` grows it whenever it
//    appends one. Stamps are reset when the generation wraps, so a stale
//    stamp never equals the current generation.
// 6. `regrown(from:to:filling:)` copies bits and deallocates the old buffer:
//    it is for `BitwiseCopyable` elements only (nothing to deinitialize), and
//    its caller replaces the old pointer with the result at once.
// 7. `entries[slot].unsafelyUnwrapped` (matching, classifying, the
//    collector): the slot came from a bucket's lists, a key's watches, a
//    live range entry or a `SlotInfo` of a held watch. `removeEntry` takes a
//    slot out of every list before it empties the slot; the range indexes
//    that remove lazily skip entries whose slot no longer holds their watch
//    (`RangeIndex.Liveness`). A routed match's head holds a route (its
//    `SlotInfo.isRouted`).
// 8. `WatchImage` reads an attribute through the values' base address only
//    after checking the slot against their count (in release builds too).

/// A list in raw storage, reused object after object and save after save:
/// appending checks no uniqueness and clearing frees nothing, where an
/// array in the filter's struct would check on every write. The classifier's
/// lists of watch slots (``SlotBuffer``) and the collector's records and
/// matches are these.
final class ScratchBuffer<Element> {
  // Invariants 1 to 3 above.
  @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
  @exclusivity(unchecked) private(set) var count = 0
  @exclusivity(unchecked) private var capacity: Int

  init(capacity: Int = 64) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  var isEmpty: Bool { count == 0 }

  /// The elements, valid until the next change.
  var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

  /// The elements, writable in place (for sorting), valid until the next
  /// change.
  var mutableElements: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: count) }

  /// The last element, in place.
  var last: Element {
    get { base[count - 1] }
    set { base[count - 1] = newValue }
  }

  @inline(__always)
  func append(_ element: Element) {
    if count == capacity { grow() }
    (base + count).initialize(to: element)
    count += 1
  }

  /// Makes room for `additional` more elements: the `appendReserved` calls
  /// that follow check nothing, and a loop of them calls no function, so
  /// the lists it walks need no retain.
  @inline(__always)
  func reserve(_ additional: Int) {
    if count + additional > capacity { grow(to: count + additional) }
  }

  /// Appends an element there is room for (see `reserve`; checked in debug
  /// builds, where the tests run).
  @inline(__always)
  func appendReserved(_ element: Element) {
    assert(count < capacity, "appendReserved without reserve")
    (base + count).initialize(to: element)
    count += 1
  }

  func removeAll() {
    base.deinitialize(count: count)
    count = 0
  }

  /// Keeps the first `newCount` elements.
  func removeLast(_ dropped: Int) {
    (base + count - dropped).deinitialize(count: dropped)
    count -= dropped
  }

  /// Empties the list, and gives back its storage when it grew past
  /// `limit` elements (one very large save does not keep its scratch space
  /// for good).
  func removeAll(keepingCapacityUpTo limit: Int) {
    removeAll()
    guard capacity > limit else { return }
    base.deallocate()
    (base, capacity) = (.allocate(capacity: limit), limit)
  }

  private func grow(to minimum: Int = 0) {
    let newCapacity = Swift.max(capacity * 2, 16, minimum)
    let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    newBase.moveInitialize(from: base, count: count)
    base.deallocate()
    (base, capacity) = (newBase, newCapacity)
  }
}

/// Watch slots, for the classifier's candidates and matches.
typealias SlotBuffer = ScratchBuffer<Int>

extension ScratchBuffer<Int> {
  /// The slots, valid until the next change.
  var slots: UnsafeBufferPointer<Int> { elements }
}
