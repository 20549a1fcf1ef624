import ObjectGraph

/// What the classifier needs of a watch slot for every candidate and match,
/// in one small value: reading each watch's `WatchEntry` object instead
/// would cost a cache miss per match when there are many watches.
struct SlotInfo {
  /// The watch reported: the entry's own, or its group's head.
  let id: WatchID
  let predicate: Int32
  private let flags: UInt8

  init(_ entry: WatchEntry) {
    id = entry.head ?? entry.id
    predicate = Int32(entry.predicateSlot)
    flags =
      (entry.filtersEvents ? 1 : 0) | (entry.countsEveryUpdate ? 2 : 0) | (entry.index != nil ? 4 : 0)
      | (entry.route != nil ? 8 : 0) | (entry.options.follows.rawValue << 4)
      | (entry.options.coalesces ? 64 : 0)
  }

  /// Whether the watch follows change values of `kind`. (Not read for each
  /// match: the matches of a change value are sifted once, afterwards, when
  /// some watch does not follow its kind.)
  func follows(_ kind: ContextSave.Kind) -> Bool { flags >> 4 & ChangeKinds(kind).rawValue != 0 }

  /// Whether the watch's options filter events or objects, or leave out
  /// saves.
  var filtersEvents: Bool { flags & 1 != 0 }
  /// Whether every update counts, whatever keys it changed.
  var countsEveryUpdate: Bool { flags & 2 != 0 }
  /// Whether the predicate has a conjunct for an index (an equality or a
  /// range), which the residual leaves out.
  var hasIndexedConjunct: Bool { flags & 4 != 0 }
  /// Whether the watch has a handler of its own (a `WatchRoute`).
  var isRouted: Bool { flags & 8 != 0 }
  /// Whether the watch delivers coalesced, through its route alone (see
  /// `DeliveryPolicy`).
  var isCoalesced: Bool { flags & 64 != 0 }
}
