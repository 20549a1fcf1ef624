import ObjectGraph

/// A coalesced list monitor's edits since its last delivery: one per
/// object, each the last value the object was edited to, with the changed
/// keys of every edit merged. Applied at once, they take the delivered list
/// to the current one in one batch update.
///
/// Edits made for an earlier request (before `setRequest(_:)` or
/// `refetch()`, whose own delivery brings the list up to date) are dropped
/// when one for the current request comes.
struct ListEditBatch: CoalescedChanges {
  /// One save's edits, or a delivery's.
  struct Edits: Sendable {
    var edits: [ListEdit]
    var sequenceNumber: Int
    /// The list watch of the request the edits were made for.
    var listWatch: WatchID
  }

  private var pending: Edits?
  /// Where each object's edit is in `pending`.
  private var positions: [ObjectID: Int] = [:]

  var isEmpty: Bool { pending == nil }

  mutating func merge(_ change: Edits) {
    guard var merged = pending, merged.listWatch == change.listWatch else {
      pending = change
      positions = Dictionary(change.edits.indices.map { (change.edits[$0].objectID, $0) }) { first, _ in first }
      return
    }
    pending = nil
    for edit in change.edits {
      if let position = positions[edit.objectID] {
        merged.edits[position].absorb(edit)
      } else {
        positions[edit.objectID] = merged.edits.count
        merged.edits.append(edit)
      }
    }
    merged.sequenceNumber = change.sequenceNumber
    pending = merged
  }

  mutating func take() -> Edits {
    defer { self = ListEditBatch() }
    return pending!
  }
}

extension ListEdit {
  /// Merges a later edit of the same object: its value (an edit through a
  /// relationship applies to a listed object only, so it leaves an earlier
  /// removal as it is), and its changed keys after this one's.
  mutating func absorb(_ later: ListEdit) {
    for key in later.changedKeys where !changedKeys.contains(key) { changedKeys.append(key) }
    if later.isRelatedOnly {
      guard isRelatedOnly || new != nil else { return }
    } else {
      isRelatedOnly = false
    }
    new = later.new
    derived = later.derived
  }
}
