public import ObjectGraph

/// How one watch filters what it reports, beyond its predicate.
///
/// ```swift
/// var options = WatchOptions()
/// options.events = [.entered, .exited]
/// options.watchedKeys = ["salary"]        // or ignoredKeys, not both
/// let token = try watcher.watch("Person", where: "age > 30", options: options)
/// ```
public struct WatchOptions: Hashable, Sendable {
  /// The events reported; all by default.
  public var events: WatchEvents = .all
  /// When set, an update counts only if it changes one of these keys.
  /// Entering and exiting always count. Exclusive with ``ignoredKeys``.
  public var watchedKeys: Set<String>? {
    get { filters?.values.watchedKeys }
    set { update { $0.watchedKeys = newValue } }
  }
  /// An update that changes only these keys does not count. A key that the
  /// predicate reads is never ignored: a change to it always counts. Added
  /// to the entity's ignored keys from the schema.
  public var ignoredKeys: Set<String> {
    get { filters?.values.ignoredKeys ?? [] }
    set { update { $0.ignoredKeys = newValue } }
  }
  /// When set, only these objects are reported (an instance filter).
  public var objectIDs: Set<ObjectID>? {
    get { filters?.values.objectIDs }
    set { update { $0.objectIDs = newValue } }
  }
  /// A name for messages and for the command line: `"seniors"`. By default
  /// the watch's entity and predicate.
  public var label: String? {
    get { filters?.values.label }
    set { update { $0.label = newValue } }
  }
  /// What the watch follows: saves (the default), pending changes as the
  /// context publishes them before any save, or both. A watch of pending
  /// changes is classified as a watch of saves is (enter and exit,
  /// relationships, key filters, attribution); each delivery says which
  /// cause it reports (``ContextChanges/cause``). An empty set is refused.
  public var follows: ChangeKinds {
    get { filters?.values.follows ?? .saves }
    set { update { $0.follows = newValue } }
  }

  /// When the watch's changes are delivered: after every save (the
  /// default), or coalesced over an interval or until the consumer is ready
  /// (see ``DeliveryPolicy``). A coalesced watch follows saves or pending
  /// changes, not both: a save reports again what its pending changes did.
  public var delivery: DeliveryPolicy {
    get { filters?.values.delivery ?? .everySave }
    set { update { $0.delivery = newValue } }
  }

  /// Whether the watch's deliveries are coalesced: false at once for the
  /// default options, with no policy to compare.
  var coalesces: Bool {
    guard let filters else { return false }
    return !filters.values.delivery.isEverySave
  }

  /// Whether the entity's ignored keys from the schema are set aside, so
  /// that every change of a matching object counts: a list monitor keeps
  /// exact snapshots of its objects.
  var countsIgnoredKeys: Bool {
    get { filters?.values.countsIgnoredKeys ?? false }
    set { update { $0.countsIgnoredKeys = newValue } }
  }

  /// Everything but the events, shared by copies and nil while all of it
  /// has its default: most watches take the default options, which then
  /// cost one word to keep and nothing to copy or destroy (four optional
  /// sets and a string would cost a release each).
  private var filters: Filters?

  private struct Values: Hashable {
    var watchedKeys: Set<String>?
    var ignoredKeys: Set<String> = []
    var objectIDs: Set<ObjectID>?
    var label: String?
    var countsIgnoredKeys = false
    var follows: ChangeKinds = .saves
    var delivery: DeliveryPolicy = .everySave
  }

  private final class Filters: Sendable {
    let values: Values
    init(_ values: Values) { self.values = values }
  }

  /// Changes the values; back to nil when they are all defaults again.
  private mutating func update(_ change: (inout Values) -> Void) {
    var values = filters?.values ?? Values()
    change(&values)
    filters = values == Values() ? nil : Filters(values)
  }

  /// Creates options that report every event of every object.
  public init(
    events: WatchEvents = .all, watchedKeys: Set<String>? = nil, ignoredKeys: Set<String> = [],
    objectIDs: Set<ObjectID>? = nil, label: String? = nil, follows: ChangeKinds = .saves,
    delivery: DeliveryPolicy = .everySave
  ) {
    self.events = events
    // Plain checks first: most watches take the defaults, and then build
    // and compare no values.
    if watchedKeys != nil || !ignoredKeys.isEmpty || objectIDs != nil || label != nil || follows != .saves
      || !delivery.isEverySave
    {
      filters = Filters(
        Values(
          watchedKeys: watchedKeys, ignoredKeys: ignoredKeys, objectIDs: objectIDs, label: label, follows: follows,
          delivery: delivery))
    }
  }

  /// Equal when every option is.
  public static func == (lhs: WatchOptions, rhs: WatchOptions) -> Bool {
    lhs.events == rhs.events && (lhs.filters === rhs.filters || lhs.filters?.values == rhs.filters?.values)
  }

  /// Hashes every option.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(events)
    hasher.combine(filters?.values)
  }
}
