import ObjectGraph
import PredicateDSL

/// One watch, validated and compiled. A class: the classifier reads entries
/// for every candidate, and a reference is one retain where a struct of
/// these fields would be a dozen.
final class WatchEntry {
  let id: WatchID
  let entity: EntityLayout
  /// The whole predicate, arguments substituted.
  let predicate: PredicateSyntax
  let source: String?
  let options: WatchOptions
  /// Keys whose changes alone do not count (never one the predicate reads).
  let ignoredKeys: Set<String>
  /// The attribute slot of the indexed conjunct, when there is one.
  let indexSlot: Int
  /// The conjunct an index serves; the shared predicate is the rest.
  let index: IndexedConjunct.Kind?
  /// A range under the equality, served by a composite index.
  let secondary: (slot: Int, bounds: RangeBounds)?
  let predicateSlot: Int
  let dependencies: [Dependency]
  /// The attribute slots the predicate reads, as bits; nil when it reads
  /// more (see `PredicateAnalysis.attributeMask`).
  let attributeMask: UInt64?
  /// Whether the options filter events or objects (most watches do not).
  /// What a watch follows is not checked per match: the matches of the
  /// watches that do not follow a change value's kind are sifted once,
  /// afterwards (see `MasterFilter.sift(_:for:)`).
  let filtersEvents: Bool
  /// Whether the watch follows pending changes.
  let followsPending: Bool
  /// Whether every update counts (no watched keys, no ignored keys): most
  /// watches, which then skip looking at the changed keys.
  let countsEveryUpdate: Bool
  /// Whether the predicate has more than its indexed conjuncts (a residual
  /// other than `TRUEPREDICATE` to evaluate).
  let hasResidual: Bool
  /// The watch's own handler and its queue, if it has one (a group's
  /// members share their head's).
  let route: WatchRoute?
  /// For a member of a group (a watch of several entities), the group's
  /// identifier, which the member reports; nil for a watch of its own.
  let head: WatchID?
  /// For a watch of several entities, what its label calls them.
  let groupName: String?
  /// For a group's head, the slots of its members (set once they are all
  /// added; changed only under the watcher's lock).
  var members: [Int] = []

  init(
    id: WatchID, entity: EntityLayout, predicate: PredicateSyntax, source: String?, options: WatchOptions,
    ignoredKeys: Set<String>, indexSlot: Int, index: IndexedConjunct.Kind?,
    secondary: (slot: Int, bounds: RangeBounds)?, predicateSlot: Int, hasResidual: Bool, dependencies: [Dependency],
    attributeMask: UInt64?, route: WatchRoute? = nil, head: WatchID? = nil, groupName: String? = nil
  ) {
    self.hasResidual = hasResidual
    self.route = route
    self.head = head
    self.groupName = groupName
    self.id = id
    self.entity = entity
    self.predicate = predicate
    self.source = source
    self.options = options
    self.ignoredKeys = ignoredKeys
    self.indexSlot = indexSlot
    self.index = index
    self.secondary = secondary
    self.predicateSlot = predicateSlot
    self.dependencies = dependencies
    self.attributeMask = attributeMask
    filtersEvents = options.events != .all || options.objectIDs != nil
    followsPending = options.follows.contains(.pending)
    countsEveryUpdate = options.watchedKeys == nil && ignoredKeys.isEmpty
  }

  /// The watch's label: its own, or its entity and predicate.
  var label: String { options.label ?? "\(groupName ?? entity.name) \(source ?? predicate.description)" }

  /// A relationship path the predicate reads through.
  struct Dependency {
    /// The dependency's position in the watch's `dependencies`.
    var number: Int
    let path: [String]
    /// Keys read on the far entity; nil for any attribute.
    let keys: Set<String>?
    let target: EntityLayout
    let targetKinds: [Int]
    /// Inverse relationship slots leading back from the far end to the
    /// watched object, one per step.
    let inverseSlots: [Int]

    /// Whether the changes of an update of the far object matter.
    func isAffected(by update: ObjectUpdate) -> Bool {
      guard let keys else { return update.hasChangedAttributeKey }
      return update.containsChangedKey(where: keys.contains)
    }
  }

  /// Whether the watch's events and instance filters let `event` of the
  /// object `objectID` through.
  func reports(_ event: WatchEvent, of objectID: ObjectID) -> Bool {
    options.events.contains(WatchEvents(event)) && options.objectIDs?.contains(objectID) ?? true
  }

  /// Whether `update` counts for this watch by its changed keys (it still
  /// has to match before and after). The classifier answers without
  /// calling this for watches that count every update
  /// (`countsEveryUpdate`: any changed key counts).
  func counts(_ update: borrowing ObjectUpdate) -> Bool {
    if let watched = options.watchedKeys { return update.containsChangedKey(where: watched.contains) }
    return update.containsChangedKey { !ignoredKeys.contains($0) }
  }
}
