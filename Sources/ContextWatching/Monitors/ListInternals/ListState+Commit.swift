import ObjectGraph
import PredicateDSL

// Committing a plan: the tree and section counts changed, and the batch
// update that tells observers.

extension ListState {
  /// Applies a prepared save's edits in place and tells what they did to
  /// the listed objects as a batch update (empty when
  /// ``Plan/changesListedObjects`` is false).
  ///
  /// - Complexity: O(*k* log *n*) for *k* edits in a list of *n* objects.
  mutating func commit(_ plan: Plan) -> ListChanges {
    sequenceNumber = plan.sequenceNumber
    content.generation += 1
    let count = plan.touched.count
    // The positions, ranks and identifiers the commit counts with, in
    // temporary buffers (trivial elements, so none is deinitialized): no
    // allocation.
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count) { scratch in
      let insertedAt = UnsafeMutableBufferPointer(rebasing: scratch[..<count])
      apply(plan.touched, edits: plan.edits, insertedAt: insertedAt)
      guard plan.changesListedObjects else { return ListChanges(sequenceNumber: plan.sequenceNumber) }
      let newRanks = UnsafeMutableBufferPointer(rebasing: scratch[count...])
      return withUnsafeTemporaryAllocation(of: ObjectID.self, capacity: count) { repositioned in
        changes(plan, insertedAt: UnsafeBufferPointer(insertedAt), newRanks: newRanks, repositioned: repositioned)
      }
    }
  }

  /// What a committed plan did to the listed objects, as a batch update;
  /// `newRanks` and `repositioned` are buffers of one element a touched
  /// object, to count in.
  private func changes(
    _ plan: Plan, insertedAt: UnsafeBufferPointer<Int>, newRanks: UnsafeMutableBufferPointer<Int>,
    repositioned buffer: UnsafeMutableBufferPointer<ObjectID>
  ) -> ListChanges {
    var changes = ListChanges(sequenceNumber: plan.sequenceNumber)
    let (edits, touched, bystanders, sections) = (plan.edits, plan.touched, plan.bystanders, plan.sections)
    let bystanderPaths = plan.bystanderPaths

    var moverCount = 0
    for index in touched.indices where touched[index].isRepositioned {
      buffer.initializeElement(at: moverCount, to: touched[index].objectID)
      moverCount += 1
    }
    var repositioned = UnsafeMutableBufferPointer(rebasing: buffer[..<moverCount])
    repositioned.sort()
    ranksAfterEdits(of: touched, edits: edits, insertedAt: insertedAt, moverCount: moverCount, into: newRanks)
    changes.moved.reserveCapacity(moverCount)
    changes.updated.reserveCapacity(touched.count - moverCount)
    // By index, not `for object in touched`, which would copy each
    // touched object (its references retained, then released).
    // `old` and `new` read unwrapped: invariant 9 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    for index in touched.indices {
      let from = touched[index].oldPath
      let newRank = newRanks[index] >= 0 ? newRanks[index] : nil
      let to = newRank.flatMap { rank -> ListIndexPath? in
        guard content.isListed(rank: rank) else { return nil }
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
        // An object no longer listed, or out of the window: the plan kept
        // it.
        changes.deleted.append(.init(indexPath: from, object: touched[index].old.unsafelyUnwrapped.snapshot))
      case (nil, let to?):
        changes.inserted.append(.init(indexPath: to, object: edits[edit].new.unsafelyUnwrapped.snapshot))
      case (let from?, let to?):
        let snapshot = edits[edit].new.unsafelyUnwrapped.snapshot
        if touched[index].isRepositioned
          && !keepsItsPlace(
            touched[index], newRank: newRank!, repositioned: UnsafeBufferPointer(repositioned),
            touchedCount: touched.count)
        {
          changes.moved.append(.init(from: from, to: to, object: snapshot, changedKeys: edits[edit].changedKeys))
        } else if !edits[edit].changedKeys.isEmpty {
          changes.updated.append(.init(indexPath: to, object: snapshot, changedKeys: edits[edit].changedKeys))
        }
      }
    }
    for (bystander, from) in zip(bystanders, bystanderPaths) {
      let newRank = content.rank(of: bystander.object)
      switch (from, content.isListed(rank: newRank)) {
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

  /// Turns a move out of a deleted section, or into an inserted one, into
  /// a deletion and an insertion (a table view moves rows only between
  /// sections that stay), and sorts every array.
  static func finish(_ changes: inout ListChanges) {
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
    // Only arrays of two or more: `sort` makes even an empty array unique
    // and sets up its sort, about 130 instructions.
    if changes.deletedSections.count > 1 { changes.deletedSections.sort { $0.index < $1.index } }
    if changes.insertedSections.count > 1 { changes.insertedSections.sort { $0.index < $1.index } }
    if changes.deleted.count > 1 { changes.deleted.sort { $0.indexPath < $1.indexPath } }
    if changes.inserted.count > 1 { changes.inserted.sort { $0.indexPath < $1.indexPath } }
    if changes.updated.count > 1 { changes.updated.sort { $0.indexPath < $1.indexPath } }
    if changes.moved.count > 1 { changes.moved.sort { ($0.from, $0.to) < ($1.from, $1.to) } }
  }

  /// Applies the edits of the touched objects, finding the objects that
  /// leave their place by their ranks before the edits: the objects
  /// updated in place first (they move nothing, so every rank read in
  /// ``prepare(_:sequenceNumber:)`` still holds), then the ones that leave,
  /// the last first (each removal leaves the ranks before it as they
  /// were), then the ones that come in, each where it sorts.
  ///
  /// Writes where each touched object was inserted, in the list as it was
  /// then, into `insertedAt` (-1 for one not inserted).
  mutating func apply(_ touched: [Touched], edits: [ListEdit], insertedAt: UnsafeMutableBufferPointer<Int>) {
    insertedAt.initialize(repeating: -1)
    // The objects that leave, by rank and index in `touched`, in a
    // temporary buffer (trivial elements: none is deinitialized).
    struct Leaving {
      let rank: Int
      let index: Int
    }
    withUnsafeTemporaryAllocation(of: Leaving.self, capacity: touched.count) { buffer in
      // By index, not `for object in touched` (see `commit`). `new` read
      // unwrapped: invariant 9 in
      // Support/OrderStatisticTree/OrderStatisticTree.swift.
      var leavingCount = 0
      for index in touched.indices {
        guard touched[index].isRepositioned else {
          let id = touched[index].objectID
          let rank = touched[index].oldRank!
          // The closure reads the edit through a pointer: the descent hands
          // the closure down a level at a time, and one that captured the
          // array had it retained and released around each level.
          edits.withUnsafeBufferPointer { edits in
            let edit = edits.baseAddress.unsafelyUnwrapped + touched[index].edit
            content.objects.update(at: rank) { listed in
              precondition(listed.objectID == id, "a listed object is missing from its list")
              listed = edit.pointee.new.unsafelyUnwrapped
            }
            remember(edit)
          }
          continue
        }
        if let rank = touched[index].oldRank {
          buffer.initializeElement(at: leavingCount, to: Leaving(rank: rank, index: index))
          leavingCount += 1
        }
      }
      var leaving = UnsafeMutableBufferPointer(rebasing: buffer[..<leavingCount])
      leaving.sort { $0.rank > $1.rank }
      for leaver in leaving {
        let (rank, index) = (leaver.rank, leaver.index)
        let id = touched[index].objectID
        let removed = content.objects.remove(at: rank)
        precondition(removed.objectID == id, "a listed object is missing from its list")
        // An object that moves keeps its table entries, which its insertion
        // below overwrites.
        if edits[touched[index].edit].new == nil {
          values.updateValue(nil, for: id.rawValue)
          order.derived?[id] = nil
        }
        // A move within its section leaves the section's count as it is;
        // one that leaves it has its old section in the plan.
        if !touched[index].staysInSection && order.isSectioned {
          countSection(touched[index].oldSection!, by: -1)
        }
      }
    }
    for index in touched.indices where touched[index].isRepositioned {
      let edit = touched[index].edit
      guard edits[edit].new != nil else { continue }
      insertedAt[index] = edits.withUnsafeBufferPointer { insert($0.baseAddress.unsafelyUnwrapped + edit) }
      if !touched[index].staysInSection && order.isSectioned {
        let key = edits.withUnsafeBufferPointer {
          order.sectionKey(of: ($0.baseAddress.unsafelyUnwrapped + edit).pointee)
        }
        countSection(key, by: 1)
      }
    }
  }

  /// Inserts an edit's object, read in place through a pointer to the
  /// edit (see `ListEdit: ListSortValues`), into the list's objects (not
  /// into its section's count): the search reads it there, and the tree
  /// gets the one copy it keeps.
  ///
  /// - Returns: Its position.
  mutating func insert(_ edit: UnsafePointer<ListEdit>) -> Int {
    // The order not counted: a closure that captured a counted reference
    // would have it retained and released around each level of the
    // descent, two atomic operations a level. Invariants 3, 8 and 12 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    let order = Unmanaged.passUnretained(content.order)
    let position = content.objects.insert(
      edit.pointee.new.unsafelyUnwrapped,
      at: { element in order._withUnsafeGuaranteedRef { $0.isBefore(element, edit) } })
    remember(edit)
    return position
  }

  /// Adds `change` to section `key`'s count: a section counted down to
  /// zero goes, one counted up from none comes.
  mutating func countSection(_ key: SectionKey, by change: Int) {
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
  ///
  /// Its rank then changes by fewer than `touchedCount`, the number of
  /// touched objects: only they can come or go on either side of it. An
  /// object whose rank changes more is not looked up.
  func keepsItsPlace(
    _ object: Touched, newRank: Int, repositioned: UnsafeBufferPointer<ObjectID>, touchedCount: Int
  ) -> Bool {
    guard let (before, after) = object.oldNeighbours, object.staysInSection, let oldRank = object.oldRank,
      abs(newRank - oldRank) < touchedCount
    else { return false }
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
}
