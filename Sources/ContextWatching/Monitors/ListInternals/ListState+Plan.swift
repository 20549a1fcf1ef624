import ObjectGraph
import PredicateDSL

// Planning a save's edits: what each touched object was and will be, the
// ranks after the edits, and the leaves the searches will load.

extension ListState {
  /// An object whose place or presence an edit changes, and where it was.
  ///
  /// Its object after the edits and its changed keys stay in the plan's
  /// edit number ``edit``: a plan copies no listed object it can read
  /// there (each copy retains four references, released with the plan).
  struct Touched {
    /// The index of the object's edit in ``Plan/edits``.
    let edit: Int
    let objectID: ObjectID
    /// The object as it was listed, kept only when the edits may report
    /// it deleted: when it leaves the list, or when the list has a window
    /// (an offset or a limit: it may leave it); nil otherwise, and for an
    /// object not listed.
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
    /// Its index path before the edits, when it was listed within the
    /// window; set once every touched object is found, and only when the
    /// edits change the listed objects.
    var oldPath: ListIndexPath? = nil
  }

  /// An object no edit touches, close enough to either end of the window
  /// that the edits may carry it across.
  struct Bystander {
    let object: ListedObject
    let oldRank: Int
  }

  /// A section an edit may create, empty or carry across either end of the
  /// window: its place before the edits.
  struct SectionBefore {
    let key: SectionKey
    /// The section's index and listed objects before the edits, when it
    /// was listed (within the window). Its name is made only for a section
    /// the edits delete.
    let listed: (index: Int, count: Int)?
  }

  /// What a save's edits will do, read from the list before they change
  /// it: the old coordinates of everything that may change. Valid until
  /// the list changes otherwise.
  struct Plan {
    /// The save's edits, as ``prepare(_:sequenceNumber:)`` received them.
    var edits: [ListEdit]
    var touched: [Touched]
    var bystanders: [Bystander]
    var sections: [SectionBefore]
    var bystanderPaths: [ListIndexPath?]
    /// Whether an edit changes a section's count (every object stays in its
    /// section otherwise): only then can sections come or go, or an
    /// object's section index or a section's start change.
    var changesSectionCounts: Bool
    /// Whether the listed objects (within the window) may change: only
    /// then do observers hear of the save.
    let changesListedObjects: Bool
    let sequenceNumber: Int
  }

  /// Whether a save's edits change the objects in a list's window, found
  /// from where each leaves and comes in.
  struct WindowReach {
    let offset: Int
    let end: Int
    /// Whether an edit leaves, enters or updates an object within the window.
    var isListedChange = false
    /// Objects leaving a rank before the window, and objects coming in
    /// before its first object (the old list's object at `offset`): when
    /// no edit reaches the window itself, it moves along by the difference,
    /// and keeps its objects when the two are equal.
    private var leftBefore = 0
    private var enteredBefore = 0

    init(offset: Int, end: Int) {
      self.offset = offset
      self.end = end
    }

    /// An object leaves rank `rank` of the old list.
    @inline(__always)
    mutating func leave(_ rank: Int) {
      if rank < offset { leftBefore += 1 } else if rank < end { isListedChange = true }
    }

    /// An object comes in just before the old list's object at `rank`
    /// (`rank` objects of the old list are before it, itself among them
    /// when it was listed before its new place).
    @inline(__always)
    mutating func enter(_ rank: Int) {
      if rank <= offset { enteredBefore += 1 } else if rank < end { isListedChange = true }
    }

    /// Whether the window's objects change, in a list of `total` objects
    /// before the edits: an edit reaches within it, or those before it move
    /// it along, when it has room and holds an object before or after them
    /// (with no edit within it, the edits before it are all of them, so
    /// the list then holds `total` plus what they add).
    func changesListed(total: Int) -> Bool {
      if isListedChange { return true }
      let added = enteredBefore - leftBefore
      return added != 0 && offset < end && (total > offset || total + added > offset)
    }
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
    let (offset, end) = (content.offset, content.end)
    let total = content.objects.count
    let isWindowed = content.limit < Int.max || offset > 0
    // Where each touched object stands, and whether any of them is, or
    // will be, within the window or moves it.
    var touched: [Touched] = []
    touched.reserveCapacity(edits.count)
    var window = WindowReach(offset: offset, end: end)
    var shift = 0
    // What the search for a listed object reads of it: whether its sort
    // values stay, whether it leaves its section, and its neighbours when
    // its leaf holds them (for one repositioned).
    typealias Reading = (inPlace: Bool, leavesSection: Bool, neighbours: (before: ObjectID?, after: ObjectID?)?)
    withSearchPaths(edits) { loaded, oldPlaces in
      // By index, not `for edit in edits`, which would copy each edit whole
      // (its object's references retained, then released).
      for index in edits.indices {
        let objectID = edits[index].objectID
        let hasNew = edits[index].new != nil
        // A `Reading` of the listed object in place: flags and identifiers,
        // so that handing them out copies no reference.
        let oldPlace = oldPlaces.isEmpty ? nil : oldPlaces[index]
        // The edit's object read in place (see `ListEdit: ListSortValues`).
        let member = edits.withUnsafeBufferPointer { edits in
          let new = edits.baseAddress.unsafelyUnwrapped + index
          return self.member(objectID, key: oldPlace?.key, near: oldPlace?.mark, like: new) {
            elements, offset -> Reading in
            let listed = elements.baseAddress.unsafelyUnwrapped + offset
            guard hasNew else { return (false, order.isSectioned, nil) }
            let inPlace = order.hasSameKeys(listed, new)
            guard !inPlace else { return (true, false, nil) }
            let leavesSection = order.isSectioned && !order.isSameSection(listed, new)
            guard offset > 0 && offset + 1 < elements.count else { return (false, leavesSection, nil) }
            return (
              false, leavesSection, ((listed - 1).pointee.snapshot.objectID, (listed + 1).pointee.snapshot.objectID)
            )
          }
        }
        let touchedObject: Touched
        if let (rank, (inPlace, leavesSection, leafNeighbours)) = member {
          if content.isListed(rank: rank) { window.isListedChange = true }
          // The object as listed, only when the edits may report it deleted
          // (it leaves the list, or may leave the window), and its section
          // only when it leaves it: each read again by rank, which is rare.
          let old = !hasNew || isWindowed ? content.objects[rank] : nil
          let oldSection =
            leavesSection ? content.objects.read(rank) { order.sectionKey(of: $0.pointee) } : nil
          if hasNew {
            if !inPlace {
              shift += 1
              // Where it leaves, and where it would go among the old list.
              if !window.isListedChange { window.leave(rank) }
              if !window.isListedChange {
                window.enter(
                  edits.withUnsafeBufferPointer { content.rank(of: $0.baseAddress.unsafelyUnwrapped + index) })
              }
            }
            touchedObject = Touched(
              edit: index, objectID: objectID, old: old, oldSection: oldSection, isRepositioned: !inPlace,
              staysInSection: oldSection == nil, oldRank: rank,
              oldNeighbours: inPlace ? nil : leafNeighbours ?? neighbours(rank))
          } else {
            shift += 1
            window.leave(rank)
            touchedObject = Touched(
              edit: index, objectID: objectID, old: old, oldSection: oldSection, isRepositioned: true,
              staysInSection: false, oldRank: rank, oldNeighbours: nil)
          }
        } else {
          guard !edits[index].isRelatedOnly, hasNew else { continue }
          shift += 1
          if !window.isListedChange {
            window.enter(edits.withUnsafeBufferPointer { content.rank(of: $0.baseAddress.unsafelyUnwrapped + index) })
          }
          touchedObject = Touched(
            edit: index, objectID: objectID, old: nil, oldSection: nil, isRepositioned: true, staysInSection: false,
            oldRank: nil, oldNeighbours: nil)
        }
        touched.append(touchedObject)
      }
      // Keeps the loads: a sum of bytes and counts is never negative.
      guard loaded >= 0 else { preconditionFailure("a sum of bytes and counts cannot be negative") }
    }
    guard window.changesListed(total: total) else {
      return Plan(
        edits: edits, touched: touched, bystanders: [], sections: [], bystanderPaths: [],
        changesSectionCounts: false,
        changesListedObjects: false, sequenceNumber: sequenceNumber)
    }

    // Objects no edit touches cross an end of the window only when others
    // leave or enter before them, so only those within `shift` places of
    // it can, before or after: take every object within twice that of
    // either end.
    var bystanders: [Bystander] = []
    if isWindowed && shift > 0 {
      // The touched objects' identifiers, searched among few objects, hashed
      // among many (a set costs a few hundred instructions to make).
      let searchesTouched = touched.count <= 16
      let touchedIDs = searchesTouched ? [] : Set(touched.lazy.map(\.objectID))
      // The ranks within twice `shift` of `boundary`, in the list.
      func around(_ boundary: Int) -> Range<Int> {
        let low = Swift.min(total, Swift.max(0, boundary - 2 * shift))
        let high = boundary >= total ? total : Swift.min(total, boundary + 2 * shift)
        return low..<Swift.max(low, high)
      }
      var ranges: [Range<Int>] = []
      if offset > 0 { ranges.append(around(offset)) }
      if content.limit < Int.max {
        let atEnd = around(end)
        // The two overlap when the window is short: each rank once.
        if let first = ranges.first, atEnd.lowerBound <= first.upperBound {
          ranges[0] = first.lowerBound..<Swift.max(first.upperBound, atEnd.upperBound)
        } else {
          ranges.append(atEnd)
        }
      }
      for range in ranges {
        for rank in range {
          let objectID = content.objects.read(rank) { $0.pointee.snapshot.objectID }
          let isTouched =
            searchesTouched ? touched.contains { $0.objectID == objectID } : touchedIDs.contains(objectID)
          if !isTouched { bystanders.append(Bystander(object: content.objects[rank], oldRank: rank)) }
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
        if edits[object.edit].new != nil { keys.append(order.sectionKey(of: edits[object.edit])) }
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
    for index in touched.indices {
      guard let rank = touched[index].oldRank, content.isListed(rank: rank) else { continue }
      touched[index].oldPath = content.indexPath(rank: rank)
    }
    let bystanderPaths = bystanders.map {
      content.isListed(rank: $0.oldRank) ? content.indexPath(rank: $0.oldRank) : nil
    }
    return Plan(
      edits: edits, touched: touched, bystanders: bystanders, sections: sections,
      bystanderPaths: bystanderPaths,
      changesSectionCounts: changesSectionCounts, changesListedObjects: true, sequenceNumber: sequenceNumber)
  }

  /// Writes each touched object's rank after the edits into `ranks` (-1
  /// for one no longer listed), `insertedAt` being where ``apply(_:edits:insertedAt:)``
  /// inserted each.
  ///
  /// With few repositioned objects (the movers), ranks are counted from
  /// them instead of searched for: an object updated in place has its rank
  /// from before, less the movers that left from before it, plus those that
  /// came in before it; a mover has the position it was inserted at, plus
  /// the movers inserted after it that sort before it. The counting's
  /// lists are temporary buffers, so that it allocates nothing.
  func ranksAfterEdits(
    of touched: [Touched], edits: [ListEdit], insertedAt: UnsafeBufferPointer<Int>, moverCount: Int,
    into ranks: UnsafeMutableBufferPointer<Int>
  ) {
    guard moverCount <= 16 else {
      for index in touched.indices {
        let edit = touched[index].edit
        ranks[index] =
          edits[edit].new == nil
          ? -1 : edits.withUnsafeBufferPointer { content.rank(of: $0.baseAddress.unsafelyUnwrapped + edit) }
      }
      return
    }
    /// A touched object listed after the edits (its index in `touched`),
    /// with its words read once.
    struct Arrival {
      let index: Int
      let key: ListSortKey
    }
    // Whether `a`'s new object sorts before `b`'s: by their words, and by
    // the objects, read in place, only when the words tie. An arrival has
    // a new object (invariant 9 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift).
    func isBefore(_ a: Arrival, _ b: Arrival) -> Bool {
      if let isBefore = ListSortKey.isBefore(a.key, b.key) { return isBefore }
      return edits.withUnsafeBufferPointer { edits in
        let base = edits.baseAddress.unsafelyUnwrapped
        return order.isBefore(base + touched[a.index].edit, base + touched[b.index].edit)
      }
    }
    // Arrivals in place first, then the inserted ones from the end; the
    // old ranks of the movers that left. Trivial elements: the buffers
    // need no deinitialization.
    withUnsafeTemporaryAllocation(of: Arrival.self, capacity: touched.count) { arrivals in
      withUnsafeTemporaryAllocation(of: Int.self, capacity: moverCount) { moverRanks in
        var (stayedCount, insertedStart, moverRankCount) = (0, touched.count, 0)
        for index in touched.indices {
          ranks[index] = -1
          if touched[index].isRepositioned, let rank = touched[index].oldRank {
            moverRanks.initializeElement(at: moverRankCount, to: rank)
            moverRankCount += 1
          }
          guard let key = edits[touched[index].edit].new?.key else { continue }
          if touched[index].isRepositioned {
            insertedStart -= 1
            arrivals.initializeElement(at: insertedStart, to: Arrival(index: index, key: key))
          } else {
            arrivals.initializeElement(at: stayedCount, to: Arrival(index: index, key: key))
            stayedCount += 1
          }
        }
        // The inserted arrivals in the order they were inserted.
        var inserted = UnsafeMutableBufferPointer(rebasing: arrivals[insertedStart...])
        inserted.reverse()
        let movedFrom = UnsafeBufferPointer(rebasing: moverRanks[..<moverRankCount])
        for arrival in arrivals[..<stayedCount] {
          let oldRank = touched[arrival.index].oldRank!
          var rank = oldRank
          for moverRank in movedFrom where moverRank < oldRank { rank -= 1 }
          for mover in inserted where isBefore(mover, arrival) { rank += 1 }
          ranks[arrival.index] = rank
        }
        for number in inserted.indices {
          let arrival = inserted[number]
          var rank = insertedAt[arrival.index]
          for later in inserted[(number + 1)...] where isBefore(later, arrival) { rank += 1 }
          ranks[arrival.index] = rank
        }
      }
    }
  }

  /// The fewest listed objects for which `touchSearchPaths` pays:
  /// 16,384 objects' leaves take some 900 KB, about what a core's own
  /// caches hold.
  static let touchThreshold = 1 << 14

  /// Where a search for a listed object's old place begins: its encoded
  /// sort values as the list holds them, and the leaf a search by them
  /// reached (see ``OrderStatisticTree/touchLeaves(_:_:)``).
  struct OldPlace {
    let key: ListSortKey
    /// Nil until the searches are done.
    var mark: OrderStatisticTree<ListedObject>.LeafMark?
  }

  /// Loads what the searches for a save's edits will read, the edits'
  /// misses overlapping (see ``OrderStatisticTree/touchLeaves(_:_:)``):
  /// the value table's buckets, then the listed objects' value arrays,
  /// then the tree's paths, a level at a time, to the leaf of each
  /// object's place before the edit and, for one whose first sort values
  /// change, after it, and those leaves whole. In a
  /// list larger than the caches, these are most of a save's misses, each
  /// a wait when the searches run one after another. A list of fewer than
  /// ``touchThreshold`` objects stays in the caches between saves, and is
  /// not touched.
  ///
  /// Hands `body` a sum of the bytes and counts read, only so that the loads are
  /// kept, and for each edited object listed, its encoded sort values as
  /// the list holds them and the leaf its words lead to, where its search
  /// begins (nil for one not listed); no places when the list is not
  /// touched. The places are in a temporary buffer, valid during `body`,
  /// and their leaves until the list changes (invariant 10 in
  /// Support/OrderStatisticTree/OrderStatisticTree.swift).
  @inline(__always)
  func withSearchPaths<Result>(
    _ edits: [ListEdit], _ body: (_ loaded: Int, _ oldPlaces: UnsafeBufferPointer<OldPlace?>) -> Result
  ) -> Result {
    typealias LeafMark = OrderStatisticTree<ListedObject>.LeafMark
    let touches = content.objects.count >= Self.touchThreshold
    // Temporary buffers of trivial elements (none is deinitialized), empty
    // when the list is not touched: the words searched for, the old ones
    // first, edit by edit, then the new ones that differ; the leaves the
    // searches reach; the places. One allocation holds the three, so that
    // one closure captures the state (each capture copies it). `body` is
    // called once, inlined here.
    let searchCapacity = touches ? 2 * edits.count : 0
    let placeCapacity = touches ? edits.count : 0
    let marksOffset = Self.roundedUp(
      searchCapacity * MemoryLayout<ListSortKey>.stride, MemoryLayout<LeafMark>.alignment)
    let placesOffset = Self.roundedUp(
      marksOffset + searchCapacity * MemoryLayout<LeafMark>.stride, MemoryLayout<OldPlace?>.alignment)
    let byteCount = placesOffset + placeCapacity * MemoryLayout<OldPlace?>.stride
    let alignment = Swift.max(
      MemoryLayout<ListSortKey>.alignment, MemoryLayout<LeafMark>.alignment, MemoryLayout<OldPlace?>.alignment)
    return withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: alignment) { bytes in
      var places = UnsafeMutableBufferPointer<OldPlace?>(start: nil, count: 0)
      var loaded = 0
      if touches, let base = bytes.baseAddress {
        let keys = UnsafeMutableBufferPointer(
          start: base.bindMemory(to: ListSortKey.self, capacity: searchCapacity), count: searchCapacity)
        let marks = UnsafeMutableBufferPointer(
          start: (base + marksOffset).bindMemory(to: LeafMark.self, capacity: searchCapacity), count: searchCapacity)
        places = UnsafeMutableBufferPointer(
          start: (base + placesOffset).bindMemory(to: OldPlace?.self, capacity: placeCapacity), count: placeCapacity)
        loaded = touchSearchPaths(edits, keys: keys, marks: marks, places: places)
      }
      // One call, so that `body` is inlined once.
      return body(loaded, UnsafeBufferPointer(places))
    }
  }

  /// `offset` rounded up to a multiple of `alignment` (a power of two).
  private static func roundedUp(_ offset: Int, _ alignment: Int) -> Int { (offset + alignment - 1) & ~(alignment - 1) }

  /// The work of ``withSearchPaths(_:_:)`` in a list it touches: fills
  /// `places` (one an edit) with the searches' words and leaves, `keys` and
  /// `marks` (two an edit) being room for the searches; returns a sum
  /// of the bytes and counts read.
  private func touchSearchPaths(
    _ edits: [ListEdit], keys: UnsafeMutableBufferPointer<ListSortKey>,
    marks: UnsafeMutableBufferPointer<OrderStatisticTree<ListedObject>.LeafMark>,
    places: UnsafeMutableBufferPointer<OldPlace?>
  ) -> Int {
    var loaded = 0
    for index in edits.indices { loaded &+= Int(values.touch(edits[index].objectID.rawValue)) }
    // The listed objects' values, which the searches' probes read: a short
    // loop again, each iteration one bucket and one array's first line.
    for index in edits.indices { loaded &+= values.withValue(for: edits[index].objectID.rawValue) { $0.count } ?? 0 }
    var keyCount = 0
    // Pointers: invariants 3 and 8 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    for index in edits.indices {
      // The words of values the edit leaves as they were are the new
      // object's: only the others are encoded.
      let old = edits.withUnsafeBufferPointer { edits in
        let edit = edits.baseAddress.unsafelyUnwrapped + index
        return withProbe(edit.pointee.objectID, like: edit) { $0.pointee.key }
      }
      places.initializeElement(at: index, to: old.map { OldPlace(key: $0, mark: nil) })
      if let old {
        keys.initializeElement(at: keyCount, to: old)
        keyCount += 1
      }
    }
    let listedCount = keyCount
    for index in edits.indices {
      if let new = edits[index].new?.key,
        places[index].map({ $0.key.first != new.first || $0.key.second != new.second }) ?? true
      {
        keys.initializeElement(at: keyCount, to: new)
        keyCount += 1
      }
    }
    let searches = UnsafeMutableBufferPointer(rebasing: marks[..<keyCount])
    loaded &+= content.objects.touchLeaves(searches) { search, element in
      ListSortKey.isBefore(element.pointee.key, keys[search]) ?? false
    }
    var search = 0
    for index in places.indices where places[index] != nil {
      places[index]!.mark = searches[search]
      search += 1
    }
    precondition(search == listedCount, "every listed object has its search")
    return loaded
  }
}
