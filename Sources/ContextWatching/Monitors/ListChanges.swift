public import ObjectGraph
import PredicateDSL

/// What one save (or a change of request) did to a list, in the
/// coordinates a table or collection view's batch update takes: deleted
/// sections, deleted objects and the sources of moves in the old list's
/// index paths; inserted sections, inserted objects, the destinations of
/// moves and updated objects in the new list's.
///
/// Each array is sorted by index path (moves by source, then
/// destination). An object in a deleted section is also reported deleted,
/// and one in an inserted section inserted, even when it stays listed: a
/// table view moves rows only between sections that stay. An object that
/// stays and changes values is updated, at its new index path (UIKit's
/// `reloadRows` takes old ones: reconfigure updated rows after the batch);
/// one whose place among the others changes is moved, never also updated.
///
/// ```swift
/// tableView.performBatchUpdates {
///   tableView.deleteSections(IndexSet(changes.deletedSections.map(\.index)), with: .fade)
///   tableView.insertSections(IndexSet(changes.insertedSections.map(\.index)), with: .fade)
///   tableView.deleteRows(at: changes.deleted.map(\.indexPath.uiKit), with: .fade)
///   // …
/// }
/// ```
public struct ListChanges: Hashable, Sendable {
  /// The save the changes come from; for a change of request, the last
  /// save the list had seen.
  public var sequenceNumber: Int
  /// Sections that are gone, at their old indexes.
  public var deletedSections: [Section]
  /// New sections, at their new indexes.
  public var insertedSections: [Section]
  /// Objects no longer listed, at their old index paths, with their last
  /// snapshots.
  public var deleted: [Change]
  /// Objects newly listed, at their new index paths.
  public var inserted: [Change]
  /// Objects that stayed in place and changed values, at their new index
  /// paths, with the changed keys.
  public var updated: [Change]
  /// Objects that changed place: from their old index path to their new
  /// one, with the changed keys.
  public var moved: [Move]
  /// Whether the changes replace the list by a new fetch
  /// (``ListMonitor/refetch()`` or ``ListMonitor/setRequest(_:)``) rather
  /// than follow a save: observers are told so around them.
  public var isRefetch = false

  /// Creates changes.
  public init(
    sequenceNumber: Int, deletedSections: [Section] = [], insertedSections: [Section] = [], deleted: [Change] = [],
    inserted: [Change] = [], updated: [Change] = [], moved: [Move] = []
  ) {
    self.sequenceNumber = sequenceNumber
    self.deletedSections = deletedSections
    self.insertedSections = insertedSections
    self.deleted = deleted
    self.inserted = inserted
    self.updated = updated
    self.moved = moved
  }

  /// Whether nothing changed.
  public var isEmpty: Bool {
    deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && updated.isEmpty
      && moved.isEmpty
  }

  /// A section inserted or deleted.
  public struct Section: Hashable, Sendable {
    /// The section's index (old for a deletion, new for an insertion).
    public var index: Int
    /// The section's value and name; its count is the count listed before
    /// the deletion or after the insertion.
    public var info: ListSectionInfo

    /// Creates a section change.
    public init(index: Int, info: ListSectionInfo) {
      self.index = index
      self.info = info
    }
  }

  /// An object inserted, deleted or updated.
  public struct Change: Hashable, Sendable {
    /// Where (old for a deletion, new otherwise).
    public var indexPath: ListIndexPath
    /// The object: its last snapshot for a deletion, its new one otherwise.
    public var object: ObjectSnapshot
    /// The keys that changed; empty for an insertion or deletion.
    public var changedKeys: [String]

    /// Creates a change.
    public init(indexPath: ListIndexPath, object: ObjectSnapshot, changedKeys: [String] = []) {
      self.indexPath = indexPath
      self.object = object
      self.changedKeys = changedKeys
    }
  }

  /// An object that changed place.
  public struct Move: Hashable, Sendable {
    /// Its old index path.
    public var from: ListIndexPath
    /// Its new index path.
    public var to: ListIndexPath
    /// Its new snapshot.
    public var object: ObjectSnapshot
    /// The keys that changed (empty when the object moved only because of
    /// a change of request).
    public var changedKeys: [String]

    /// Creates a move.
    public init(from: ListIndexPath, to: ListIndexPath, object: ObjectSnapshot, changedKeys: [String] = []) {
      self.from = from
      self.to = to
      self.object = object
      self.changedKeys = changedKeys
    }
  }
}
