public import Foundation
public import ObjectGraph
import PredicateDSL

/// A list's content at one save: its objects in order and its sections, as
/// a value that stays as it is while the list moves on.
///
/// Taking a content costs O(1), and so does keeping it: it shares its
/// storage with the monitor's list until the list changes, and then only
/// the changed parts are copied. Every read is O(log *n*) unless it says
/// otherwise.
public struct ListContent: Sendable {
  var objects: OrderStatisticTree<ListedObject>
  /// Sections in order with their full counts (window not applied);
  /// empty for a list without sections.
  var sectionCounts: OrderStatisticTree<SectionCount>
  let order: ListOrder
  /// The request's limit, or `Int.max`.
  let limit: Int
  /// The request's offset: the rank in the whole list of the first listed
  /// object. The listed objects are those ranked `offset..<end`.
  let offset: Int
  let sectionName: @Sendable (FilterValue) -> String?
  /// The request's ``ListRequest/sectionIndexTitle``, or its default.
  var sectionIndexTitle: @Sendable (String) -> String? = ListRequest.defaultSectionIndexTitle
  /// How many times the list changed before this content: each save the
  /// list applies and each new request adds one, so that of two contents
  /// of one monitor the later has the greater generation.
  var generation = 0

  /// One past the rank of the last place the window covers:
  /// `offset + limit`, or `Int.max` without a limit (or past it).
  var end: Int { limit > Int.max - offset ? Int.max : offset + limit }

  /// Whether the object at `rank` in the whole list is listed: in the
  /// window `offset..<end`.
  @inline(__always)
  func isListed(rank: Int) -> Bool { rank >= offset && rank < end }

  /// The index in `sectionCounts` of the first listed section: the one
  /// holding the object at `offset`; the number of sections when the
  /// window is past the end.
  var firstListedSection: Int {
    guard offset > 0 else { return 0 }
    guard offset < objects.count else { return sectionCounts.count }
    return sectionCounts.position(coveringWeight: offset).position
  }

  /// The number of objects listed.
  public var count: Int { Swift.max(0, Swift.min(objects.count, end) - offset) }

  /// Whether no object is listed.
  public var isEmpty: Bool { count == 0 }

  /// Whether any object is listed (CoreStore's `hasObjects()`).
  public var hasObjects: Bool { count > 0 }

  /// Whether section `index` lists any object; false for a section the
  /// list does not have.
  public func hasObjects(inSection index: Int) -> Bool {
    index >= 0 && index < numberOfSections && section(at: index).count > 0
  }

  /// The number of sections: 1 for a list without sections (even when it
  /// is empty, as a table view expects), else the number of section values
  /// among the listed objects.
  public var numberOfSections: Int {
    guard order.isSectioned else { return 1 }
    let first = firstListedSection
    if end >= objects.count { return sectionCounts.count - first }
    // Sections are listed from the first while the objects before them are
    // fewer than the window's end: a run of them.
    var low = first
    var high = sectionCounts.count
    while low < high {
      let middle = (low + high) / 2
      if sectionCounts.weight(before: middle) < end { low = middle + 1 } else { high = middle }
    }
    return low - first
  }

  /// A section's value, name and count.
  ///
  /// - Precondition: `index` is less than ``numberOfSections``.
  public func section(at index: Int) -> ListSectionInfo {
    precondition(index >= 0 && index < numberOfSections, "section \(index) is out of range 0..<\(numberOfSections)")
    guard order.isSectioned else { return ListSectionInfo(value: .null, name: nil, count: count) }
    let full = firstListedSection + index
    let (value, count) = sectionCounts.read(full) { ($0.pointee.value, $0.pointee.count) }
    return ListSectionInfo(value: value, name: sectionName(value), count: listed(count, ofSectionAt: full))
  }

  /// The number of objects listed section `index` lists, within the
  /// window.
  ///
  /// - Precondition: The list has sections, and `index` is less than
  ///   ``numberOfSections``.
  func listedCount(ofSectionAt index: Int) -> Int {
    let full = firstListedSection + index
    return listed(sectionCounts.read(full) { $0.pointee.count }, ofSectionAt: full)
  }

  /// How many of the `count` objects of section `full` (an index among
  /// every section) the window lets in.
  private func listed(_ count: Int, ofSectionAt full: Int) -> Int {
    guard limit != Int.max || offset != 0 else { return count }
    let start = sectionCounts.weight(before: full)
    let high = count > end - start ? end : start + count
    return Swift.max(0, high - Swift.max(start, offset))
  }

  /// Every section, in order.
  ///
  /// - Complexity: O(*s* log *n*) for *s* sections.
  public var sections: [ListSectionInfo] { (0..<numberOfSections).map(section(at:)) }

  /// The object at a position in the list (0 for the first listed
  /// object, whatever the request's offset).
  ///
  /// - Precondition: `index` is less than ``count``.
  public func object(at index: Int) -> ObjectSnapshot {
    precondition(index >= 0 && index < count, "index \(index) is out of range 0..<\(count)")
    return objects[offset + index].snapshot
  }

  /// The object at an index path.
  ///
  /// - Precondition: The index path is in the list.
  public func object(at indexPath: ListIndexPath) -> ObjectSnapshot {
    object(at: position(of: indexPath))
  }

  /// The object at an `IndexPath` of two indexes, section then item, as
  /// UIKit's and AppKit's views give them.
  ///
  /// - Precondition: The index path has two indexes and is in the list.
  public func object(at indexPath: IndexPath) -> ObjectSnapshot {
    precondition(indexPath.count == 2, "an index path of a list has two indexes, section then item: \(indexPath)")
    return object(at: ListIndexPath(item: indexPath[1], section: indexPath[0]))
  }

  /// The object at a position in the list, across its sections:
  /// `content[3]`.
  ///
  /// - Precondition: `position` is less than ``count``.
  public subscript(position: Int) -> ObjectSnapshot { object(at: position) }

  /// The object at item `item` of section `section`: `content[0, 3]`.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(section: Int, item: Int) -> ObjectSnapshot {
    object(at: ListIndexPath(item: item, section: section))
  }

  /// The object at an index path.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(indexPath: ListIndexPath) -> ObjectSnapshot { object(at: indexPath) }

  /// The object at an `IndexPath` (section, then item).
  ///
  /// - Precondition: The index path has two indexes and is in the list.
  public subscript(indexPath: IndexPath) -> ObjectSnapshot { object(at: indexPath) }

  /// The objects of one section, in order.
  ///
  /// - Complexity: O(*m* log *n*) for *m* objects in the section.
  public func objects(inSection index: Int) -> [ObjectSnapshot] {
    let info = section(at: index)
    let start = order.isSectioned ? sectionCounts.weight(before: firstListedSection + index) : 0
    let first = Swift.max(start, offset)
    return (first..<first + info.count).map { objects[$0].snapshot }
  }

  /// The index path of the object at a position in the list, across its
  /// sections.
  ///
  /// - Precondition: `index` is less than ``count``.
  public func indexPath(ofObjectAt index: Int) -> ListIndexPath {
    precondition(index >= 0 && index < count, "index \(index) is out of range 0..<\(count)")
    return indexPath(rank: offset + index)
  }

  /// The identifiers of the listed objects, in order.
  ///
  /// - Complexity: O(*n*).
  public var objectIDs: [ObjectID] { objects.dropFirst(offset).prefix(count).map(\.objectID) }

  /// The listed objects, in order.
  ///
  /// - Complexity: O(*n*).
  public var snapshots: [ObjectSnapshot] { objects.dropFirst(offset).prefix(count).map(\.snapshot) }

  // MARK: Positions

  /// The index path of the object at `rank` in the whole list, counted
  /// from the window's start (the window's end not checked), found by the
  /// sections' counts alone.
  ///
  /// - Precondition: `rank` is at least ``offset``.
  func indexPath(rank: Int) -> ListIndexPath {
    guard order.isSectioned else { return ListIndexPath(item: rank - offset, section: 0) }
    let (section, start) = sectionCounts.position(coveringWeight: rank)
    guard offset > 0 else { return ListIndexPath(item: rank - start, section: section) }
    return ListIndexPath(item: rank - Swift.max(start, offset), section: section - firstListedSection)
  }

  /// The position `object` has, or would have, in the whole list.
  ///
  /// Only on the list's own content, under the monitor's state lock: a
  /// comparison on a key path reads the list's current derived values
  /// (``ListDerivedValues``), which a copy handed to a reader does not
  /// keep.
  func rank(of object: ListedObject) -> Int {
    withUnsafePointer(to: object) { rank(of: $0) }
  }

  /// The position the object `object` points to has, or would have, in
  /// the whole list, read in place; as `rank(of:)` (of a value), only
  /// on the list's own content.
  func rank(of object: UnsafePointer<some ListSortValues>) -> Int {
    objects.partitionPoint { order.isBefore($0, object) }
  }

  /// The index (in the full list of sections) of section `key`, or nil
  /// when no object has it.
  func sectionIndex(of key: SectionKey) -> Int? {
    let index = sectionCounts.partitionPoint { order.isSectionBefore($0, key) }
    guard index < sectionCounts.count, sectionCounts.read(index, { order.isSameSection($0, key) }) else {
      return nil
    }
    return index
  }

  /// The index among the listed sections of section `key` when it has a
  /// listed object (within the window), else nil.
  func listedSectionIndex(of key: SectionKey) -> Int? {
    guard let index = sectionIndex(of: key) else { return nil }
    guard limit != Int.max || offset != 0 else { return index }
    let start = sectionCounts.weight(before: index)
    guard start < end, start + sectionCounts.read(index, { $0.pointee.count }) > offset else { return nil }
    return index - firstListedSection
  }

  private func position(of indexPath: ListIndexPath) -> Int {
    precondition(
      indexPath.section >= 0 && indexPath.section < numberOfSections, "index path \(indexPath) is out of range")
    let info = section(at: indexPath.section)
    precondition(indexPath.item >= 0 && indexPath.item < info.count, "index path \(indexPath) is out of range")
    guard order.isSectioned else { return indexPath.item }
    let start = sectionCounts.weight(before: firstListedSection + indexPath.section)
    return Swift.max(start, offset) - offset + indexPath.item
  }
}
