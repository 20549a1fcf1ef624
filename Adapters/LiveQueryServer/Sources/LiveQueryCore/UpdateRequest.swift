public import ObjectGraph
public import PredicateDSL

/// An `update` of a live subscription: each field given replaces the
/// subscription's; a field left out keeps it. The answer is one `changes`
/// from the old list to the new.
///
/// `sectionKey` and `limit` are doubly optional: nil keeps the current
/// value, `.some(nil)` (JSON `null`) removes it.
public struct UpdateRequest: Hashable, Sendable {
  /// The subscription's id.
  public var id: String
  /// A new predicate, with ``arguments`` (none when they are left out).
  public var predicate: String?
  /// New arguments; alone, they are applied to the current predicate text.
  public var arguments: [FilterValue]?
  /// A new order.
  public var sortKeys: [ObjectFetchRequest.SortKey]?
  /// A new section key, or `.some(nil)` for none.
  public var sectionKey: String??
  /// A new limit, or `.some(nil)` for none.
  public var limit: Int??

  /// Creates a request that changes the fields given.
  public init(
    id: String, predicate: String? = nil, arguments: [FilterValue]? = nil,
    sortKeys: [ObjectFetchRequest.SortKey]? = nil, sectionKey: String?? = nil, limit: Int?? = nil
  ) {
    self.id = id
    self.predicate = predicate
    self.arguments = arguments
    self.sortKeys = sortKeys
    self.sectionKey = sectionKey
    self.limit = limit
  }
}
