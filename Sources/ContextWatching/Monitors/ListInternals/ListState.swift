import ObjectGraph
import PredicateDSL

/// A list monitor's whole list, every matching object (the offset and
/// limit apply when the list is read), and how a batch of edits changes it.
///
/// Only the monitor's delivery queue changes a `ListState`, under the
/// monitor's state lock; readers read it under that lock (``member(_:)``
/// for `indexPath(of:)`) or get copies of ``content``.
struct ListState: Sendable {
  /// Every matching object in order (outside the window too, so that an
  /// object leaving the window lets the next one in), and the sections.
  var content: ListContent
  /// The listed objects' attribute values by identifier (its raw value),
  /// as ``content`` holds them: enough to search the list for an object
  /// whose values changed (see ``member(_:)``). One identifier and one
  /// reference a bucket, at most four-fifths full: about 21 bytes a
  /// listed object at 100,000, where a `Dictionary` of snapshots would take
  /// 105.
  var values: ProbingTable<[FilterValue]>
  /// The last save applied.
  var sequenceNumber: Int

  init(
    order: ListOrder, limit: Int?, offset: Int, sectionName: @escaping @Sendable (FilterValue) -> String?,
    sequenceNumber: Int
  ) {
    content = ListContent(
      objects: OrderStatisticTree(), sectionCounts: OrderStatisticTree(), order: order, limit: limit ?? Int.max,
      offset: offset, sectionName: sectionName)
    values = ProbingTable(maximumLoad: 80)
    self.sequenceNumber = sequenceNumber
  }

  var order: ListOrder { content.order }

  /// Loads objects into an empty list, `derived` holding each one's values
  /// through the order's key paths (empty when it reads none).
  ///
  /// - Complexity: O(*n* log *n*).
  mutating func load(_ objects: [ListedObject], derived: [ObjectID: [FilterValue]]) {
    let order = content.order
    // The order reads the derived values of the objects it sorts from its
    // table.
    order.derived?.replaceAll(with: derived)
    let sorted = Self.sorted(objects, by: order)
    content.objects = OrderStatisticTree(sorted: sorted)
    values = ProbingTable(minimumCapacity: sorted.count, maximumLoad: 80)
    for object in sorted { values.updateValue(object.snapshot.values, for: object.objectID.rawValue) }
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
  static func sorted(_ objects: [ListedObject], by order: ListOrder) -> [ListedObject] {
    // Invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    objects.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return [] }
      var positions = Array(0..<buffer.count)
      positions.sort { order.isBefore(base + $0, base + $1) }
      return positions.map { buffer[$0] }
    }
  }

  /// Whether `edit` would leave the list as it is: its object listed with
  /// the same values already, or not listed and not to be.
  func isUnchanged(by edit: ListEdit) -> Bool {
    guard let (listed, _) = member(edit.objectID) else { return edit.new == nil }
    guard let new = edit.new else { return false }
    return listed.snapshot == new.snapshot && order.derived.map { $0[edit.objectID] == edit.derived } ?? true
  }

  /// The listed object `id` as the list holds it and its rank in the
  /// whole list, or nil when it is not listed.
  ///
  /// The table's values, with the derived ones, place the object in the
  /// order exactly (ties are broken by identifier), so one search finds it.
  ///
  /// - Complexity: O(log *n*).
  @inline(__always)
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
    // Invariants 3 and 5 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    member(id, key: key, near: nil) { elements, offset in body(elements.baseAddress.unsafelyUnwrapped + offset) }
  }

  /// The rank of the listed object `id` in the whole list and `body`'s
  /// reading of the leaf that holds it, in place (its elements and the
  /// object's offset among them, valid during `body`); nil when it is not
  /// listed. `key` as in ``member(_:key:reading:)``; `mark`, when given, a
  /// leaf that a search by `key` reached, searched first (the whole tree
  /// is searched when it does not hold the object); `like`, when given and
  /// `key` is not, an edit of the object whose words stand for the listed
  /// object's where its values are identical (see ``withProbe(_:key:like:_:)``).
  ///
  /// - Complexity: O(log *n*).
  @inline(__always)
  func member<Result>(
    _ id: ObjectID, key: ListSortKey?, near mark: OrderStatisticTree<ListedObject>.LeafMark?,
    like other: UnsafePointer<ListEdit>? = nil, readingLeaf body: (UnsafeBufferPointer<ListedObject>, Int) -> Result
  ) -> (rank: Int, result: Result)? {
    let order = content.order
    // Invariants 3, 4, 5, 8 and 10 in
    // Support/OrderStatisticTree/OrderStatisticTree.swift.
    let found = withProbe(id, key: key, like: other) { probe -> (Int, Result) in
      if let mark,
        let found = content.objects.partitionPoint(
          in: mark, { order.isBefore($0, probe: probe) },
          readingLeaf: { elements, offset -> Result? in
            guard (elements.baseAddress.unsafelyUnwrapped + offset).pointee.snapshot.objectID == id else { return nil }
            return body(elements, offset)
          })
      {
        return found
      }
      return content.objects.partitionPoint({ order.isBefore($0, probe: probe) }) { elements, offset in
        precondition(
          (elements.baseAddress.unsafelyUnwrapped + offset).pointee.snapshot.objectID == id,
          "a listed object is missing from its list")
        return body(elements, offset)
      }
    }
    guard let (rank, result) = found else { return nil }
    return (rank, result)
  }

  /// Hands `body` a probe for the listed object `id` (see ``ListProbe``),
  /// made from the values the list keeps for it, in place; nil when `id` is
  /// not listed. `like`, when given, is an edit of the object, whose new
  /// object's key words stand for the listed object's where its values
  /// are identical (see ``ListOrder/probe(_:values:derived:key:like:)``).
  @inline(__always)
  func withProbe<Result>(
    _ id: ObjectID, key: ListSortKey? = nil, like other: UnsafePointer<ListEdit>? = nil,
    _ body: (UnsafePointer<ListProbe>) -> Result
  ) -> Result? {
    let order = content.order
    // Invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    return values.withValue(for: id.rawValue) { values in
      // A listed object's derived values are the table's (invariant 8).
      let derived: [FilterValue]
      if let table = order.derived {
        guard let listed = table[id] else { preconditionFailure("a listed object's derived values are missing") }
        derived = listed
      } else {
        derived = []
      }
      return values.withUnsafeBufferPointer { values in
        derived.withUnsafeBufferPointer { derived in
          withUnsafePointer(to: order.probe(id, values: values, derived: derived, key: key, like: other), body)
        }
      }
    }
  }

  /// Keeps the values of an edit's object, read in place through a
  /// pointer to the edit, which must have one: its fields are copied, not
  /// the object whole.
  mutating func remember(_ edit: UnsafePointer<ListEdit>) {
    guard let values = edit.pointee.new?.snapshot.values else {
      preconditionFailure("an edit without an object has no values to keep")
    }
    let id = edit.pointee.objectID
    self.values.updateValue(values, for: id.rawValue)
    order.derived?[id] = edit.pointee.derived
  }

  /// The identifiers of the objects before and after the one at `rank`,
  /// nil past either end.
  func neighbours(_ rank: Int) -> (before: ObjectID?, after: ObjectID?) {
    // Invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    content.objects.readNeighbours(of: rank) { $0?.pointee.snapshot.objectID }
  }
}
