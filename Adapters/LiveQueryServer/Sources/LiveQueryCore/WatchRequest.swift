public import ContextWatching
public import PredicateDSL

/// A `watch`: the inserted, updated, entered, exited and deleted objects of
/// an entity that match a predicate, per save.
public struct WatchRequest: Hashable, Sendable {
  /// The client's name for the watch, unique among its live subscriptions.
  public var id: String
  /// The entity watched (sub-entities included).
  public var entity: String
  /// The predicate format text; nil watches every readable object.
  public var predicate: String?
  /// The values of the predicate's `%@` specifiers, in order.
  public var arguments: [FilterValue]
  /// The events reported.
  public var events: WatchEvents

  /// Creates a request.
  public init(
    id: String, entity: String, predicate: String? = nil, arguments: [FilterValue] = [], events: WatchEvents = .all
  ) {
    self.id = id
    self.entity = entity
    self.predicate = predicate
    self.arguments = arguments
    self.events = events
  }
}
