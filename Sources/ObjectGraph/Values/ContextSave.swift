import PredicateDSL

/// What one successful save changed: snapshots of the inserted, updated and
/// deleted objects. A plain `Sendable` value, handed to save observers and
/// posted with ``ObjectContext/didSaveNotification``.
///
/// Relationship changes appear on both sides: linking a person to a company
/// updates the person's `employer` and the company's `employees`.
///
/// ```swift
/// let token = context.addSaveObserver { save in
///   for update in save.updated {
///     for change in update.changes { print(update.after.objectID, change) }
///   }
/// }
/// ```
public struct ContextSave: Sendable, Hashable {
  /// What a change value reports: a save, or changes not saved yet.
  public enum Kind: Sendable, Hashable {
    /// A successful save: what Core Data's did-save notification reports.
    case save
    /// Changes made since the context last published its pending changes,
    /// not saved yet: what Core Data's objects-did-change notification
    /// reports. See ``ObjectContext/processPendingChanges()``.
    case pending
  }

  /// Whether this value reports a save or pending changes.
  public var kind: Kind
  /// The save's number in its context: 1 for the first save, then one more
  /// for each successful save. For pending changes, the number of the last
  /// save before them (0 before the first save).
  public var sequenceNumber: Int
  /// Who saved, as the context's ``ObjectContext/author`` or the save's own
  /// label named it.
  public var author: String?
  /// The name of the context that saved.
  public var contextName: String
  /// Objects inserted, as saved (for pending changes: as they are now), in
  /// identifier order.
  public var inserted: [ObjectSnapshot]
  /// Objects whose values or relationships changed, in identifier order.
  public var updated: [ObjectUpdate]
  /// Objects deleted, with the values they were last saved with (changes
  /// made before deleting them were never saved), in identifier order. For
  /// pending changes, the values they were last published with.
  public var deleted: [ObjectSnapshot]

  /// Creates a change value, as a source other than a context would.
  public init(
    sequenceNumber: Int, author: String?, contextName: String, inserted: [ObjectSnapshot],
    updated: [ObjectUpdate], deleted: [ObjectSnapshot], kind: Kind = .save
  ) {
    self.kind = kind
    self.sequenceNumber = sequenceNumber
    self.author = author
    self.contextName = contextName
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  /// How many objects changed.
  public var count: Int { inserted.count + updated.count + deleted.count }
}
