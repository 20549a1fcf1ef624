import ObjectGraph
import PredicateDSL

/// A list monitor's whole list, every matching object (the limit applies
/// when the list is read), and how a batch of edits changes it.
///
/// Only the monitor's delivery queue touches a `ListState`; readers get
/// copies of ``content``.
struct ListState: Sendable {
  /// Every matching object in order (beyond the limit too, so that an
  /// object leaving the window lets the next one in), and the sections.
  var content: ListContent
  /// The listed objects' attribute values by identifier (its raw value),
  /// as ``content`` holds them: enough to search the list for an object
  /// whose values changed (see ``member(_:)``). One identifier and one
  /// reference a bucket, at most four-fifths full: about 21 bytes a
  /// listed object at 100,000, where a `Dictionary` of snapshots would take
  /// 105.
  private var values: ProbingTable<[FilterValue]>
  /// The listed objects' ``ListedObject/derived`` values, for an order
  /// that reads relationships; empty otherwise.
  private var derivedValues: [ObjectID: [FilterValue]]
  /// The last save applied.
  var sequenceNumber: Int

  init(order: ListOrder, limit: Int?, sectionName: @escaping @Sendable (FilterValue) -> String?, sequenceNumber: Int) {
    content = ListContent(
      objects: OrderStatisticTree(), sectionCounts: OrderStatisticTree(), order: order, limit: limit ?? Int.max,
      sectionName: sectionName)
    values = ProbingTable(maximumLoad: 80)
    derivedValues = [:]
    self.sequenceNumber = sequenceNumber
  }

  var order: ListOrder { content.order }

  /// Loads objects into an empty list.
  ///
  /// - Complexity: O(*n* log *n*).
  mutating func load(_ objects: [ListedObject]) {
    let order = content.order
    let sorted = Self.sorted(objects, by: order)
    content.objects = OrderStatisticTree(sorted: sorted)
    values = ProbingTable(minimumCapacity: sorted.count, maximumLoad: 80)
    for object in sorted { values.updateValue(object.snapshot.values, for: object.objectID.rawValue) }
    derivedValues =
      order.paths.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: sorted.lazy.map { ($0.objectID, $0.derived) })
    var sections: [SectionCount] = []
    if order.isSectioned {
      for object in sorted {
        let key = order.sectionKey(of: object)
        if let last = sections.last, order.isSameSection(last.key, key) {
          sections[sections.count - 1].count += 1
        } else {
          sections.append(SectionCount(key: key, count: 1))
        }
      }
    }
    content.sectionCounts = OrderStatisticTree(sorted: sections)
  }

  /// `objects` in list order. Their positions are sorted, each comparison
  /// reading the two objects where they lie: sorting the objects themselves
  /// copied each compared pair (their snapshots' references retained and
  /// released), most of a first fetch's time.
  private static func sorted(_ objects: [ListedObject], by order: ListOrder) -> [ListedObject] {
    // Invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    objects.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return [] }
      var positions = Array(0..<buffer.count)
      positions.sort { order.isBefore(base + $0, base + $1) }
      return positions.map { buffer[$0] }
    }
  }

  // MARK: Edits

  /// An object whose place or presence an edit changes, and where it was.
  ///
  /// Its object after the edits and its changed keys stay in the plan's
  /// edit number ``edit``: a plan copies no listed object it can read
  /// there (each copy retains four references, released with the plan).
  fileprivate struct Touched {
    /// The index of the object's edit in ``Plan/edits``.
    let edit: Int
    let objectID: ObjectID
    /// The object as it was listed, kept only when the edits may report
    /// it deleted: when it leaves the list, or when the list has a limit
    /// (it may go past it); nil otherwise, and for an object not listed.
    let old: ListedObject?
    /// The section of the object as it was listed, when it leaves its
    /// section (``staysInSection`` is false) in a sectioned list; nil
    /// otherwise.
    let oldSection: SectionKey?
    /// Whether the object leaves its old place (or had none, or has none
    /// now): false for an object updated where it stands.
    let isRepositioned: Bool
    /// Whether the object is listed before and after the edits, in one
    /// section (always, in a list without sections).
    let staysInSection: Bool
    /// Its rank in the list before the edits.
    let oldRank: Int?
    /// Its neighbours before the edits (nil at either end), for an object
    /// that stays listed and is repositioned.
    let oldNeighbours: (before: ObjectID?, after: ObjectID?)?
  }

  /// An object no edit touches, close enough to the limit that the edits
  /// may carry it across.
  fileprivate struct Bystander {
    let object: ListedObject
    let oldRank: Int
  }

  /// A section an edit may create, empty or carry across the limit: its
  /// place before the edits.
  fileprivate struct SectionBefore {
    let key: SectionKey
    /// The section's index and listed objects before the edits, when it
    /// was listed (within the limit). Its name is made only for a section
    /// the edits delete.
    let listed: (index: Int, count: Int)?
  }

  /// What a save's edits will do, read from the list before they change
  /// it: the old coordinates of everything that may change. Valid until
  /// the list changes otherwise.
  struct Plan {
    /// The save's edits, as ``prepare(_:sequenceNumber:)`` received them.
    fileprivate var edits: [ListEdit]
    fileprivate var touched: [Touched]
    fileprivate var bystanders: [Bystander]
    fileprivate var sections: [SectionBefore]
    fileprivate var oldPaths: [ListIndexPath?]
    fileprivate var bystanderPaths: [ListIndexPath?]
    /// Whether an edit changes a section's count (every object stays in its
    /// section otherwise): only then can sections come or go, or an
    /// object's section index or a section's start change.
    fileprivate var changesSectionCounts: Bool
    /// Whether the listed objects (within the limit) change: only then do
    /// observers hear of the save.
    let changesListedObjects: Bool
    let sequenceNumber: Int
  }

  /// Reads where a save's edits stand in the list before they apply.
  ///
  /// The old coordinates are read before anything changes, so that no copy
  /// of the old list is kept (which would make every edit copy the nodes
  /// on its path).
  ///
  /// - Complexity: O(*k* log *n*) for *k* edits in a list of *n* objects.
  func prepare(_ edits: [ListEdit], sequenceNumber: Int) -> Plan {
    // Pointers handed to the closures below: invariant 3 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift; `new`, read
    // unwrapped where `hasNew` holds, invariant 9.
    let order = content.order
    let limit = content.limit
    let (loaded, oldKeys) = touchSearchPaths(edits)

    // Where each touched object stands, and whether any of them is, or
    // will be, within the limit.
    var touched: [Touched] = []
    touched.reserveCapacity(edits.count)
    var isListedChange = false
    var shift = 0
    // By index, not `for edit in edits`, which would copy each edit whole
    // (its object's references retained, then released).
    for index in edits.indices {
      let objectID = edits[index].objectID
      let hasNew = edits[index].new != nil
      // Read from the listed object in place: whether its sort values
      // change, and whether it leaves its section. Two flags, so that
      // handing them out copies no reference.
      let member = self.member(objectID, key: oldKeys.isEmpty ? nil : oldKeys[index]) {
        listed -> (inPlace: Bool, leavesSection: Bool) in
        guard hasNew else { return (false, order.isSectioned) }
        let new = edits[index].new.unsafelyUnwrapped
        let inPlace = order.hasSameKeys(listed, new)
        let leavesSection =
          !inPlace && order.isSectioned
          && !order.isSameSection(order.sectionKey(of: listed.pointee), order.sectionKey(of: new))
        return (inPlace, leavesSection)
      }
      let touchedObject: Touched
      if let (rank, (inPlace, leavesSection)) = member {
        if rank < limit { isListedChange = true }
        // The object as listed, only when the edits may report it deleted
        // (it leaves the list, or may go past the limit), and its section
        // only when it leaves it: each read again by rank, which is rare.
        let old = !hasNew || limit < Int.max ? content.objects[rank] : nil
        let oldSection =
          leavesSection ? content.objects.read(rank) { order.sectionKey(of: $0.pointee) } : nil
        if hasNew {
          if !inPlace {
            shift += 1
            // Where the object would go among the old list: within the
            // limit, it changes what is listed.
            if !isListedChange && content.rank(of: edits[index].new.unsafelyUnwrapped) < limit {
              isListedChange = true
            }
          }
          touchedObject = Touched(
            edit: index, objectID: objectID, old: old, oldSection: oldSection, isRepositioned: !inPlace,
            staysInSection: oldSection == nil, oldRank: rank,
            oldNeighbours: inPlace ? nil : neighbours(rank))
        } else {
          shift += 1
          touchedObject = Touched(
            edit: index, objectID: objectID, old: old, oldSection: oldSection, isRepositioned: true,
            staysInSection: false, oldRank: rank, oldNeighbours: nil)
        }
      } else {
        guard !edits[index].isRelatedOnly, hasNew else { continue }
        shift += 1
        if !isListedChange && content.rank(of: edits[index].new.unsafelyUnwrapped) < limit { isListedChange = true }
        touchedObject = Touched(
          edit: index, objectID: objectID, old: nil, oldSection: nil, isRepositioned: true, staysInSection: false,
          oldRank: nil, oldNeighbours: nil)
      }
      touched.append(touchedObject)
    }
    // Keeps the loads: a sum of bytes is never negative.
    guard loaded >= 0 else { preconditionFailure("a sum of bytes cannot be negative") }
    guard isListedChange else {
      return Plan(
        edits: edits, touched: touched, bystanders: [], sections: [], oldPaths: [], bystanderPaths: [],
        changesSectionCounts: false,
        changesListedObjects: false, sequenceNumber: sequenceNumber)
    }

    // Objects no edit touches cross the limit only when others leave or
    // enter before them, so only those within `shift` places of it can,
    // before or after: take every object within twice that before.
    var bystanders: [Bystander] = []
    if limit < Int.max && shift > 0 {
      var touchedIDs = Set<ObjectID>(minimumCapacity: touched.count)
      for object in touched { touchedIDs.insert(object.objectID) }
      let low = Swift.max(0, limit - 2 * shift)
      let high = Swift.min(content.objects.count, limit + 2 * shift)
      if low < high {
        for rank in low..<high where !touchedIDs.contains(content.objects.read(rank) { $0.pointee.snapshot.objectID }) {
          bystanders.append(Bystander(object: content.objects[rank], oldRank: rank))
        }
      }
    }
    var sections: [SectionBefore] = []
    let changesSectionCounts = order.isSectioned && touched.contains { !$0.staysInSection }
    if changesSectionCounts {
      var keys: [SectionKey] = []
      // An object that stays in its section is in its new object's.
      for object in touched {
        if let old = object.oldSection { keys.append(old) }
        if let new = edits[object.edit].new { keys.append(order.sectionKey(of: new)) }
      }
      for bystander in bystanders { keys.append(order.sectionKey(of: bystander.object)) }
      // Each section once: sections are few next to objects, and sorting
      // the keys puts equal ones side by side.
      keys.sort { order.isSectionBefore($0, $1) }
      var previous: SectionKey?
      for key in keys {
        if let previous, order.isSameSection(previous, key) { continue }
        previous = key
        let index = content.listedSectionIndex(of: key)
        sections.append(SectionBefore(key: key, listed: index.map { ($0, content.listedCount(ofSectionAt: $0)) }))
      }
    }
    let oldPaths = touched.map { object in
      object.oldRank.flatMap { $0 < limit ? content.indexPath(rank: $0) : nil }
    }
    let bystanderPaths = bystanders.map {
      $0.oldRank < limit ? content.indexPath(rank: $0.oldRank) : nil
    }
    return Plan(
      edits: edits, touched: touched, bystanders: bystanders, sections: sections, oldPaths: oldPaths,
      bystanderPaths: bystanderPaths,
      changesSectionCounts: changesSectionCounts, changesListedObjects: true, sequenceNumber: sequenceNumber)
  }

  /// Applies a prepared save's edits in place and tells what they did to
  /// the listed objects as a batch update (empty when
  /// ``Plan/changesListedObjects`` is false).
  ///
  /// - Complexity: O(*k* log *n*) for *k* edits in a list of *n* objects.
  mutating func commit(_ plan: Plan) -> ListChanges {
    sequenceNumber = plan.sequenceNumber
    content.generation += 1
    let insertedAt = apply(plan.touched, edits: plan.edits)
    var changes = ListChanges(sequenceNumber: plan.sequenceNumber)
    guard plan.changesListedObjects else { return changes }
    let (edits, touched, bystanders, sections) = (plan.edits, plan.touched, plan.bystanders, plan.sections)
    let (oldPaths, bystanderPaths) = (plan.oldPaths, plan.bystanderPaths)
    let limit = content.limit

    var repositioned: [ObjectID] = []
    repositioned.reserveCapacity(touched.count)
    for index in touched.indices where touched[index].isRepositioned { repositioned.append(touched[index].objectID) }
    let moverCount = repositioned.count
    repositioned.sort()
    let newRanks = ranksAfterEdits(of: touched, edits: edits, insertedAt: insertedAt, moverCount: moverCount)
    changes.moved.reserveCapacity(moverCount)
    changes.updated.reserveCapacity(touched.count - moverCount)
    // By index, not `for object in touched`, which would copy each
    // touched object (its references retained, then released).
    // `old` and `new` read unwrapped: invariant 9 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    for index in touched.indices {
      let from = oldPaths[index]
      let newRank = newRanks[index]
      let to = newRank.flatMap { rank -> ListIndexPath? in
        guard rank < limit else { return nil }
        // With every section's count as it was, an object stays at its
        // section's index, and the section starts where it did.
        if !plan.changesSectionCounts, let from, let oldRank = touched[index].oldRank {
          return ListIndexPath(item: from.item + rank - oldRank, section: from.section)
        }
        return content.indexPath(rank: rank)
      }
      let edit = touched[index].edit
      switch (from, to) {
      case (nil, nil):
        continue
      case (let from?, nil):
        // An object no longer listed, or past the limit: the plan kept it.
        changes.deleted.append(.init(indexPath: from, object: touched[index].old.unsafelyUnwrapped.snapshot))
      case (nil, let to?):
        changes.inserted.append(.init(indexPath: to, object: edits[edit].new.unsafelyUnwrapped.snapshot))
      case (let from?, let to?):
        let snapshot = edits[edit].new.unsafelyUnwrapped.snapshot
        if touched[index].isRepositioned
          && !keepsItsPlace(touched[index], newRank: newRank!, repositioned: repositioned)
        {
          changes.moved.append(.init(from: from, to: to, object: snapshot, changedKeys: edits[edit].changedKeys))
        } else if !edits[edit].changedKeys.isEmpty {
          changes.updated.append(.init(indexPath: to, object: snapshot, changedKeys: edits[edit].changedKeys))
        }
      }
    }
    for (bystander, from) in zip(bystanders, bystanderPaths) {
      let newRank = content.rank(of: bystander.object)
      switch (from, newRank < limit) {
      case (let from?, false):
        changes.deleted.append(.init(indexPath: from, object: bystander.object.snapshot))
      case (nil, true):
        changes.inserted.append(
          .init(indexPath: content.indexPath(rank: newRank), object: bystander.object.snapshot))
      default:
        break
      }
    }
    for section in sections {
      let index = content.listedSectionIndex(of: section.key)
      switch (section.listed, index) {
      case (let before?, nil):
        let value = section.key.value
        changes.deletedSections.append(
          .init(
            index: before.index,
            info: ListSectionInfo(value: value, name: content.sectionName(value), count: before.count)))
      case (nil, let index?):
        changes.insertedSections.append(.init(index: index, info: content.section(at: index)))
      default:
        break
      }
    }
    Self.finish(&changes)
    return changes
  }

  /// Each touched object's rank after the edits (nil for one no longer
  /// listed), `insertedAt` being where ``apply(_:)`` inserted each.
  ///
  /// With few repositioned objects (the movers), ranks are counted from
  /// them instead of searched for: an object updated in place has its rank
  /// from before, less the movers that left from before it, plus those that
  /// came in before it; a mover has the position it was inserted at, plus
  /// the movers inserted after it that sort before it.
  private func ranksAfterEdits(
    of touched: [Touched], edits: [ListEdit], insertedAt: [Int], moverCount: Int
  ) -> [Int?] {
    guard moverCount <= 16 else {
      return touched.map { object in edits[object.edit].new.map { content.rank(of: $0) } }
    }
    /// A touched object listed after the edits (its index in `touched`),
    /// with its words read once.
    struct Arrival {
      let index: Int
      let key: ListSortKey
    }
    // Whether `a`'s new object sorts before `b`'s: by their words, and by
    // the objects only when the words tie. An arrival has a new object
    // (invariant 9 in Support/OrderStatisticTree/OrderStatisticTree.swift).
    func isBefore(_ a: Arrival, _ b: Arrival) -> Bool {
      ListSortKey.isBefore(a.key, b.key)
        ?? order.isBefore(
          edits[touched[a.index].edit].new.unsafelyUnwrapped, edits[touched[b.index].edit].new.unsafelyUnwrapped)
    }
    var stayed: [Arrival] = []
    var inserted: [Arrival] = []
    stayed.reserveCapacity(touched.count - moverCount)
    inserted.reserveCapacity(moverCount)
    var moverRanks: [Int] = []
    moverRanks.reserveCapacity(moverCount)
    for index in touched.indices {
      if touched[index].isRepositioned, let rank = touched[index].oldRank { moverRanks.append(rank) }
      guard let key = edits[touched[index].edit].new?.key else { continue }
      let arrival = Arrival(index: index, key: key)
      if touched[index].isRepositioned { inserted.append(arrival) } else { stayed.append(arrival) }
    }
    var ranks = [Int?](filledWith: nil, count: touched.count)
    for arrival in stayed {
      let oldRank = touched[arrival.index].oldRank!
      var rank = oldRank
      for moverRank in moverRanks where moverRank < oldRank { rank -= 1 }
      for mover in inserted where isBefore(mover, arrival) { rank += 1 }
      ranks[arrival.index] = rank
    }
    for (number, arrival) in inserted.enumerated() {
      var rank = insertedAt[arrival.index]
      for later in inserted[(number + 1)...] where isBefore(later, arrival) { rank += 1 }
      ranks[arrival.index] = rank
    }
    return ranks
  }

  /// Turns a move out of a deleted section, or into an inserted one, into
  /// a deletion and an insertion (a table view moves rows only between
  /// sections that stay), and sorts every array.
  private static func finish(_ changes: inout ListChanges) {
    if !changes.moved.isEmpty && !(changes.deletedSections.isEmpty && changes.insertedSections.isEmpty) {
      let deleted = Set(changes.deletedSections.map(\.index))
      let inserted = Set(changes.insertedSections.map(\.index))
      var moves: [ListChanges.Move] = []
      for move in changes.moved {
        if deleted.contains(move.from.section) || inserted.contains(move.to.section) {
          changes.deleted.append(.init(indexPath: move.from, object: move.object))
          changes.inserted.append(.init(indexPath: move.to, object: move.object))
        } else {
          moves.append(move)
        }
      }
      changes.moved = moves
    }
    changes.deletedSections.sort { $0.index < $1.index }
    changes.insertedSections.sort { $0.index < $1.index }
    changes.deleted.sort { $0.indexPath < $1.indexPath }
    changes.inserted.sort { $0.indexPath < $1.indexPath }
    changes.updated.sort { $0.indexPath < $1.indexPath }
    changes.moved.sort { ($0.from, $0.to) < ($1.from, $1.to) }
  }

  /// The fewest listed objects for which ``touchSearchPaths(_:)`` pays:
  /// 16,384 objects' leaves take some 900 KB, about what a core's own
  /// caches hold.
  static let touchThreshold = 1 << 14

  /// Loads what the searches for a save's edits will read, the edits'
  /// misses overlapping (see ``OrderStatisticTree/touchLeaves(_:_:)``):
  /// the value table's buckets, then the leaf of each object's place before
  /// the edit and, for one whose first sort values change, after it. In a
  /// list larger than the caches, these are most of a save's misses, each
  /// a wait when the searches run one after another. A list of fewer than
  /// ``touchThreshold`` objects stays in the caches between saves, and is
  /// not touched.
  ///
  /// - Returns: A sum of the bytes read, only so that the loads are kept,
  ///   and each edited object's encoded sort values as the list holds
  ///   them (nil for one not listed), for its search; no values when the
  ///   list is not touched.
  private func touchSearchPaths(_ edits: [ListEdit]) -> (loaded: Int, oldKeys: [ListSortKey?]) {
    guard content.objects.count >= Self.touchThreshold else { return (0, []) }
    var loaded = 0
    for index in edits.indices { loaded &+= Int(values.touch(edits[index].objectID.rawValue)) }
    var keys: [ListSortKey] = []
    keys.reserveCapacity(2 * edits.count)
    var oldKeys: [ListSortKey?] = []
    oldKeys.reserveCapacity(edits.count)
    // Pointers: invariants 3 and 8 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    for index in edits.indices {
      let old = withProbe(edits[index].objectID) { $0.pointee.key }
      oldKeys.append(old)
      if let old { keys.append(old) }
      if let new = edits[index].new?.key, old.map({ $0.first != new.first || $0.second != new.second }) ?? true {
        keys.append(new)
      }
    }
    loaded &+= content.objects.touchLeaves(keys.count) { search, element in
      ListSortKey.isBefore(element.pointee.key, keys[search]) ?? false
    }
    return (loaded, oldKeys)
  }

  /// The listed object `id` as the list holds it and its rank in the
  /// whole list, or nil when it is not listed.
  ///
  /// The table's values, with the derived ones, place the object in the
  /// order exactly (ties are broken by identifier), so one search finds it.
  ///
  /// - Complexity: O(log *n*).
  @inline(__always)
  /// Whether `edit` would leave the list as it is: its object listed with
  /// the same values already, or not listed and not to be.
  func isUnchanged(by edit: ListEdit) -> Bool {
    guard let (listed, _) = member(edit.objectID) else { return edit.new == nil }
    guard let new = edit.new else { return false }
    return listed.snapshot == new.snapshot && listed.derived == new.derived
  }

  func member(_ id: ObjectID) -> (object: ListedObject, rank: Int)? {
    member(id, key: nil) { $0.pointee }.map { ($0.result, $0.rank) }
  }

  /// The rank of the listed object `id` in the whole list and `body`'s
  /// reading of it in place, through a pointer valid during `body`; nil
  /// when it is not listed. `key`, when given, must be the object's
  /// encoded sort values as the list holds them (read before, so that
  /// they are not encoded again).
  ///
  /// - Complexity: O(log *n*).
  @inline(__always)
  func member<Result>(
    _ id: ObjectID, key: ListSortKey?, reading body: (UnsafePointer<ListedObject>) -> Result
  ) -> (rank: Int, result: Result)? {
    let order = content.order
    // Invariants 3, 4 and 8 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    let found = withProbe(id, key: key) { probe in
      content.objects.partitionPoint({ order.isBefore($0, probe) }) { listed in
        precondition(listed.pointee.snapshot.objectID == id, "a listed object is missing from its list")
        return body(listed)
      }
    }
    guard let (rank, result) = found else { return nil }
    return (rank, result)
  }

  /// Hands `body` a probe for the listed object `id` (see ``ListProbe``),
  /// made from the values the list keeps for it, in place; nil when `id` is
  /// not listed.
  @inline(__always)
  private func withProbe<Result>(
    _ id: ObjectID, key: ListSortKey? = nil, _ body: (UnsafePointer<ListProbe>) -> Result
  ) -> Result? {
    let order = content.order
    let derived = order.paths.isEmpty ? [] : derivedValues[id] ?? []
    // Invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    return values.withValue(for: id.rawValue) { values in
      values.withUnsafeBufferPointer { values in
        derived.withUnsafeBufferPointer { derived in
          withUnsafePointer(to: order.probe(id, values: values, derived: derived, key: key), body)
        }
      }
    }
  }

  private mutating func remember(_ object: ListedObject) {
    values.updateValue(object.snapshot.values, for: object.objectID.rawValue)
    if !order.paths.isEmpty { derivedValues[object.objectID] = object.derived }
  }

  /// The identifiers of the objects before and after the one at `rank`,
  /// nil past either end.
  private func neighbours(_ rank: Int) -> (before: ObjectID?, after: ObjectID?) {
    // Invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    content.objects.readNeighbours(of: rank) { $0?.pointee.snapshot.objectID }
  }

  /// Applies the edits of the touched objects, finding the objects that
  /// leave their place by their ranks before the edits: the objects
  /// updated in place first (they move nothing, so every rank read in
  /// ``prepare(_:sequenceNumber:)`` still holds), then the ones that leave,
  /// the last first (each removal leaves the ranks before it as they
  /// were), then the ones that come in, each where it sorts.
  ///
  /// - Returns: Where each touched object was inserted, in the list as it
  ///   was then; -1 for one not inserted.
  private mutating func apply(_ touched: [Touched], edits: [ListEdit]) -> [Int] {
    // By index, not `for object in touched` (see `commit`). `new` read
    // unwrapped: invariant 9 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    var leaving: [(rank: Int, index: Int)] = []
    leaving.reserveCapacity(touched.count)
    for index in touched.indices {
      guard touched[index].isRepositioned else {
        let id = touched[index].objectID
        let edit = touched[index].edit
        content.objects.update(at: touched[index].oldRank!) { listed in
          precondition(listed.objectID == id, "a listed object is missing from its list")
          listed = edits[edit].new.unsafelyUnwrapped
        }
        remember(edits[edit].new.unsafelyUnwrapped)
        continue
      }
      if let rank = touched[index].oldRank { leaving.append((rank, index)) }
    }
    leaving.sort { $0.rank > $1.rank }
    for (rank, index) in leaving {
      let id = touched[index].objectID
      let removed = content.objects.remove(at: rank)
      precondition(removed.objectID == id, "a listed object is missing from its list")
      // An object that moves keeps its table entries, which its insertion
      // below overwrites.
      if edits[touched[index].edit].new == nil {
        values.updateValue(nil, for: id.rawValue)
        if !order.paths.isEmpty { derivedValues[id] = nil }
      }
      // A move within its section leaves the section's count as it is;
      // one that leaves it has its old section in the plan.
      if !touched[index].staysInSection && order.isSectioned {
        countSection(touched[index].oldSection!, by: -1)
      }
    }
    var insertedAt = [Int](filledWith: -1, count: touched.count)
    for index in touched.indices where touched[index].isRepositioned {
      let edit = touched[index].edit
      guard edits[edit].new != nil else { continue }
      insertedAt[index] = insert(edits[edit].new.unsafelyUnwrapped)
      if !touched[index].staysInSection && order.isSectioned {
        countSection(order.sectionKey(of: edits[edit].new.unsafelyUnwrapped), by: 1)
      }
    }
    return insertedAt
  }

  /// Inserts `object` into the list's objects (not into its section's
  /// count).
  ///
  /// - Returns: Its position.
  private mutating func insert(_ object: ListedObject) -> Int {
    let order = content.order
    // Invariants 3 and 8 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    let position = withUnsafePointer(to: object) { pointer in
      content.objects.insert(object, at: { order.isBefore($0, pointer) })
    }
    remember(object)
    return position
  }

  /// Adds `change` to section `key`'s count: a section counted down to
  /// zero goes, one counted up from none comes.
  private mutating func countSection(_ key: SectionKey, by change: Int) {
    let order = content.order
    var emptied = false
    // Invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    let found = content.sectionCounts.update(
      at: { order.isSectionBefore($0, key) }, where: { order.isSameSection($0, key) }
    ) { section in
      section.count += change
      emptied = section.count == 0
    }
    if found == nil {
      precondition(change > 0, "a listed object's section is missing from its list")
      content.sectionCounts.insert(SectionCount(key: key, count: change), at: { order.isSectionBefore($0, key) })
    } else if emptied {
      content.sectionCounts.remove(at: { order.isSectionBefore($0, key) }, where: { order.isSameSection($0, key) })
    }
  }

  /// Whether a repositioned object that stays listed sits between the
  /// same two neighbours as before, neither of which moved, and in the same
  /// section: then every other object keeps its order relative to it, and
  /// the change is an update, not a move.
  ///
  /// `repositioned` holds the identifiers of the repositioned objects,
  /// sorted.
  private func keepsItsPlace(_ object: Touched, newRank: Int, repositioned: [ObjectID]) -> Bool {
    guard let (before, after) = object.oldNeighbours, object.staysInSection else { return false }
    let (newBefore, newAfter) = neighbours(newRank)
    guard before == newBefore && after == newAfter else { return false }
    func stays(_ id: ObjectID?) -> Bool {
      guard let id else { return true }
      // Invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift.
      let index = repositioned.partitionPoint { $0.pointee < id }
      return index == repositioned.count || repositioned[index] != id
    }
    return stays(before) && stays(after)
  }

  // MARK: Replacing the request

  /// Replaces the whole list (a new request), telling the change from the
  /// old visible list to the new one.
  ///
  /// - Complexity: O(*n* log *n*).
  mutating func replace(
    order: ListOrder, limit: Int?, sectionName: @escaping @Sendable (FilterValue) -> String?,
    objects: [ListedObject], sectionsAreComparable: Bool
  ) -> ListChanges {
    let old = content
    content = ListContent(
      objects: OrderStatisticTree(), sectionCounts: OrderStatisticTree(), order: order, limit: limit ?? Int.max,
      sectionName: sectionName, generation: old.generation + 1)
    load(objects)
    let new = content
    var changes = ListChanges(sequenceNumber: sequenceNumber)

    let oldIDs = old.objectIDs
    let newIDs = new.objectIDs
    var oldPlace: [ObjectID: Int] = [:]
    for (rank, id) in oldIDs.enumerated() { oldPlace[id] = rank }
    var newPlace: [ObjectID: Int] = [:]
    for (rank, id) in newIDs.enumerated() { newPlace[id] = rank }

    // Sections: by value when the section key is the same (a list without
    // sections has one, kept), else every section anew.
    var oldSectionKept: [Bool] = []
    var newSectionKept: [Bool] = []
    let oldSections = old.sections
    let newSections = new.sections
    if sectionsAreComparable {
      // A merge of the two lists of values, each sorted: O(s log s).
      oldSectionKept = Array(repeating: false, count: oldSections.count)
      newSectionKept = Array(repeating: false, count: newSections.count)
      let isBefore = { (a: (FilterValue, Int), b: (FilterValue, Int)) in ListOrder.order(a.0, b.0) < 0 }
      let olds = oldSections.enumerated().map { ($0.element.value, $0.offset) }.sorted(by: isBefore)
      let news = newSections.enumerated().map { ($0.element.value, $0.offset) }.sorted(by: isBefore)
      var oldIndexOfNew = [Int?](repeating: nil, count: newSections.count)
      var (i, j) = (0, 0)
      while i < olds.count && j < news.count {
        let order = ListOrder.order(olds[i].0, news[j].0)
        if order == 0 { oldIndexOfNew[news[j].1] = olds[i].1 }
        if order <= 0 { i += 1 }
        if order >= 0 { j += 1 }
      }
      // A batch update has no section moves: of the sections in both
      // lists, those in the longest run in the same relative order are
      // kept, and the others are deleted and inserted (their objects
      // move), so that a reversed order is never a kept section at a new
      // place.
      for oldIndex in Self.longestIncreasingRun(oldIndexOfNew.compactMap { $0 }) {
        oldSectionKept[oldIndex] = true
      }
      for (newIndex, oldIndex) in oldIndexOfNew.enumerated() {
        if let oldIndex, oldSectionKept[oldIndex] { newSectionKept[newIndex] = true }
      }
    } else {
      oldSectionKept = Array(repeating: false, count: oldSections.count)
      newSectionKept = Array(repeating: false, count: newSections.count)
    }
    for (index, kept) in oldSectionKept.enumerated() where !kept {
      changes.deletedSections.append(.init(index: index, info: oldSections[index]))
    }
    for (index, kept) in newSectionKept.enumerated() where !kept {
      changes.insertedSections.append(.init(index: index, info: newSections[index]))
    }

    for (rank, id) in oldIDs.enumerated() where newPlace[id] == nil {
      changes.deleted.append(.init(indexPath: old.indexPath(rank: rank), object: old.objects[rank].snapshot))
    }
    // Objects in both lists keep their places when they form the longest
    // run in the same relative order; the others move.
    let common = newIDs.filter { oldPlace[$0] != nil }
    let staying = Set(Self.longestIncreasingRun(common.map { oldPlace[$0]! }).map { oldIDs[$0] })
    for (rank, id) in newIDs.enumerated() {
      let to = new.indexPath(rank: rank)
      let snapshot = new.objects[rank].snapshot
      guard let oldRank = oldPlace[id] else {
        changes.inserted.append(.init(indexPath: to, object: snapshot))
        continue
      }
      let from = old.indexPath(rank: oldRank)
      let sectionKept = oldSectionKept[from.section] && newSectionKept[to.section]
      if !staying.contains(id) || !sectionKept
        || (sectionKept && old.order.isSectioned
          && ListOrder.order(oldSections[from.section].value, newSections[to.section].value) != 0)
      {
        changes.moved.append(.init(from: from, to: to, object: snapshot))
      }
    }
    Self.finish(&changes)
    return changes
  }

  /// The elements of a longest strictly increasing subsequence.
  ///
  /// - Complexity: O(*n* log *n*).
  static func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: ContiguousArray<Int> = []  // index into values of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
      // Invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift.
      let length = tails.partitionPoint { values[$0.pointee] < value }
      if length > 0 { previous[index] = tails[length - 1] }
      if length == tails.count { tails.append(index) } else { tails[length] = index }
    }
    var run: [Int] = []
    var index = tails.last ?? -1
    while index >= 0 {
      run.append(values[index])
      index = previous[index]
    }
    return run.reversed()
  }
}
