public import Foundation
public import ObjectGraph

/// A ``ListContent`` whose objects read as records: a list's content at one
/// change, as a value that stays as it is while the list moves on.
///
/// Reading a record decodes the object's snapshot then, O(log *n*) to find
/// it plus the decoding; a record that does not decode throws an
/// `ObjectGraphError` naming the object, the key and the types.
///
/// ```swift
/// let content = people.content
/// for section in 0..<content.numberOfSections {
///   print(content.section(at: section).name ?? "-", try content.records(inSection: section).map(\.name))
/// }
/// ```
public struct RecordListContent<Record: EntityRecord & Sendable>: Sendable {
  /// The same content, read as snapshots.
  public let untyped: ListContent

  @usableFromInline
  init(_ content: ListContent) { untyped = content }

  /// The number of objects listed.
  public var count: Int { untyped.count }

  /// Whether no object is listed.
  public var isEmpty: Bool { untyped.isEmpty }

  /// The number of sections (1 for a list without sections).
  public var numberOfSections: Int { untyped.numberOfSections }

  /// A section's value, name and count.
  ///
  /// - Precondition: `index` is less than ``numberOfSections``.
  public func section(at index: Int) -> ListSectionInfo { untyped.section(at: index) }

  /// Every section, in order.
  public var sections: [ListSectionInfo] { untyped.sections }

  /// The record at a position in the whole list.
  ///
  /// - Precondition: `position` is less than ``count``.
  public subscript(position: Int) -> Record {
    get throws(ObjectGraphError) { try untyped.object(at: position).readRecord(Record.self) }
  }

  /// The record at an index path.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(indexPath: ListIndexPath) -> Record {
    get throws(ObjectGraphError) { try untyped.object(at: indexPath).readRecord(Record.self) }
  }

  /// The record at an `IndexPath` (section, then item), as UIKit's and
  /// AppKit's views give them.
  ///
  /// - Precondition: The index path has two indexes and is in the list.
  public subscript(indexPath: IndexPath) -> Record {
    get throws(ObjectGraphError) { try untyped.object(at: indexPath).readRecord(Record.self) }
  }

  /// The records of one section, in order.
  ///
  /// - Complexity: O(*m* log *n*) and *m* decodings for *m* objects in the
  ///   section.
  public func records(inSection index: Int) throws(ObjectGraphError) -> [Record] {
    try untyped.objects(inSection: index).map { snapshot throws(ObjectGraphError) in
      try snapshot.readRecord(Record.self)
    }
  }

  /// Every listed record, in order.
  ///
  /// - Complexity: O(*n*) and *n* decodings.
  public var records: [Record] {
    get throws(ObjectGraphError) {
      try untyped.snapshots.map { snapshot throws(ObjectGraphError) in try snapshot.readRecord(Record.self) }
    }
  }

  /// The identifiers of the listed objects, in order.
  ///
  /// - Complexity: O(*n*).
  public var objectIDs: [ObjectID] { untyped.objectIDs }
}
