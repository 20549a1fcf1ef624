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
  /// Sections in order with their full counts (limit not applied); empty
  /// for a list without sections.
  var sectionCounts: OrderStatisticTree<SectionCount>
  let order: ListOrder
  /// The request's limit, or `Int.max`.
  let limit: Int
  let sectionName: @Sendable (FilterValue) -> String?
  /// The request's ``ListRequest/sectionIndexTitle``, or its default.
  var sectionIndexTitle: @Sendable (String) -> String? = ListRequest.defaultSectionIndexTitle
  /// How many times the list changed before this content: each save the
  /// list applies and each new request adds one, so that of two contents
  /// of one monitor the later has the greater generation.
  var generation = 0

  /// The number of objects listed.
  public var count: Int { Swift.min(objects.count, limit) }

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
    if limit >= objects.count { return sectionCounts.count }
    // Sections are listed while the objects before them are fewer than the
    // limit: a prefix of them.
    var low = 0
    var high = sectionCounts.count
    while low < high {
      let middle = (low + high) / 2
      if sectionCounts.weight(before: middle) < limit { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// A section's value, name and count.
  ///
  /// - Precondition: `index` is less than ``numberOfSections``.
  public func section(at index: Int) -> ListSectionInfo {
    precondition(index >= 0 && index < numberOfSections, "section \(index) is out of range 0..<\(numberOfSections)")
    guard order.isSectioned else { return ListSectionInfo(value: .null, name: nil, count: count) }
    let (value, count) = sectionCounts.read(index) { ($0.pointee.value, $0.pointee.count) }
    return ListSectionInfo(value: value, name: sectionName(value), count: listed(count, ofSectionAt: index))
  }

  /// The number of objects section `index` lists, within the limit.
  ///
  /// - Precondition: The list has sections, and `index` is less than
  ///   ``numberOfSections``.
  func listedCount(ofSectionAt index: Int) -> Int {
    listed(sectionCounts.read(index) { $0.pointee.count }, ofSectionAt: index)
  }

  /// How many of the `count` objects of section `index` the limit lets in.
  private func listed(_ count: Int, ofSectionAt index: Int) -> Int {
    limit == Int.max ? count : Swift.min(count, limit - sectionCounts.weight(before: index))
  }

  /// Every section, in order.
  ///
  /// - Complexity: O(*s* log *n*) for *s* sections.
  public var sections: [ListSectionInfo] { (0..<numberOfSections).map(section(at:)) }

  /// The object at a position in the whole list.
  ///
  /// - Precondition: `index` is less than ``count``.
  public func object(at index: Int) -> ObjectSnapshot {
    precondition(index >= 0 && index < count, "index \(index) is out of range 0..<\(count)")
    return objects[index].snapshot
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

  /// The object at a position in the whole list: `content[3]`.
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
    let first = order.isSectioned ? sectionCounts.weight(before: index) : 0
    return (first..<first + info.count).map { objects[$0].snapshot }
  }

  /// The index path of the object at a position in the whole list.
  ///
  /// - Precondition: `index` is less than ``count``.
  public func indexPath(ofObjectAt index: Int) -> ListIndexPath {
    precondition(index >= 0 && index < count, "index \(index) is out of range 0..<\(count)")
    return indexPath(rank: index)
  }

  /// The identifiers of the listed objects, in order.
  ///
  /// - Complexity: O(*n*).
  public var objectIDs: [ObjectID] { objects.prefix(count).map(\.objectID) }

  /// The listed objects, in order.
  ///
  /// - Complexity: O(*n*).
  public var snapshots: [ObjectSnapshot] { objects.prefix(count).map(\.snapshot) }

  // MARK: Positions

  /// The index path of the object at `rank` in the whole list (limit not
  /// checked), found by the sections' counts alone.
  func indexPath(rank: Int) -> ListIndexPath {
    guard order.isSectioned else { return ListIndexPath(item: rank, section: 0) }
    let (section, start) = sectionCounts.position(coveringWeight: rank)
    return ListIndexPath(item: rank - start, section: section)
  }

  /// The position `object` has, or would have, in the whole list.
  func rank(of object: ListedObject) -> Int {
    withUnsafePointer(to: object) { object in objects.partitionPoint { order.isBefore($0, object) } }
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

  /// The index of section `key` when it has a listed object (within the
  /// limit), else nil.
  func listedSectionIndex(of key: SectionKey) -> Int? {
    guard let index = sectionIndex(of: key), limit == Int.max || sectionCounts.weight(before: index) < limit else {
      return nil
    }
    return index
  }

  private func position(of indexPath: ListIndexPath) -> Int {
    precondition(
      indexPath.section >= 0 && indexPath.section < numberOfSections, "index path \(indexPath) is out of range")
    let info = section(at: indexPath.section)
    precondition(indexPath.item >= 0 && indexPath.item < info.count, "index path \(indexPath) is out of range")
    guard order.isSectioned else { return indexPath.item }
    return sectionCounts.weight(before: indexPath.section) + indexPath.item
  }
}
