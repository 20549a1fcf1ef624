import ObjectGraph
import PredicateDSL

// Matching an object's image against the indexes and the residual
// predicates, and the marks and reads the classifier keeps per save.

extension MasterFilter {
  /// The watches that match `image`, into `matched`: candidates from the
  /// entity's bucket and its indexes, then their shared residual
  /// predicates, each evaluated once.
  /// Call `prepareRanges()` first, once per save.
  func matches(_ image: WatchImage, into matched: SlotBuffer, failures: inout [WatchFailure]) {
    matched.removeAll()
    let entity = image.layout.index
    guard buckets[entity].count > 0 else { return }
    memo.next()
    let unindexed = buckets[entity].unindexed.slots
    for slot in unindexed where test(slot, image, failures: &failures) { matched.append(slot) }
    if !buckets[entity].instances.isEmpty, let named = buckets[entity].instances[InstanceKey(image.snapshot.objectID)] {
      // Not filed in the indexes: their indexed conjuncts are tested here.
      for slot in named.slots where passesIndexedConjuncts(slot, image) && test(slot, image, failures: &failures) {
        matched.append(slot)
      }
    }
    for position in buckets[entity].indexes.indices {
      let attribute = buckets[entity].indexes[position].attribute
      let keys = buckets[entity].indexes[position].keys
      guard let keyed = image.withAttribute(attribute, { value in keys.watches(for: value) }) else { continue }
      for slot in keyed.plain.slots where test(slot, image, failures: &failures) { matched.append(slot) }
      // Kept sorted on insertion and removal: read-only here.
      let rangeAttribute = keyed.firstRangeAttribute
      guard rangeAttribute >= 0 else { continue }
      guard !keyed.hasRangedWithResidual else {
        collect(keyed, rangeAttribute, image, into: matched, failures: &failures)
        for (attribute, index) in keyed.moreRanges {
          collect(index, attribute, image, into: matched, failures: &failures)
        }
        continue
      }
      // The key and the range are the whole predicate: every candidate
      // matches.
      if let key = image.rangeKey(rangeAttribute) { keyed.collect(key, live: nil, into: matched) }
      for (attribute, index) in keyed.moreRanges {
        if let key = image.rangeKey(attribute) { index.collect(key, live: nil, into: matched) }
      }
    }
    if !buckets[entity].ranges.isEmpty {
      for (attribute, index) in buckets[entity].ranges {
        guard let key = image.rangeKey(attribute) else { continue }
        rangeCandidates.removeAll()
        index.collectBuffered(key, live: entries, into: rangeCandidates)
        for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
      }
    }
    guard !buckets[entity].textRanges.isEmpty else { return }
    for (attribute, index) in buckets[entity].textRanges {
      rangeCandidates.removeAll()
      image.withAttribute(attribute) { value in index.collect(value, live: entries, into: rangeCandidates) }
      for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
    }
  }

  /// The candidates of one range index that match `image`, into `matched`.
  @inline(__always)
  func collect(
    _ index: RangeIndex, _ attribute: Int, _ image: WatchImage, live: [WatchEntry?]? = nil, into matched: SlotBuffer,
    failures: inout [WatchFailure]
  ) {
    guard let key = image.rangeKey(attribute) else { return }
    rangeCandidates.removeAll()
    index.collect(key, live: live, into: rangeCandidates)
    for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
  }

  /// Sorts the range indexes that watches were added to, and drops their
  /// removed entries when many are pending, and builds the trees that
  /// insertions under equality keys dropped: once per save, before
  /// matching, so that matching reads the filter without changing it.
  mutating func prepareRanges() {
    if !unbuiltTrees.isEmpty {
      for index in unbuiltTrees { index.buildTree() }
      unbuiltTrees.removeAll()
    }
    for bucket in buckets {
      for index in bucket.ranges.values { index.prepareBuffered(live: entries) }
      for index in bucket.textRanges.values { index.prepare(live: entries) }
    }
  }

  /// Counts a watch's reads in or out of an entity's bucket (`change` is 1
  /// or -1).
  mutating func countReads(_ mask: UInt64?, _ change: Int, in entity: Int) {
    guard var mask else {
      broadReaders[entity] += change
      return
    }
    while mask != 0 {
      let slot = mask.trailingZeroBitCount
      readerCounts[entity][slot] += change
      if readerCounts[entity][slot] == 0 {
        readMasks[entity] &= ~(1 << UInt64(slot))
      } else {
        readMasks[entity] |= 1 << UInt64(slot)
      }
      mask &= mask - 1
    }
  }

  /// Whether an update changed none of the attributes that the watches of
  /// its entity read, so that it matches the same watches before and after.
  @inline(__always)
  func readsUnchanged(_ update: borrowing ObjectUpdate, entity: Int) -> Bool {
    broadReaders[entity] == 0 && update.changedAttributes & readMasks[entity] == 0
  }

  /// Marks for classifying an update: bit 0 matched before, bit 1 after.
  func mark(_ slot: Int, _ bit: UInt8) {
    marks.storage[slot] |= bit
  }

  /// Takes a slot's marks and clears them.
  func takeMarks(_ slot: Int) -> UInt8 {
    defer { marks.storage[slot] = 0 }
    return marks.storage[slot]
  }

  /// Whether one watch matches `image`, whatever the index says (for
  /// objects reached through relationships, and for `explain`).
  func matches(_ slot: Int, _ image: WatchImage, failures: inout [WatchFailure]) -> Bool {
    guard let entry = entries[slot], image.layout.isKind(of: entry.entity) else { return false }
    guard passesIndexedConjuncts(slot, image) else { return false }
    memo.next()
    return test(slot, image, failures: &failures)
  }

  /// Whether `image` passes the conjuncts of a watch's predicate that an
  /// index would serve (its equality and range; none for most watches of
  /// an instance filter), which its residual leaves out.
  @inline(__always)
  func passesIndexedConjuncts(_ slot: Int, _ image: WatchImage) -> Bool {
    guard slotInfo[slot].hasIndexedConjunct else { return true }
    let entry = entries[slot].unsafelyUnwrapped
    if let index = entry.index, !index.admits(image.attribute(entry.indexSlot)) { return false }
    if let (rangeSlot, bounds) = entry.secondary, !bounds.contains(image.attribute(rangeSlot)) { return false }
    return true
  }

  func test(_ slot: Int, _ image: WatchImage, failures: inout [WatchFailure]) -> Bool {
    let predicate = Int(slotInfo[slot].predicate)
    if let known = memo.result(predicate) { return known }
    let result: Bool
    do {
      result = try filters[predicate].evaluate(image)
    } catch {
      failures.append(WatchFailure(watch: slotInfo[slot].id, objectID: image.snapshot.objectID, error: error))
      result = false
    }
    memo.record(predicate, result)
    return result
  }

  /// The watches (by slot) that read into objects of `entity` through
  /// relationships, with the dependencies concerned.
  func dependents(of entity: EntityLayout) -> [Int: Set<Int>] { dependents[entity.index] }

  /// Whether some watch reads through relationships into objects of the
  /// entity with this index.
  func hasDependents(entity: Int) -> Bool { !dependents[entity].isEmpty }

  /// Whether some watch reads through relationships at all.
  var hasDependents: Bool { dependents.contains { !$0.isEmpty } }
}
