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
    deleted = changes.deleted.indices.map { Change(changes.deleted, $0) }
    inserted = changes.inserted.indices.map { Change(changes.inserted, $0) }
    updated = changes.updated.indices.map { Change(changes.updated, $0) }
    moved = changes.moved.indices.map { Move(changes.moved, $0) }
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
  ///
  /// It reads its index path, object and changed keys from the list
  /// monitor's change, which it shares, so that a copy retains one
  /// reference and the record; a change kept after its delivery keeps the
  /// delivery's changes of its kind. It prints and reflects as its own
  /// index path, object, changed keys and record.
  public struct Change: Sendable, CustomReflectable {
    /// The list monitor's changes of this one's kind (deleted, inserted
    /// or updated), and this one's position among them.
    @usableFromInline let changes: [ListChanges.Change]
    @usableFromInline let position: Int
    /// The object read as a record, or why it cannot be.
    public let record: Result<Record, ObjectGraphError>

    @inlinable
    init(_ changes: [ListChanges.Change], _ position: Int) {
      self.changes = changes
      self.position = position
      record = changes[position].object.record(Record.self)
    }

    /// Where (old for a deletion, new otherwise).
    public var indexPath: ListIndexPath { changes[position].indexPath }
    /// The object: its last snapshot for a deletion, its new one otherwise.
    public var object: ObjectSnapshot { changes[position].object }
    /// The keys that changed; empty for an insertion or deletion.
    public var changedKeys: [String] { changes[position].changedKeys }

    /// The change's own properties, not the shared changes it reads them
    /// from: what `print`, `dump` and a debugger show.
    public var customMirror: Mirror {
      Mirror(
        self,
        children: ["indexPath": indexPath, "object": object, "changedKeys": changedKeys, "record": record],
        displayStyle: .struct)
    }
  }

  /// An object that changed place, with its record.
  ///
  /// It reads its index paths, object and changed keys from the list
  /// monitor's move, which it shares, so that a copy retains one reference
  /// and the record; a move kept after its delivery keeps the delivery's
  /// moves. It prints and reflects as its own index paths, object, changed
  /// keys and record.
  public struct Move: Sendable, CustomReflectable {
    /// The list monitor's moves, and this one's position among them.
    @usableFromInline let moves: [ListChanges.Move]
    @usableFromInline let position: Int
    /// The object read as a record, or why it cannot be.
    public let record: Result<Record, ObjectGraphError>

    @inlinable
    init(_ moves: [ListChanges.Move], _ position: Int) {
      self.moves = moves
      self.position = position
      record = moves[position].object.record(Record.self)
    }

    /// Its old index path.
    public var from: ListIndexPath { moves[position].from }
    /// Its new index path.
    public var to: ListIndexPath { moves[position].to }
    /// Its new snapshot.
    public var object: ObjectSnapshot { moves[position].object }
    /// The keys that changed (empty when it moved only because of a change
    /// of request).
    public var changedKeys: [String] { moves[position].changedKeys }

    /// The move's own properties, not the shared moves it reads them from:
    /// what `print`, `dump` and a debugger show.
    public var customMirror: Mirror {
      Mirror(
        self,
        children: [
          "from": from, "to": to, "object": object, "changedKeys": changedKeys, "record": record,
        ],
        displayStyle: .struct)
    }
  }
}
