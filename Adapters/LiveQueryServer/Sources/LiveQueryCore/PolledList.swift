import ObjectGraph

/// A subscription of a polling session: the request as a fetch, and the
/// text of the last snapshot sent, to tell whether a poll found a change.
final class PolledList: @unchecked Sendable {
  // @unchecked Sendable: `lastObjects` is read and written only on the
  // session's queue; the other properties are immutable.
  let request: SubscribeRequest
  let access: EntityAccess
  let fetch: ObjectFetchRequest
  /// The objects of the last snapshot sent, serialized; nil before the
  /// first.
  var lastObjects: String?

  init(request: SubscribeRequest, access: EntityAccess, fetch: ObjectFetchRequest) {
    self.request = request
    self.access = access
    self.fetch = fetch
  }
}
