public import Foundation
public import ObjectGraph
import PredicateDSL
import Synchronization

extension ListMonitor {
  /// The content as of the last delivered change.
  ///
  /// Keeping a content costs nothing until the list changes; then the list
  /// copies the parts it changes (O(log *n*) each) for as long as a
  /// content of an earlier save is kept.
  public var content: ListContent { state.withLock { $0.content } }

  /// The request listed.
  public var request: ListRequest { currentRequest.withLock { $0 } }

  /// The last save the monitor applied (the context's sequence number at
  /// creation until then).
  public var sequenceNumber: Int { state.withLock { $0.sequenceNumber } }

  /// The number of objects listed.
  public var count: Int { state.withLock { $0.content.count } }

  /// Whether any object is listed (CoreStore's `hasObjects()`).
  public var hasObjects: Bool { state.withLock { $0.content.hasObjects } }

  /// Whether section `index` lists any object; false for a section the
  /// list does not have.
  public func hasObjects(inSection index: Int) -> Bool { state.withLock { $0.content.hasObjects(inSection: index) } }

  /// The object at a position in the whole list: `people[3]`.
  ///
  /// - Precondition: `position` is less than ``count``.
  public subscript(position: Int) -> ObjectSnapshot { content.object(at: position) }

  /// The object at item `item` of section `section`: `people[0, 3]`.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(section: Int, item: Int) -> ObjectSnapshot { content[section, item] }

  /// The object at an index path.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(indexPath: ListIndexPath) -> ObjectSnapshot { content.object(at: indexPath) }

  /// The object at an `IndexPath` (section, then item).
  ///
  /// - Precondition: The index path has two indexes and is in the list.
  public subscript(indexPath: IndexPath) -> ObjectSnapshot { content.object(at: indexPath) }

  /// The section index's entries: each section's title, each once, in
  /// order (see ``ListContent/sectionIndexTitles``).
  public var sectionIndexTitles: [String] { content.sectionIndexTitles }

  /// The first section with a section index entry; nil when none has it
  /// (see ``ListContent/section(forSectionIndexTitle:at:)``).
  public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
    content.section(forSectionIndexTitle: title, at: index)
  }

  /// The number of sections (1 for a list without sections).
  public var numberOfSections: Int { content.numberOfSections }

  /// A section's value, name and count.
  public func section(at index: Int) -> ListSectionInfo { content.section(at: index) }

  /// Every section, in order.
  public var sections: [ListSectionInfo] { content.sections }

  /// The objects of a section, in order.
  public func objects(inSection index: Int) -> [ObjectSnapshot] { content.objects(inSection: index) }

  /// The object at a position in the whole list.
  public func object(at index: Int) -> ObjectSnapshot { content.object(at: index) }

  /// The object at an index path.
  public func object(at indexPath: ListIndexPath) -> ObjectSnapshot { content.object(at: indexPath) }

  /// The object at an `IndexPath` (section, then item).
  public func object(at indexPath: IndexPath) -> ObjectSnapshot { content.object(at: indexPath) }

  /// The identifiers of the listed objects, in order.
  public var objectIDs: [ObjectID] { content.objectIDs }

  /// The index path of a listed object; nil when it is not listed.
  ///
  /// - Complexity: O(log *n*).
  public func indexPath(of objectID: ObjectID) -> ListIndexPath? {
    state.withLock { state in
      guard let rank = state.member(objectID)?.rank else { return nil }
      guard state.content.isListed(rank: rank) else { return nil }
      return state.content.indexPath(rank: rank)
    }
  }
}
