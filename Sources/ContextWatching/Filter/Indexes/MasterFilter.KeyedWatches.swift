extension MasterFilter {
  /// The watches filed under one key of an equality index: those whose
  /// predicate has nothing more to index, and those narrowed by a range on
  /// another attribute (a composite index: `city == 'Oslo' AND age > 30`
  /// reaches an Oslo object only if its age passes the bound). A class, so
  /// that a lookup hands out one reference instead of copying the lists.
  ///
  /// It is itself the range index of the first attribute its watches are
  /// narrowed by (`firstRangeAttribute`): registering and matching reach
  /// those bounds through the key's object, one memory access and one
  /// allocation fewer than a separate index, which counts when the key
  /// tables are too large for the caches. Further attributes have their
  /// own indexes (`moreRanges`).
  final class KeyedWatches: RangeIndex {
    /// The key these watches are filed under.
    let key: IndexKey
    /// The watches of another key with the same fingerprint (a hash
    /// collision, or an exact fingerprint of another kind).
    // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
    @exclusivity(unchecked) var collision: KeyedWatches?
    @exclusivity(unchecked) var plain = SlotList()
    /// Range indexes of further attributes; an entity has few attributes.
    @exclusivity(unchecked) private(set) var moreRanges: [(attribute: Int, index: RangeIndex)] = []
    /// The attribute slot of the bounds this object indexes as a range
    /// index; -1 while no watch under the key has a range. (This and the
    /// next are 32 bits, side by side: a key's object is a word smaller.)
    @exclusivity(unchecked) private var firstRangeSlot: Int32 = -1
    /// How many watches in the range indexes have more to their predicate
    /// than the key and the range (a residual to evaluate). With none, the
    /// range indexes' candidates are matches, collected without a test.
    @exclusivity(unchecked) private var rangedWithResidualCount: Int32 = 0

    /// The attribute slot of the bounds this object indexes, or -1.
    var firstRangeAttribute: Int { Int(firstRangeSlot) }
    /// Whether some watch in the range indexes has a residual.
    var hasRangedWithResidual: Bool { rangedWithResidualCount != 0 }

    init(key: IndexKey) {
      self.key = key
      super.init()
    }

    var isEmpty: Bool { plain.isEmpty && firstRangeSlot < 0 }

    /// Files a watch narrowed by a range on `attribute`; `hasResidual` tells
    /// whether its predicate has more to evaluate. Returns the range index
    /// that has just started waiting for its tree (`insertInOrder`), to be
    /// built before the next matching; nil when none has.
    func insert(_ bounds: RangeBounds, on attribute: Int, id: WatchID, hasResidual: Bool) -> RangeIndex? {
      if hasResidual { rangedWithResidualCount += 1 }
      if firstRangeSlot == attribute {
        return insertInOrder(bounds, id: id) ? self : nil
      } else if firstRangeSlot < 0 {
        firstRangeSlot = Int32(attribute)
        return insertInOrder(bounds, id: id) ? self : nil
      } else if let position = moreRanges.firstIndex(where: { $0.attribute == attribute }) {
        let index = moreRanges[position].index
        return index.insertInOrder(bounds, id: id) ? index : nil
      } else {
        let index = RangeIndex()
        index.insertInOrder(bounds, id: id)
        moreRanges.append((attribute, index))
        return nil
      }
    }

    func remove(_ id: WatchID, on attribute: Int, hasResidual: Bool) {
      if hasResidual { rangedWithResidualCount -= 1 }
      if firstRangeAttribute == attribute {
        remove(id)
        guard count == 0 else { return }
        // The next index, if any, moves up: `firstRangeAttribute` is -1
        // only when no range index is left.
        if moreRanges.isEmpty {
          firstRangeSlot = -1
        } else {
          let (next, index) = moreRanges.removeFirst()
          takeEntries(of: index)
          firstRangeSlot = Int32(next)
        }
      } else if let position = moreRanges.firstIndex(where: { $0.attribute == attribute }) {
        moreRanges[position].index.remove(id)
        if moreRanges[position].index.count == 0 { moreRanges.remove(at: position) }
      }
    }
  }
}
