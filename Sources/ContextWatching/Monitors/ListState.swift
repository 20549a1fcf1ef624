import ObjectGraph
import PredicateDSL

/// One object a save may have changed in a list: what it is now, if it
/// matches the list's predicate.
struct ListEdit: Sendable {
  let objectID: ObjectID
  /// The object as it is after the save, when it matches the predicate;
  /// nil when it does not (exited, deleted).
  var new: ListedObject?
  /// The keys that changed; for a change through a relationship, the
  /// relationship's name.
  var changedKeys: [String]
  /// Whether the edit comes from a change of a related object: it applies
  /// only to an object that is listed already (the watch reports entering
  /// and exiting on its own).
  var isRelatedOnly: Bool
}

/// A list monitor's whole list, every matching object (the limit applies
/// when the list is read), and how a batch of edits changes it.
///
/// Only the monitor's delivery queue touches a `ListState`; readers get
/// copies of ``content``.
struct ListState: Sendable {
  /// Every matching object in order (beyond the limit too, so that an
  /// object leaving the window lets the next one in), and the sections.
  var content: ListContent
  /// The listed objects by identifier, as ``content`` holds them: where to
  /// find an object whose values changed.
  var members: [ObjectID: ListedObject]
  /// The last save applied.
  var sequenceNumber: Int

  init(order: ListOrder, limit: Int?, sectionName: @escaping @Sendable (FilterValue) -> String?, sequenceNumber: Int) {
    content = ListContent(
      objects: OrderStatisticTree(), sectionCounts: OrderStatisticTree(), order: order, limit: limit ?? Int.max,
      sectionName: sectionName)
    members = [:]
    self.sequenceNumber = sequenceNumber
  }

  var order: ListOrder { content.order }

  /// Loads objects into an empty list.
  ///
  /// - Complexity: O(*n* log *n*).
  mutating func load(_ objects: [ListedObject]) {
    let order = content.order
    let sorted = objects.sorted(by: order.isBefore)
    content.objects = OrderStatisticTree(sorted: sorted)
    members = Dictionary(uniqueKeysWithValues: sorted.lazy.map { ($0.objectID, $0) })
    var sections: [SectionCount] = []
    if order.isSectioned {
      for object in sorted {
        let value = order.sectionValue(of: object)
        if let last = sections.last, ListOrder.order(last.value, value) == 0 {
          sections[sections.count - 1].count += 1
        } else {
          sections.append(SectionCount(value: value, count: 1))
        }
      }
    }
    content.sectionCounts = OrderStatisticTree(sorted: sections)
  }

  // MARK: Edits

  /// An object whose place or presence an edit changed.
  private struct Touched {
    let objectID: ObjectID
    let old: ListedObject?
    let new: ListedObject?
    let changedKeys: [String]
    /// Whether the object left its old place (or had none, or has none
    /// now): false for an object updated where it stands.
    let isRepositioned: Bool
  }

  /// Applies a save's edits and tells what they did to the list as a
  /// batch update.
  ///
  /// - Complexity: O(*k* log *n*) for *k* edits in a list of *n* objects.
  mutating func apply(_ edits: [ListEdit], sequenceNumber: Int) -> ListChanges {
    self.sequenceNumber = sequenceNumber
    let old = content
    var touched: [Touched] = []
    touched.reserveCapacity(edits.count)
    for edit in edits {
      let previous = members[edit.objectID]
      if edit.isRelatedOnly && previous == nil { continue }
      guard previous != nil || edit.new != nil else { continue }
      if let previous, let new = edit.new, order.hasSameKeys(previous, new) {
        replace(previous, with: new)
        touched.append(
          Touched(objectID: edit.objectID, old: previous, new: new, changedKeys: edit.changedKeys, isRepositioned: false))
        continue
      }
      if let previous { remove(previous) }
      if let new = edit.new { insert(new) }
      touched.append(
        Touched(
          objectID: edit.objectID, old: previous, new: edit.new, changedKeys: edit.changedKeys, isRepositioned: true))
    }
    return changes(from: old, touched: touched, sequenceNumber: sequenceNumber)
  }

  private mutating func replace(_ previous: ListedObject, with new: ListedObject) {
    let order = content.order
    content.objects.update(at: { order.isBefore($0, previous) }, where: { $0.objectID == previous.objectID }) {
      $0 = new
    }
    members[new.objectID] = new
  }

  private mutating func remove(_ object: ListedObject) {
    let order = content.order
    let removed = content.objects.remove(at: { order.isBefore($0, object) }, where: { $0.objectID == object.objectID })
    precondition(removed != nil, "a listed object is missing from its list")
    members[object.objectID] = nil
    guard order.isSectioned else { return }
    let value = order.sectionValue(of: object)
    let isBefore: (SectionCount) -> Bool = { order.isSectionBefore($0.value, value) }
    let isMatch: (SectionCount) -> Bool = { ListOrder.order($0.value, value) == 0 }
    var emptied = false
    content.sectionCounts.update(at: isBefore, where: isMatch) { section in
      section.count -= 1
      emptied = section.count == 0
    }
    if emptied { content.sectionCounts.remove(at: isBefore, where: isMatch) }
  }

  private mutating func insert(_ object: ListedObject) {
    let order = content.order
    content.objects.insert(object, at: { order.isBefore($0, object) })
    members[object.objectID] = object
    guard order.isSectioned else { return }
    let value = order.sectionValue(of: object)
    let isBefore: (SectionCount) -> Bool = { order.isSectionBefore($0.value, value) }
    let isMatch: (SectionCount) -> Bool = { ListOrder.order($0.value, value) == 0 }
    if content.sectionCounts.update(at: isBefore, where: isMatch, { $0.count += 1 }) == nil {
      content.sectionCounts.insert(SectionCount(value: value, count: 1), at: isBefore)
    }
  }

  /// The batch update that turns `old`'s visible window into the current
  /// one, looking only at the touched objects and at the objects near the
  /// limit, whose visibility the touched ones can shift.
  private func changes(from old: ListContent, touched: [Touched], sequenceNumber: Int) -> ListChanges {
    let new = content
    let order = content.order
    let limit = content.limit
    var changes = ListChanges(sequenceNumber: sequenceNumber)
    guard !touched.isEmpty else { return changes }
    let repositioned = Set(touched.lazy.filter(\.isRepositioned).map(\.objectID))
    var sectionValues: [FilterValue] = []

    for object in touched {
      let oldRank = object.old.map { old.rank(of: $0) }
      let newRank = object.new.map { new.rank(of: $0) }
      let wasVisible = oldRank.map { $0 < limit } ?? false
      let isVisible = newRank.map { $0 < limit } ?? false
      if order.isSectioned {
        if let previous = object.old { sectionValues.append(order.sectionValue(of: previous)) }
        if let current = object.new { sectionValues.append(order.sectionValue(of: current)) }
      }
      switch (wasVisible, isVisible) {
      case (false, false):
        continue
      case (true, false):
        changes.deleted.append(.init(indexPath: old.indexPath(rank: oldRank!), object: object.old!.snapshot))
      case (false, true):
        changes.inserted.append(.init(indexPath: new.indexPath(rank: newRank!), object: object.new!.snapshot))
      case (true, true):
        let from = old.indexPath(rank: oldRank!)
        let to = new.indexPath(rank: newRank!)
        let snapshot = object.new!.snapshot
        if object.isRepositioned
          && !keepsItsPlace(object, oldRank: oldRank!, newRank: newRank!, old: old, repositioned: repositioned)
        {
          changes.moved.append(.init(from: from, to: to, object: snapshot, changedKeys: object.changedKeys))
        } else if !object.changedKeys.isEmpty {
          changes.updated.append(.init(indexPath: to, object: snapshot, changedKeys: object.changedKeys))
        }
      }
    }

    // Objects no edit touched cross the limit when others enter or leave
    // before them: only those within `shift` places of it can.
    if limit < Int.max {
      let shift = repositioned.count
      var seen = Set(touched.map(\.objectID))
      for (content, isOld) in [(old, true), (new, false)] {
        let low = Swift.max(0, limit - shift)
        let high = Swift.min(content.objects.count, limit + shift)
        guard low < high else { continue }
        for rank in low..<high {
          let object = content.objects[rank]
          guard seen.insert(object.objectID).inserted else { continue }
          let oldRank = isOld ? rank : old.rank(of: object)
          let newRank = isOld ? new.rank(of: object) : rank
          if order.isSectioned { sectionValues.append(order.sectionValue(of: object)) }
          switch (oldRank < limit, newRank < limit) {
          case (true, false):
            changes.deleted.append(.init(indexPath: old.indexPath(rank: oldRank), object: object.snapshot))
          case (false, true):
            changes.inserted.append(.init(indexPath: new.indexPath(rank: newRank), object: object.snapshot))
          default:
            break
          }
        }
      }
    }

    if order.isSectioned {
      sectionValues.sort(by: order.isSectionBefore)
      var previous: FilterValue?
      for value in sectionValues {
        if let previous, ListOrder.order(previous, value) == 0 { continue }
        previous = value
        switch (old.isSectionVisible(value), new.isSectionVisible(value)) {
        case (true, false):
          let index = old.sectionIndex(of: value)!
          changes.deletedSections.append(.init(index: index, info: old.section(at: index)))
        case (false, true):
          let index = new.sectionIndex(of: value)!
          changes.insertedSections.append(.init(index: index, info: new.section(at: index)))
        default:
          break
        }
      }
    }
    changes.deleted.sort { $0.indexPath < $1.indexPath }
    changes.inserted.sort { $0.indexPath < $1.indexPath }
    changes.updated.sort { $0.indexPath < $1.indexPath }
    changes.moved.sort { $0.to < $1.to }
    return changes
  }

  /// Whether a repositioned object that stayed listed sits between the
  /// same two neighbours as before, neither of which moved, and in the same
  /// section: then every other object keeps its order relative to it, and
  /// the change is an update, not a move.
  private func keepsItsPlace(
    _ object: Touched, oldRank: Int, newRank: Int, old: ListContent, repositioned: Set<ObjectID>
  ) -> Bool {
    let new = content
    guard ListOrder.order(order.sectionValue(of: object.old!), order.sectionValue(of: object.new!)) == 0 else {
      return false
    }
    func neighbour(_ content: ListContent, _ rank: Int) -> ObjectID?? {
      guard rank >= 0 && rank < content.objects.count else { return .some(nil) }
      let id = content.objects[rank].objectID
      return repositioned.contains(id) ? nil : .some(id)
    }
    guard let before = neighbour(old, oldRank - 1), let after = neighbour(old, oldRank + 1),
      let newBefore = neighbour(new, newRank - 1), let newAfter = neighbour(new, newRank + 1)
    else { return false }
    return before == newBefore && after == newAfter
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
      sectionName: sectionName)
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
      let newValues = newSections.map(\.value)
      let oldValues = oldSections.map(\.value)
      oldSectionKept = oldValues.map { value in newValues.contains { ListOrder.order($0, value) == 0 } }
      newSectionKept = newValues.map { value in oldValues.contains { ListOrder.order($0, value) == 0 } }
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
    changes.deleted.sort { $0.indexPath < $1.indexPath }
    changes.inserted.sort { $0.indexPath < $1.indexPath }
    changes.moved.sort { $0.to < $1.to }
    return changes
  }

  /// The elements of a longest strictly increasing subsequence.
  ///
  /// - Complexity: O(*n* log *n*).
  static func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = []  // index into values of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
      let length = tails.partitionPoint { values[$0] < value }
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
