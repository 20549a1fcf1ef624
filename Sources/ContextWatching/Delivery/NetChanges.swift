import ObjectGraph

/// The net change one coalesced watch saw since its last delivery, object by
/// object, merged one change value at a time.
///
/// An object's pending change is the composition of the events the watch
/// saw, first to last:
///
/// | pending    | then      | becomes                            |
/// |------------|-----------|------------------------------------|
/// | inserted   | updated   | inserted, with the last values     |
/// | inserted   | exited    | nothing, until it enters: inserted |
/// | inserted   | deleted   | nothing                            |
/// | entered    | updated   | entered, merged                    |
/// | entered    | exited    | nothing, until it enters: entered  |
/// | entered    | deleted   | nothing                            |
/// | updated    | updated   | updated, merged                    |
/// | updated    | exited    | exited, merged                     |
/// | updated    | deleted   | deleted (keeping the values the    |
/// |            |           | window opened with)                |
/// | exited     | entered   | updated, merged                    |
/// | deleted    | inserted  | updated, merged from the values    |
/// |            |           | the window opened with (a rolled-  |
/// |            |           | back deletion, in pending changes) |
/// | exited     | inserted  | updated, merged (the same, of an   |
/// |            |           | object deleted while it did not    |
/// |            |           | match)                             |
///
/// Merged means the first old values and the last new ones, with the keys
/// whose values differ between them, in schema order (when none does, as
/// for a change through a relationship, the keys the events named). An
/// update whose values are back where they were is nothing. An object the
/// watch does not match at either end of the window, having been seen in
/// between, stays as a hidden entry carrying its first old values, so that
/// entering again reports it as it was when the window opened.
struct NetChanges: CoalescedChanges {
  private enum Net {
    case inserted(ObjectSnapshot)
    case updated(ObjectUpdate)
    case entered(ObjectUpdate)
    case exited(ObjectUpdate)
    /// Deleted, with the values the consumer holds when they are not the
    /// deleted ones (the object was updated earlier in the window): a
    /// rolled-back deletion brings it back, merged from those.
    case deleted(ObjectSnapshot, opening: ObjectSnapshot?)
    /// Matched at both ends of the window, with the same values: nothing
    /// to report unless it changes again.
    case unchanged(ObjectUpdate)
    /// Seen, and nothing now: inserted in the window (nil), or entered and
    /// exited again (the merged update, whose `before` opened the window).
    case hidden(ObjectUpdate?)

    var isVisible: Bool {
      switch self {
      case .hidden, .unchanged: false
      default: true
      }
    }
  }

  private var objects: [ObjectID: Net] = [:]
  /// The entries that are not hidden: the pending change is empty without
  /// them and failures.
  private var visibleCount = 0
  private var failures: [WatchFailure] = []
  /// The failures merged, so that each distinct one is reported once per
  /// delivery however many of the window's saves raised it.
  private var failureSet: Set<WatchFailure> = []
  private var watch: WatchID?
  private var sequenceNumbers: ClosedRange<Int>?
  private var author: String?
  private var authorsAgree = true
  private var cause: ChangeCause = .save
  private var causesAgree = true

  /// Whether nothing is to be delivered.
  var isEmpty: Bool { visibleCount == 0 && failures.isEmpty }

  /// Merges one change value's changes of the watch.
  mutating func merge(_ changes: WatchChanges) {
    if let numbers = sequenceNumbers {
      sequenceNumbers = numbers.lowerBound...max(numbers.upperBound, changes.sequenceNumber)
      if authorsAgree && author != changes.author { (author, authorsAgree) = (nil, false) }
      if causesAgree && cause != changes.cause { (cause, causesAgree) = (.save, false) }
    } else {
      (watch, author, cause) = (changes.watch, changes.author, changes.cause)
      sequenceNumbers = changes.sequenceNumber...changes.sequenceNumber
    }
    for snapshot in changes.inserted { apply(.inserted(snapshot), to: snapshot.objectID) }
    for update in changes.updated { apply(.updated(update), to: update.objectID) }
    for update in changes.entered { apply(.entered(update), to: update.objectID) }
    for update in changes.exited { apply(.exited(update), to: update.objectID) }
    for snapshot in changes.deleted { apply(.deleted(snapshot, opening: nil), to: snapshot.objectID) }
    for failure in changes.failures where failureSet.insert(failure).inserted { failures.append(failure) }
  }

  /// Composes `event` after the object's pending change (see the table in
  /// the type's description).
  private mutating func apply(_ event: Net, to objectID: ObjectID) {
    guard let index = objects.index(forKey: objectID) else {
      // The first event of the object in the window: one hash probe.
      objects[objectID] = event
      if event.isVisible { visibleCount += 1 }
      return
    }
    let pending: Net? = objects.values[index]
    let next: Net? =
      switch (pending, event) {
      case (nil, _): event
      case (.inserted, .updated(let update)): .inserted(update.after)
      case (.inserted, .exited): .hidden(nil)
      case (.inserted, .deleted): nil
      case (.entered(let first), .updated(let second)): .entered(Self.merge(first, second).update)
      case (.entered(let first), .exited(let second)): .hidden(Self.merge(first, second).update)
      case (.entered, .deleted): nil
      case (.updated(let first), .updated(let second)), (.unchanged(let first), .updated(let second)),
        (.exited(let first), .entered(let second)):
        Self.updated(Self.merge(first, second))
      case (.updated(let first), .exited(let second)), (.unchanged(let first), .exited(let second)):
        .exited(Self.merge(first, second).update)
      case (.updated(let first), .deleted(let last, _)), (.unchanged(let first), .deleted(let last, _)):
        .deleted(last, opening: first.before)
      case (.deleted(let first, let opening), .inserted(let second)):
        Self.updated(Self.merge(Self.unchanged(opening ?? first), Self.unchanged(second)))
      case (.exited(let first), .inserted(let second)): Self.updated(Self.merge(first, Self.unchanged(second)))
      case (.hidden(nil), .entered(let update)): .inserted(update.after)
      case (.hidden(let first?), .entered(let second)): .entered(Self.merge(first, second).update)
      case (.hidden(let first?), .inserted(let second)): .entered(Self.merge(first, Self.unchanged(second)).update)
      // A pair no watch reports (an object deleted twice, or updated while
      // it does not match): the later event stands.
      default: event
      }
    if pending?.isVisible == true { visibleCount -= 1 }
    if let next {
      objects.values[index] = next
      if next.isVisible { visibleCount += 1 }
    } else {
      objects.remove(at: index)
    }
  }

  /// The update from `first`'s old values to `second`'s new ones, and
  /// whether any of the object's own values differ between them.
  private static func merge(
    _ first: ObjectUpdate, _ second: ObjectUpdate
  ) -> (update: ObjectUpdate, differs: Bool) {
    let (before, after) = (first.before, second.after)
    var keys = differingKeys(before, after)
    let differs = !keys.isEmpty
    if !differs {
      // A change through a relationship leaves the object's own values as
      // they were: the events name the relationship.
      keys = first.changedKeys
      for key in second.changedKeys where !keys.contains(key) { keys.append(key) }
    }
    return (ObjectUpdate(before: before, after: after, changedKeys: keys), differs)
  }

  /// An object's values as an update that changes nothing, to merge with.
  private static func unchanged(_ snapshot: ObjectSnapshot) -> ObjectUpdate {
    ObjectUpdate(before: snapshot, after: snapshot, changedKeys: [])
  }

  /// A merged update: reported when values differ, else nothing unless it
  /// changes again.
  private static func updated(_ merged: (update: ObjectUpdate, differs: Bool)) -> Net {
    merged.differs ? .updated(merged.update) : .unchanged(merged.update)
  }

  /// The keys whose values differ between two snapshots of one object,
  /// attributes then relationships, in schema order.
  private static func differingKeys(_ before: ObjectSnapshot, _ after: ObjectSnapshot) -> [String] {
    let layout = after.layout
    var keys: [String] = []
    for slot in layout.attributes.indices where before.values[slot] != after.values[slot] {
      keys.append(layout.attributes[slot].name)
    }
    for slot in layout.relationships.indices where before.relationships[slot] != after.relationships[slot] {
      keys.append(layout.relationships[slot].name)
    }
    return keys
  }

  /// The pending change as one watch's changes, in identifier order, and
  /// an empty pending change in its place.
  mutating func take() -> WatchChanges {
    defer { self = NetChanges() }
    var changes = WatchChanges(
      watch: watch!, sequenceNumber: sequenceNumbers!.upperBound, author: author, failures: failures, cause: cause)
    changes.coalesced = sequenceNumbers
    for (_, net) in objects.sorted(by: { $0.key < $1.key }) {
      switch net {
      case .inserted(let snapshot): changes.inserted.append(snapshot)
      case .updated(let update): changes.updated.append(update)
      case .entered(let update): changes.entered.append(update)
      case .exited(let update): changes.exited.append(update)
      case .deleted(let snapshot, _): changes.deleted.append(snapshot)
      case .hidden, .unchanged: continue
      }
    }
    return changes
  }
}
