public import ObjectGraph
public import PredicateDSL

/// A `subscribe`: a live, sorted, optionally sectioned and limited list of
/// an entity's objects that match a predicate.
public struct SubscribeRequest: Hashable, Sendable {
  /// The client's name for the subscription, unique among its live ones.
  public var id: String
  /// The entity listed (sub-entities included).
  public var entity: String
  /// The predicate format text; nil lists every readable object.
  public var predicate: String?
  /// The values of the predicate's `%@` specifiers, in order.
  public var arguments: [FilterValue]
  /// The order: at least one key.
  public var sortKeys: [ObjectFetchRequest.SortKey]
  /// The key grouping objects into sections (the first sort key's), or nil.
  public var sectionKey: String?
  /// The most objects listed, or nil for no limit.
  public var limit: Int?

  /// Creates a request.
  public init(
    id: String, entity: String, predicate: String? = nil, arguments: [FilterValue] = [],
    sortKeys: [ObjectFetchRequest.SortKey], sectionKey: String? = nil, limit: Int? = nil
  ) {
    self.id = id
    self.entity = entity
    self.predicate = predicate
    self.arguments = arguments
    self.sortKeys = sortKeys
    self.sectionKey = sectionKey
    self.limit = limit
  }
}
