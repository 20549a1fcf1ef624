import ContextWatching
import Foundation
import ObjectGraph
import WatchFormats

extension ClientMessage {
  /// Reads a client message from a frame's text, within `limits`.
  ///
  /// - Throws: ``LiveError`` with ``LiveErrorCode/frameTooLarge``,
  ///   ``LiveErrorCode/malformedFrame``, ``LiveErrorCode/unsupportedVersion``,
  ///   ``LiveErrorCode/unknownOp``, ``LiveErrorCode/predicateTooLong``,
  ///   ``LiveErrorCode/invalidArguments`` or ``LiveErrorCode/invalidRequest``,
  ///   carrying the frame's id when it has a readable one.
  /// - Complexity: O(*n*) in the frame's length.
  public static func parse(_ text: String, limits: LiveLimits = LiveLimits()) throws(LiveError) -> ClientMessage {
    let size = text.utf8.count
    guard size <= limits.maximumFrameBytes else {
      throw LiveError(
        id: nil, code: .frameTooLarge,
        message: "the frame has \(size) bytes; the most a frame may have is \(limits.maximumFrameBytes)")
    }
    let value: JSONValue
    do {
      value = try JSONValue.parse(Array(text.utf8))
    } catch {
      throw LiveError(id: nil, code: .malformedFrame, message: error.description)
    }
    guard case .object = value else {
      throw LiveError(id: nil, code: .malformedFrame, message: "a frame is a JSON object, not \(value.phrase)")
    }
    var fields = FrameFields(value, id: nil)
    if case .string(let id)? = value["id"] { fields.id = id }
    if let version = value["v"], version != .int(LiveProtocol.version) {
      throw fields.fail(
        "this server speaks version \(LiveProtocol.version) of the protocol, not \(version.phrase)",
        .unsupportedVersion)
    }
    let op = try fields.string("op")
    switch op {
    case "subscribe": return .subscribe(try subscribe(fields, limits: limits))
    case "watch": return .watch(try watch(fields, limits: limits))
    case "update": return .update(try update(fields, limits: limits))
    case "unsubscribe":
      try fields.requireOnly(["v", "op", "id"], in: "unsubscribe")
      return .unsubscribe(id: try id(fields, limits: limits))
    case "ping":
      try fields.requireOnly(["v", "op", "id"], in: "ping")
      return .ping(id: fields.has("id") ? try id(fields, limits: limits) : nil)
    default:
      let known = LiveProtocol.clientOps
      let hint = JSONValue.object([(op, .null)]).unknownFieldMessages(allowed: known).first ?? ""
      let suggestion = hint.range(of: "(did you mean").map { " " + hint[$0.lowerBound...] } ?? ""
      throw fields.fail(
        "unknown op '\(op)'\(suggestion); the ops are \(known.joined(separator: ", "))", .unknownOp)
    }
  }

  private static func id(_ fields: FrameFields, limits: LiveLimits) throws(LiveError) -> String {
    let id = try fields.string("id")
    guard !id.isEmpty, id.utf8.count <= limits.maximumIDBytes else {
      throw fields.fail("an id has 1 to \(limits.maximumIDBytes) bytes, not \(id.utf8.count)")
    }
    return id
  }

  private static func predicate(_ fields: FrameFields, limits: LiveLimits) throws(LiveError) -> String? {
    guard let text = try fields.optionalString("predicate") else { return nil }
    let size = text.utf8.count
    guard size <= limits.maximumPredicateBytes else {
      throw fields.fail(
        "the predicate has \(size) bytes; the most a predicate may have is \(limits.maximumPredicateBytes)",
        .predicateTooLong)
    }
    return text
  }

  private static func sortKeys(_ fields: FrameFields) throws(LiveError) -> [ObjectFetchRequest.SortKey] {
    var keys: [ObjectFetchRequest.SortKey] = []
    for (index, element) in try fields.array("sort").enumerated() {
      let key = FrameFields(element, id: fields.id)
      guard case .object = element else { throw fields.fail("\"sort\"[\(index)] is an object, not \(element.phrase)") }
      try key.requireOnly(["key", "ascending"], in: "\"sort\"[\(index)]")
      keys.append(
        ObjectFetchRequest.SortKey(try key.string("key"), ascending: try key.bool("ascending", default: true)))
    }
    guard !keys.isEmpty else { throw fields.fail("\"sort\" needs at least one key", .invalidRequest) }
    return keys
  }

  private static func limit(_ fields: FrameFields) throws(LiveError) -> Int? {
    guard let limit = try fields.optionalInt("limit") else { return nil }
    guard limit >= 1 else { throw fields.fail("\"limit\" is at least 1, not \(limit)", .invalidRequest) }
    return limit
  }

  private static func subscribe(_ fields: FrameFields, limits: LiveLimits) throws(LiveError) -> SubscribeRequest {
    try fields.requireOnly(
      ["v", "op", "id", "entity", "predicate", "args", "sort", "section", "limit"], in: "subscribe")
    return SubscribeRequest(
      id: try id(fields, limits: limits), entity: try fields.string("entity"),
      predicate: try predicate(fields, limits: limits), arguments: try fields.arguments("args") ?? [],
      sortKeys: try sortKeys(fields), sectionKey: try fields.optionalString("section"), limit: try limit(fields))
  }

  private static func watch(_ fields: FrameFields, limits: LiveLimits) throws(LiveError) -> WatchRequest {
    try fields.requireOnly(["v", "op", "id", "entity", "predicate", "args", "events"], in: "watch")
    var events: WatchEvents = .all
    if fields.has("events") {
      events = []
      for name in try fields.strings("events") {
        guard let event = WatchEvents.named[name] else {
          throw fields.fail(
            "unknown event '\(name)'; the events are inserted, updated, entered, exited, deleted", .invalidRequest)
        }
        events.insert(event)
      }
      guard !events.isEmpty else { throw fields.fail("\"events\" needs at least one event", .invalidRequest) }
    }
    return WatchRequest(
      id: try id(fields, limits: limits), entity: try fields.string("entity"),
      predicate: try predicate(fields, limits: limits), arguments: try fields.arguments("args") ?? [],
      events: events)
  }

  private static func update(_ fields: FrameFields, limits: LiveLimits) throws(LiveError) -> UpdateRequest {
    try fields.requireOnly(["v", "op", "id", "predicate", "args", "sort", "section", "limit"], in: "update")
    var request = UpdateRequest(id: try id(fields, limits: limits))
    request.predicate = try predicate(fields, limits: limits)
    request.arguments = try fields.arguments("args")
    if fields.has("sort") { request.sortKeys = try sortKeys(fields) }
    if fields.has("section") { request.sectionKey = .some(try fields.optionalString("section")) }
    if fields.has("limit") { request.limit = .some(try limit(fields)) }
    return request
  }
}

extension WatchEvents {
  /// The events by their names in the protocol, in the order the protocol
  /// lists them.
  static let ordered: [(name: String, event: WatchEvents)] = [
    ("inserted", .inserted), ("updated", .updated), ("entered", .entered), ("exited", .exited), ("deleted", .deleted),
  ]
  static let named = Dictionary(uniqueKeysWithValues: ordered.map { ($0.name, $0.event) })
}
