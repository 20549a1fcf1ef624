public import ObjectGraph

/// One change of a ``RecordListMonitor``'s list: the batch update of
/// ``ListChanges``, its objects read as records.
///
/// Each changed object's snapshot is decoded once, when the change is
/// delivered, however many observers read it; a record that does not
/// decode is a failure naming the object, the key and the types, and the
/// change is delivered all the same, so that a view stays in step.
/// Coordinates, order and the meaning of each array are those of
/// ``ListChanges``.
///
/// ```swift
/// let token = people.observe { update in
///   for change in update.changes.inserted {
///     if case .success(let person) = change.record { print("new:", person.name, "at", change.indexPath) }
///   }
/// }
/// ```
public struct RecordListChanges<Record: EntityRecord & Sendable>: Sendable {
  /// The same changes with snapshots, as ``ListMonitor`` delivers them.
  public let untyped: ListChanges
  /// Objects no longer listed, at their old index paths, read from their
  /// last snapshots.
  public let deleted: [Change]
  /// Objects newly listed, at their new index paths.
  public let inserted: [Change]
  /// Objects that stayed in place and changed values, at their new index
  /// paths.
  public let updated: [Change]
  /// Objects that changed place, read from their new snapshots.
  public let moved: [Move]

  /// Decodes each changed object of `changes` once.
  @inlinable
  init(_ changes: ListChanges) {
    untyped = changes
    deleted = changes.deleted.map(Change.init)
    inserted = changes.inserted.map(Change.init)
    updated = changes.updated.map(Change.init)
    moved = changes.moved.map(Move.init)
  }

  /// The save the changes come from (see ``ListChanges/sequenceNumber``).
  public var sequenceNumber: Int { untyped.sequenceNumber }
  /// Sections that are gone, at their old indexes.
  public var deletedSections: [ListChanges.Section] { untyped.deletedSections }
  /// New sections, at their new indexes.
  public var insertedSections: [ListChanges.Section] { untyped.insertedSections }
  /// Whether nothing changed.
  public var isEmpty: Bool { untyped.isEmpty }
  /// Whether the changes replace the list by a new fetch (see
  /// ``ListChanges/isRefetch``).
  public var isRefetch: Bool { untyped.isRefetch }

  /// An object inserted, deleted or updated, with its record.
  public struct Change: Sendable {
    /// Where (old for a deletion, new otherwise).
    public let indexPath: ListIndexPath
    /// The object: its last snapshot for a deletion, its new one otherwise.
    public let object: ObjectSnapshot
    /// The keys that changed; empty for an insertion or deletion.
    public let changedKeys: [String]
    /// The object read as a record, or why it cannot be.
    public let record: Result<Record, ObjectGraphError>

    @inlinable
    init(_ change: ListChanges.Change) {
      indexPath = change.indexPath
      object = change.object
      changedKeys = change.changedKeys
      record = change.object.record(Record.self)
    }
  }

  /// An object that changed place, with its record.
  public struct Move: Sendable {
    /// Its old index path.
    public let from: ListIndexPath
    /// Its new index path.
    public let to: ListIndexPath
    /// Its new snapshot.
    public let object: ObjectSnapshot
    /// The keys that changed (empty when it moved only because of a change
    /// of request).
    public let changedKeys: [String]
    /// The object read as a record, or why it cannot be.
    public let record: Result<Record, ObjectGraphError>

    @inlinable
    init(_ move: ListChanges.Move) {
      from = move.from
      to = move.to
      object = move.object
      changedKeys = move.changedKeys
      record = move.object.record(Record.self)
    }
  }
}
