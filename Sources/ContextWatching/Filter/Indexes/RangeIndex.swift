import PredicateDSL

/// Range watches of one attribute, by sorted bounds.
///
/// - Watches with only a lower bound (`key > c`) are sorted by it: a value
///   reaches exactly a prefix of them.
/// - Watches with only an upper bound (`key < c`) are sorted by it,
///   descending: again a prefix.
/// - Watches with both (`BETWEEN`) are grouped by the width of their
///   interval, in powers of two, and sorted by lower bound within a group:
///   an interval of width at most 2ᵏ that holds `v` starts at or after
///   `v - 2ᵏ`, so each group is scanned from a binary search to `v`. The
///   scan meets only intervals that start near the value, whatever their
///   number.
///
/// Insertion appends and the lists are sorted once per save, before
/// matching (`MasterFilter.prepareRanges`); removal leaves a stale entry
/// (recognised by its watch identifier) that the next sort after enough
/// removals drops. Both are O(1) when they happen. The small indexes under
/// the keys of a composite index are kept sorted and exact instead
/// (`insertInOrder`, `remove`).
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
  /// Intervals by the exponent of their width's power-of-two ceiling.
  @exclusivity(unchecked) private var intervals: [Int: [Entry]] = [:]
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
    case lowers, uppers
    case interval(widthClass: Int)
  }

  @discardableResult
  private func append(_ bounds: RangeBounds, id: WatchID) -> List {
    let entry = Entry(bounds: bounds, id: id)
    count += 1
    switch (entry.lower, entry.upper) {
    case (let lower?, let upper?):
      // Rounding large integers to doubles can shrink the width: add a few
      // units in the last place, so the class is never too small.
      let slack = 4 * max(abs(lower.approximate).ulp, abs(upper.approximate).ulp)
      let widthClass = Self.widthClass(upper.approximate - lower.approximate + slack)
      Self.append(entry, to: &intervals[widthClass, default: []])
      return .interval(widthClass: widthClass)
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

  /// The exponent of the smallest power of two at least `width` (clamped;
  /// empty, negative and NaN widths go to the first class).
  private static func widthClass(_ width: Double) -> Int {
    guard width > 1 else { return 0 }
    guard width.isFinite else { return 1100 }
    return Int(width.exponent) + 1
  }

  func noteRemoval() {
    stale += 1
    count -= 1
  }

  /// Inserts in order, for the small indexes under each key of a composite
  /// index: they stay sorted, so matching never has to sort them. The new
  /// entry moves down its list to its place: O(n), not a sort.
  func insertInOrder(_ bounds: RangeBounds, id: WatchID) {
    guard isSorted else { return insert(bounds, id: id) }
    switch append(bounds, id: id) {
    case .lowers: Self.moveLastIntoPlace(&lowers, by: Self.byLower)
    case .uppers: Self.moveLastIntoPlace(&uppers, by: Self.byUpper)
    case .interval(let widthClass): Self.moveLastIntoPlace(&intervals[widthClass]!, by: Self.byLower)
    }
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
    swap(&intervals, &other.intervals)
    swap(&isSorted, &other.isSorted)
    swap(&stale, &other.stale)
    swap(&count, &other.count)
  }

  /// Removes a watch at once, for the small indexes under each key.
  func remove(_ id: WatchID) {
    count -= removeEntries { $0.id == id }
  }

  /// Removes the entries `shouldRemove` picks from every list; returns
  /// how many.
  private func removeEntries(where shouldRemove: (Entry) -> Bool) -> Int {
    let before = lowers.count + uppers.count + intervals.values.reduce(0) { $0 + $1.count }
    lowers.removeAll(where: shouldRemove)
    uppers.removeAll(where: shouldRemove)
    for key in Array(intervals.keys) {
      intervals[key]!.removeAll(where: shouldRemove)
      if intervals[key]!.isEmpty { intervals[key] = nil }
    }
    return before - (lowers.count + uppers.count + intervals.values.reduce(0) { $0 + $1.count })
  }

  /// Sorts after insertions and drops stale entries after many removals.
  func prepare(live entries: [WatchEntry?]) {
    if stale > 32 && stale > count {
      _ = removeEntries { entries[$0.slot]?.id != $0.id }
      stale = 0
    }
    sortIfNeeded()
  }

  private func sortIfNeeded() {
    guard !isSorted else { return }
    lowers.sort(by: Self.byLower)
    uppers.sort(by: Self.byUpper)
    for key in Array(intervals.keys) { intervals[key]!.sort(by: Self.byLower) }
    isSorted = true
  }

  /// The slots of the live watches whose bounds admit `value`. The lists
  /// must be sorted: `prepare` (through `MasterFilter.prepareRanges`, once
  /// per save) or `insertInOrder` keeps them so.
  func collect(_ key: RangeKey, live entries: [WatchEntry?]?, into slots: SlotBuffer) {
    guard !key.isNaN else { return }
    // Indexes kept exact (removal at once) pass no entries, and an index
    // without stale entries needs no check: every entry is live.
    let liveness = Liveness(entries: entries, checks: entries != nil && stale > 0)
    if !lowers.isEmpty { collectLowers(key, liveness, into: slots) }
    if !uppers.isEmpty { collectUppers(key, liveness, into: slots) }
    guard !intervals.isEmpty else { return }
    for (widthClass, group) in intervals {
      // Intervals of this class that hold the value start at or after
      // value - 2^class; start a little lower, to absorb rounding.
      let reach = widthClass >= 1100 ? Double.infinity : Double(sign: .plus, exponent: widthClass, significand: 1)
      // The slack covers rounding: relative to the reach, one unit, and a
      // few units in the last place of the value (large integers).
      let slack = reach * 1e-9 + 1 + 4 * abs(key.approximate).ulp
      let threshold = RangeKey(.double(key.approximate - reach - slack))!
      var low = 0
      var high = group.count
      while low < high {
        let middle = (low + high) / 2
        if (RangeKey.order(group[middle].presentLower, threshold) ?? 1) < 0 { low = middle + 1 } else { high = middle }
      }
      slots.reserve(group.count - low)
      for entry in group[low...] {
        guard let order = RangeKey.order(key, entry.presentLower) else { break }
        if order < 0 { break }
        guard entry.admits(key), liveness.admits(entry) else { continue }
        slots.appendReserved(entry.slot)
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
    var end = Self.partition(lowers) { RangeKey.order($0.presentLower, key)! < 0 }
    slots.reserve(lowers.count)
    for entry in lowers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < lowers.count, RangeKey.order(lowers[end].presentLower, key) == 0 {
      if lowers[end].lowerIncluded && liveness.admits(lowers[end]) { slots.appendReserved(lowers[end].slot) }
      end += 1
    }
  }

  /// Upper bounds only, descending: the same from the other side.
  private func collectUppers(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    var end = Self.partition(uppers) { RangeKey.order($0.presentUpper, key)! > 0 }
    slots.reserve(uppers.count)
    for entry in uppers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < uppers.count, RangeKey.order(uppers[end].presentUpper, key) == 0 {
      if uppers[end].upperIncluded && liveness.admits(uppers[end]) { slots.appendReserved(uppers[end].slot) }
      end += 1
    }
  }

  /// The number of leading entries for which `isBefore` holds, in a list
  /// sorted so that those entries come first.
  @inline(__always)
  private static func partition(_ entries: [Entry], isBefore: (Entry) -> Bool) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if isBefore(entries[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
