import PredicateDSL

/// Range watches of one attribute, by sorted bounds.
///
/// - Watches with only a lower bound (`key > c`) are sorted by it: a value
///   reaches exactly a prefix of them.
/// - Watches with only an upper bound (`key < c`) are sorted by it,
///   descending: again a prefix.
/// - Watches with both (`BETWEEN`, `key >= a AND key < b`) are sorted by
///   lower bound, and a tree of maxima over that order (`MaximaTree`) holds, for
///   each run of entries, the greatest upper bound among them and the
///   least lower bound. A search descends into the runs that start at or
///   below the value and whose greatest upper bound admits it: O(log n)
///   nodes per range reported, whatever the widths and overlaps. The
///   tree's nodes hold their bounds as doubles rounded outwards, which
///   only rule runs out; whether a watch matches is decided exactly
///   (`RangeKey.order`) on its entry.
///
/// Insertion appends and the lists are sorted (and the tree rebuilt, O(n))
/// once per save, before matching (`MasterFilter.prepareRanges`); the
/// index of a bucket (`BufferedRangeIndex`) keeps later registrations in a
/// small index of their own, so that a save sorts only those; removal
/// leaves a stale entry (recognised by its watch identifier) that the next
/// sort after enough removals drops. Both are O(1) when they happen. The
/// small indexes under the keys of a composite index are kept sorted and
/// exact instead (`insertInOrder`, `remove`). Once they hold more than
/// `TreeOfMaxima.minimumCount` ranges they have a tree, which removal rebuilds
/// at once and insertion drops: the filter builds it again before the next
/// matching (`buildTree`, through `MasterFilter.prepareRanges`), once for
/// all the insertions since, and until then matching scans the ranges.
///
/// A class: matching reaches an index through one reference, where a
/// struct read out of the lists that hold it would be copied, a retain for
/// each of its lists. Not final: the watches under a key of an equality
/// index (`MasterFilter.KeyedWatches`) are the range index of their first
/// ranged attribute. Nothing is overridden, so calls are direct.
class RangeIndex {
  /// 32 bytes: the bounds (17), the watch's slot in the 4 bytes after them
  /// (a copy of the identifier's, read without masking), and the watch.
  struct Entry {
    var bounds: RangeBounds
    private var slotBits: UInt32
    var id: WatchID

    init(bounds: RangeBounds, id: WatchID) {
      self.bounds = bounds
      slotBits = UInt32(truncatingIfNeeded: id.slot)
      self.id = id
    }

    var slot: Int { Int(slotBits) }

    var lower: RangeKey? { bounds.lower }
    /// The lower bound, in lists whose entries all have one.
    var presentLower: RangeKey { bounds.presentLower }
    /// The upper bound, in lists whose entries all have one.
    var presentUpper: RangeKey { bounds.presentUpper }
    var lowerIncluded: Bool { bounds.lowerIncluded }
    var upper: RangeKey? { bounds.upper }
    var upperIncluded: Bool { bounds.upperIncluded }

    @inline(__always)
    func admits(_ value: RangeKey) -> Bool { bounds.contains(value) }
  }

  // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
  @exclusivity(unchecked) private var lowers: [Entry] = []
  @exclusivity(unchecked) private var uppers: [Entry] = []
  /// Ranges bounded on both sides, by lower bound.
  @exclusivity(unchecked) private var bounded: [Entry] = []
  /// The greatest upper bounds over runs of `bounded`; empty while
  /// they are few enough to scan.
  @exclusivity(unchecked) private var maxima = MaximaTree()
  @exclusivity(unchecked) private(set) var count = 0
  /// Removed watches whose entries are still in the lists (at most the
  /// watches a watcher holds, 2²⁴); 32 bits beside `isSorted`, so that the
  /// object of a key of an equality index (`MasterFilter.KeyedWatches`)
  /// is a word smaller.
  @exclusivity(unchecked) private var stale: Int32 = 0
  @exclusivity(unchecked) private var isSorted = true

  /// Files a watch; the lists are sorted again once per save, before
  /// matching (`MasterFilter.prepareRanges`).
  func insert(_ bounds: RangeBounds, id: WatchID) {
    append(bounds, id: id)
    isSorted = false
  }

  /// The list an entry went to.
  private enum List {
    case lowers, uppers, bounded
  }

  @discardableResult
  private func append(_ bounds: RangeBounds, id: WatchID) -> List {
    let entry = Entry(bounds: bounds, id: id)
    count += 1
    switch (entry.lower, entry.upper) {
    case (.some, .some):
      Self.append(entry, to: &bounded)
      return .bounded
    case (.some, nil):
      Self.append(entry, to: &lowers)
      return .lowers
    default:
      Self.append(entry, to: &uppers)
      return .uppers
    }
  }

  /// Appends to a list, making room for four at its second entry, as
  /// `MasterFilter.SlotList` does: the small indexes under the keys of a
  /// composite index mostly hold one watch, and growing one at a time
  /// allocates at 2, 4 and 8.
  private static func append(_ entry: Entry, to list: inout [Entry]) {
    if list.count == 1 { list.reserveCapacity(4) }
    list.append(entry)
  }

  func noteRemoval() {
    stale += 1
    count -= 1
  }

  /// Inserts in order, for the small indexes under each key of a composite
  /// index: they stay sorted, so matching never has to sort them. The new
  /// entry moves down its list to its place: O(n), not a sort.
  ///
  /// A range drops the tree, which `buildTree` builds again; returns
  /// whether the index has just started waiting for it (more ranges
  /// than are scanned, and no tree): the caller lists it for the next
  /// `MasterFilter.prepareRanges`. False when it was waiting already.
  @discardableResult
  func insertInOrder(_ bounds: RangeBounds, id: WatchID) -> Bool {
    guard isSorted else {
      insert(bounds, id: id)
      return false
    }
    switch append(bounds, id: id) {
    case .lowers:
      Self.moveLastIntoPlace(&lowers, by: Self.byLower)
      return false
    case .uppers:
      Self.moveLastIntoPlace(&uppers, by: Self.byUpper)
      return false
    case .bounded:
      Self.moveLastIntoPlace(&bounded, by: Self.byLower)
      let wasWaiting = !maxima.isBuilt && bounded.count - 1 > TreeOfMaxima.minimumCount
      maxima.drop()
      return !wasWaiting && bounded.count > TreeOfMaxima.minimumCount
    }
  }

  /// Builds the tree of an index kept in order, if it has none and needs
  /// one: its ranges' last insertion dropped it.
  final func buildTree() {
    if isSorted && !maxima.isBuilt { maxima.build(over: bounded) }
  }

  private static func byLower(_ a: Entry, _ b: Entry) -> Bool {
    (RangeKey.order(a.presentLower, b.presentLower) ?? 0) < 0
  }
  /// Upper bounds descend: a value reaches a prefix of them.
  private static func byUpper(_ a: Entry, _ b: Entry) -> Bool {
    (RangeKey.order(a.presentUpper, b.presentUpper) ?? 0) > 0
  }

  /// Moves a sorted list's last element down to its place.
  private static func moveLastIntoPlace(_ list: inout [Entry], by areInIncreasingOrder: (Entry, Entry) -> Bool) {
    var position = list.count - 1
    let entry = list[position]
    while position > 0, areInIncreasingOrder(entry, list[position - 1]) {
      list[position] = list[position - 1]
      position -= 1
    }
    list[position] = entry
  }

  /// Takes the entries of `other` (emptied) in place of this index's,
  /// which must have none: a key's next range index moving up into the
  /// key's object.
  final func takeEntries(of other: RangeIndex) {
    precondition(count == 0, "an index with entries cannot take others")
    swap(&lowers, &other.lowers)
    swap(&uppers, &other.uppers)
    swap(&bounded, &other.bounded)
    swap(&maxima, &other.maxima)
    swap(&isSorted, &other.isSorted)
    swap(&stale, &other.stale)
    swap(&count, &other.count)
    // The tree `other` waited for, if any: built here, as `other` is the
    // one listed for it.
    buildTree()
  }

  /// Removes a watch at once, for the small indexes under each key.
  func remove(_ id: WatchID) {
    count -= removeEntries { $0.id == id }
    if isSorted { maxima.build(over: bounded) }
  }

  /// Removes the entries `shouldRemove` picks from every list; returns
  /// how many.
  private func removeEntries(where shouldRemove: (Entry) -> Bool) -> Int {
    let before = lowers.count + uppers.count + bounded.count
    lowers.removeAll(where: shouldRemove)
    uppers.removeAll(where: shouldRemove)
    bounded.removeAll(where: shouldRemove)
    return before - (lowers.count + uppers.count + bounded.count)
  }

  /// Sorts after insertions and drops stale entries after many removals
  /// (from `pending` too, the index of recent registrations whose removals
  /// this one counts).
  func prepare(live entries: [WatchEntry?], pending: RangeIndex? = nil) {
    if BufferedRegistration.shouldDropStale(stale: Int(stale), live: count + (pending?.count ?? 0)) {
      _ = removeEntries { entries[$0.slot]?.id != $0.id }
      stale = 0
      // Removal keeps the order: only the tree changes.
      if isSorted { maxima.build(over: bounded) }
      if let pending {
        _ = pending.removeEntries { entries[$0.slot]?.id != $0.id }
        if pending.isSorted { pending.maxima.build(over: pending.bounded) }
      }
    }
    pending?.sortIfNeeded()
    sortIfNeeded()
  }

  /// The entries in the lists, stale ones included.
  final var entryCount: Int { lowers.count + uppers.count + bounded.count }

  /// Whether some removed watch's entry is still in the lists.
  final var hasStaleEntries: Bool { stale > 0 }

  /// Whether the lists are sorted: no insertion since the last `prepare`.
  final var isPrepared: Bool { isSorted }

  /// Moves the entries of `other` (emptied) into this index's lists, with
  /// its count of live watches, to be sorted in by the next `prepare`.
  final func absorb(_ other: RangeIndex) {
    lowers += other.lowers
    uppers += other.uppers
    bounded += other.bounded
    count += other.count
    stale += other.stale
    other.lowers = []
    other.uppers = []
    other.bounded = []
    other.count = 0
    other.stale = 0
    isSorted = false
  }

  private func sortIfNeeded() {
    guard !isSorted else { return }
    lowers.sort(by: Self.byLower)
    uppers.sort(by: Self.byUpper)
    bounded.sort(by: Self.byLower)
    maxima.build(over: bounded)
    isSorted = true
  }

  /// The slots of the live watches whose bounds admit `value`. The lists
  /// must be sorted: `prepare` (through `MasterFilter.prepareRanges`, once
  /// per save) or `insertInOrder` keeps them so.
  func collect(_ key: RangeKey, live entries: [WatchEntry?]?, into slots: SlotBuffer) {
    // Indexes kept exact (removal at once) pass no entries, and an index
    // without stale entries needs no check: every entry is live.
    collect(key, Liveness(entries: entries, checks: entries != nil && stale > 0), into: slots)
  }

  /// The same, checking each entry's watch is live when `checks` holds:
  /// for an index whose removals another one counts (`BufferedRangeIndex`).
  final func collect(_ key: RangeKey, live entries: [WatchEntry?], checks: Bool, into slots: SlotBuffer) {
    collect(key, Liveness(entries: entries, checks: checks), into: slots)
  }

  @inline(__always)
  private func collect(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    guard !key.isNaN else { return }
    if !lowers.isEmpty { collectLowers(key, liveness, into: slots) }
    if !uppers.isEmpty { collectUppers(key, liveness, into: slots) }
    if !bounded.isEmpty { collectBounded(key, liveness, into: slots) }
  }

  /// Ranges, by lower bound: those that start at or below the value (a
  /// prefix) and whose upper bound admits it. Few are scanned; more are
  /// reached through the tree of greatest upper bounds.
  private func collectBounded(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    guard maxima.isBuilt else {
      let end = bounded.partitionPoint { RangeKey.order($0.pointee.presentLower, key)! <= 0 }
      slots.reserve(end)
      for entry in bounded[..<end] where entry.admits(key) && liveness.admits(entry) {
        slots.appendReserved(entry.slot)
      }
      return
    }
    bounded.withUnsafeBufferPointer { entries in
      maxima.visit(holding: key, of: entries) { entry in
        if liveness.admits(entry) { slots.append(entry.slot) }
      }
    }
  }

  /// Whether an entry's watch is still there: checked only where removals
  /// are lazy and some are pending. A value, not a closure, so that the
  /// loops below inline the check.
  private struct Liveness {
    let entries: [WatchEntry?]?
    let checks: Bool

    @inline(__always)
    func admits(_ entry: Entry) -> Bool {
      !checks || entries.unsafelyUnwrapped[entry.slot]?.id == entry.id
    }
  }

  /// Lower bounds only, ascending: the value passes every bound below it
  /// (a prefix, found by binary search) and the bounds equal to it that
  /// include it.
  private func collectLowers(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    var end = lowers.partitionPoint { RangeKey.order($0.pointee.presentLower, key)! < 0 }
    slots.reserve(lowers.count)
    for entry in lowers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < lowers.count, RangeKey.order(lowers[end].presentLower, key) == 0 {
      if lowers[end].lowerIncluded && liveness.admits(lowers[end]) { slots.appendReserved(lowers[end].slot) }
      end += 1
    }
  }

  /// Upper bounds only, descending: the same from the other side.
  private func collectUppers(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    var end = uppers.partitionPoint { RangeKey.order($0.pointee.presentUpper, key)! > 0 }
    slots.reserve(uppers.count)
    for entry in uppers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < uppers.count, RangeKey.order(uppers[end].presentUpper, key) == 0 {
      if uppers[end].upperIncluded && liveness.admits(uppers[end]) { slots.appendReserved(uppers[end].slot) }
      end += 1
    }
  }

}
