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
/// | updated    | deleted   | deleted                            |
/// | exited     | entered   | updated, merged                    |
///
/// Merged means the first old values, the last new ones, and the changed
/// keys of both (the first's, then the second's new ones). An object the
/// watch does not match at either end of the window, having been seen in
/// between, stays as a hidden entry carrying its first old values, so that
/// entering again reports it as it was when the window opened.
struct NetChanges: CoalescedChanges {
  private enum Net {
    case inserted(ObjectSnapshot)
    case updated(ObjectUpdate)
    case entered(ObjectUpdate)
    case exited(ObjectUpdate)
    case deleted(ObjectSnapshot)
    /// Seen, and nothing now: inserted in the window (nil), or entered and
    /// exited again (the merged update, whose `before` opened the window).
    case hidden(ObjectUpdate?)

    var isVisible: Bool {
      if case .hidden = self { return false }
      return true
    }
  }

  private var objects: [ObjectID: Net] = [:]
  /// The entries that are not hidden: the pending change is empty without
  /// them and failures.
  private var visibleCount = 0
  private var failures: [WatchFailure] = []
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
    for snapshot in changes.deleted { apply(.deleted(snapshot), to: snapshot.objectID) }
    failures.append(contentsOf: changes.failures)
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
      case (.entered(let first), .updated(let second)): .entered(Self.merge(first, second))
      case (.entered(let first), .exited(let second)): .hidden(Self.merge(first, second))
      case (.entered, .deleted): nil
      case (.updated(let first), .updated(let second)): .updated(Self.merge(first, second))
      case (.updated(let first), .exited(let second)): .exited(Self.merge(first, second))
      case (.updated, .deleted): event
      case (.exited(let first), .entered(let second)): .updated(Self.merge(first, second))
      case (.hidden(nil), .entered(let update)): .inserted(update.after)
      case (.hidden(let first?), .entered(let second)): .entered(Self.merge(first, second))
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

  /// The update from `first`'s old values to `second`'s new ones.
  private static func merge(_ first: ObjectUpdate, _ second: ObjectUpdate) -> ObjectUpdate {
    var keys = first.changedKeys
    // A handful of keys: a linear search beats hashing them.
    for key in second.changedKeys where !keys.contains(key) { keys.append(key) }
    return ObjectUpdate(before: first.before, after: second.after, changedKeys: keys)
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
      case .deleted(let snapshot): changes.deleted.append(snapshot)
      case .hidden: continue
      }
    }
    return changes
  }
}
