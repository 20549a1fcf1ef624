import ObjectGraph
import PredicateDSL

// Replacing the request: the difference between the old list and the new.

extension ListState {
  /// Replaces the whole list (a new request), telling the change from the
  /// old visible list to the new one.
  ///
  /// - Complexity: O(*n* log *n*).
  mutating func replace(
    order: ListOrder, limit: Int?, offset: Int, sectionName: @escaping @Sendable (FilterValue) -> String?,
    objects: [ListedObject], derived: [ObjectID: [FilterValue]], sectionsAreComparable: Bool
  ) -> ListChanges {
    let old = content
    content = ListContent(
      objects: OrderStatisticTree(), sectionCounts: OrderStatisticTree(), order: order, limit: limit ?? Int.max,
      offset: offset, sectionName: sectionName, generation: old.generation + 1)
    load(objects, derived: derived)
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

    // Positions in the listed objects, counted from each window's start.
    for (rank, id) in oldIDs.enumerated() where newPlace[id] == nil {
      changes.deleted.append(.init(indexPath: old.indexPath(ofObjectAt: rank), object: old.object(at: rank)))
    }
    // Objects in both lists keep their places when they form the longest
    // run in the same relative order; the others move.
    let common = newIDs.filter { oldPlace[$0] != nil }
    let staying = Set(Self.longestIncreasingRun(common.map { oldPlace[$0]! }).map { oldIDs[$0] })
    for (rank, id) in newIDs.enumerated() {
      let to = new.indexPath(ofObjectAt: rank)
      let snapshot = new.object(at: rank)
      guard let oldRank = oldPlace[id] else {
        changes.inserted.append(.init(indexPath: to, object: snapshot))
        continue
      }
      let from = old.indexPath(ofObjectAt: oldRank)
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
