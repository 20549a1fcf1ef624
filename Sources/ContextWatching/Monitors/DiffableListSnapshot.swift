public import ObjectGraph
public import PredicateDSL

/// What a diffable data source applies for a list: the section and item
/// identifiers of the content, and the items whose cells show values a
/// change changed. The parts of UIKit's and AppKit's
/// `NSDiffableDataSourceSnapshot`, as plain values made by a pure function
/// of a list monitor's delivery.
///
/// ```swift
/// let token = people.observe { update in
///   let identifiers = DiffableListSnapshot(update)
///   // NSDiffableDataSourceSnapshot: appendSections(identifiers.sectionIdentifiers), then
///   // appendItems(identifiers.itemIdentifiers[i], toSection: identifiers.sectionIdentifiers[i]),
///   // reconfigureItems(identifiers.reconfiguredItemIdentifiers); then apply it.
/// }
/// ```
///
/// Sections are identified by their value (one section, identified by
/// nil, for a list without sections), objects by their `ObjectID`: both
/// `Hashable` and `Sendable`, as a diffable snapshot requires, and unique.
/// The data source finds moves, insertions and deletions itself by
/// comparing identifiers; what it cannot see is a value changed on an
/// object that stays, which ``reconfiguredItemIdentifiers`` names.
public struct DiffableListSnapshot: Hashable, Sendable {
  /// The sections' identifiers (their values), in order.
  public var sectionIdentifiers: [FilterValue]
  /// The objects' identifiers, section by section, in order.
  public var itemIdentifiers: [[ObjectID]]
  /// The objects listed before and after the change whose cells may show
  /// other values, in the order of the new list: updated objects, moved
  /// objects with changed keys, and objects that changed section (a batch
  /// update deletes and inserts those). Empty for a content alone.
  public var reconfiguredItemIdentifiers: [ObjectID]

  /// The identifiers of a content, with nothing to reconfigure: a data
  /// source's first snapshot.
  ///
  /// - Complexity: O(*n* + *s* log *n*) for *n* objects in *s* sections.
  public init(_ content: ListContent) {
    let sections = content.sections
    sectionIdentifiers = sections.map(\.value)
    let objectIDs = content.objectIDs
    var items: [[ObjectID]] = []
    items.reserveCapacity(sections.count)
    var start = 0
    for section in sections {
      items.append(Array(objectIDs[start..<start + section.count]))
      start += section.count
    }
    itemIdentifiers = items
    reconfiguredItemIdentifiers = []
  }

  /// The identifiers of a delivery's new content, and the objects whose
  /// cells its changes made stale.
  ///
  /// - Complexity: O(*n* + *s* log *n* + *k* log *k*) for *k* changes.
  public init(_ update: ListMonitorUpdate) {
    self.init(update.content)
    reconfiguredItemIdentifiers = Self.reconfigured(update.changes)
  }

  /// The identifiers of a record list's delivery, as for a list monitor's.
  public init<Record>(_ update: RecordListUpdate<Record>) {
    self.init(update.untyped)
  }

  /// Objects updated, moved with changed keys, or deleted and inserted, by
  /// new index path.
  private static func reconfigured(_ changes: ListChanges) -> [ObjectID] {
    var stale: [(ListIndexPath, ObjectID)] = changes.updated.map { ($0.indexPath, $0.object.objectID) }
    for move in changes.moved where !move.changedKeys.isEmpty { stale.append((move.to, move.object.objectID)) }
    if !changes.deleted.isEmpty && !changes.inserted.isEmpty {
      let deleted = Set(changes.deleted.map(\.object.objectID))
      for change in changes.inserted where deleted.contains(change.object.objectID) {
        stale.append((change.indexPath, change.object.objectID))
      }
    }
    stale.sort { $0.0 < $1.0 }
    return stale.map(\.1)
  }
}
