import ContextWatching
import ObjectGraph
import PredicateDSL
public import WatchFormats

extension ClientMessage {
  /// The message as JSON, as ``parse(_:limits:)`` reads it back; fields
  /// at their defaults are left out.
  public var json: JSONValue {
    var members: [(key: String, value: JSONValue)] = [("v", .int(LiveProtocol.version))]
    switch self {
    case .subscribe(let request):
      members += [("op", .string("subscribe")), ("id", .string(request.id)), ("entity", .string(request.entity))]
      members += Self.predicateMembers(request.predicate, request.arguments)
      members.append(("sort", Self.sortJSON(request.sortKeys)))
      if let section = request.sectionKey { members.append(("section", .string(section))) }
      if let limit = request.limit { members.append(("limit", .int(Int64(limit)))) }
    case .watch(let request):
      members += [("op", .string("watch")), ("id", .string(request.id)), ("entity", .string(request.entity))]
      members += Self.predicateMembers(request.predicate, request.arguments)
      if request.events != .all {
        let names = WatchEvents.ordered.filter { request.events.contains($0.event) }.map { JSONValue.string($0.name) }
        members.append(("events", .array(names)))
      }
    case .update(let request):
      members += [("op", .string("update")), ("id", .string(request.id))]
      if let predicate = request.predicate { members.append(("predicate", .string(predicate))) }
      if let arguments = request.arguments { members.append(("args", .array(arguments.map(JSONValue.init)))) }
      if let sortKeys = request.sortKeys { members.append(("sort", Self.sortJSON(sortKeys))) }
      if let section = request.sectionKey { members.append(("section", section.map(JSONValue.string) ?? .null)) }
      if let limit = request.limit { members.append(("limit", limit.map { .int(Int64($0)) } ?? .null)) }
    case .unsubscribe(let id):
      members += [("op", .string("unsubscribe")), ("id", .string(id))]
    case .ping(let id):
      members.append(("op", .string("ping")))
      if let id { members.append(("id", .string(id))) }
    }
    return .object(members)
  }

  /// The message as the text of a frame.
  public var text: String { json.serialized }

  private static func predicateMembers(
    _ predicate: String?, _ arguments: [FilterValue]
  ) -> [(
    key: String, value: JSONValue
  )] {
    var members: [(key: String, value: JSONValue)] = []
    if let predicate { members.append(("predicate", .string(predicate))) }
    if !arguments.isEmpty { members.append(("args", .array(arguments.map(JSONValue.init)))) }
    return members
  }

  private static func sortJSON(_ keys: [ObjectFetchRequest.SortKey]) -> JSONValue {
    .array(keys.map { .object([("key", .string($0.key)), ("ascending", .bool($0.ascending))]) })
  }
}
