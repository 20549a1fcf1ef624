import ContextWatching
public import WatchFormats

extension ServerMessage {
  /// The message as JSON: `"v"`, `"op"` and `"id"` first, then the
  /// message's fields (see docs/live-queries.md).
  public var json: JSONValue {
    var members: [(key: String, value: JSONValue)] = [("v", .int(LiveProtocol.version))]
    switch self {
    case .snapshot(let message):
      members += [
        ("op", .string("snapshot")), ("id", .string(message.id)), ("seq", .int(Int64(message.sequenceNumber))),
      ]
      members.append(("sections", .array(message.sections.map(Self.json))))
      members.append(("objects", .array(message.objects.map(Self.json))))
    case .changes(let message):
      members += [
        ("op", .string("changes")), ("id", .string(message.id)), ("seq", .int(Int64(message.sequenceNumber))),
      ]
      members.append(("deletedSections", .array(message.deletedSections.map { .int(Int64($0)) })))
      members.append(("insertedSections", .array(message.insertedSections.map(Self.json))))
      members.append(("deleted", .array(message.deleted.map(Self.json))))
      members.append(("inserted", .array(message.inserted.map(Self.json))))
      members.append(("moved", .array(message.moved.map(Self.json))))
      members.append(("updated", .array(message.updated.map(Self.json))))
    case .event(let message):
      members += [("op", .string("event")), ("id", .string(message.id)), ("seq", .int(Int64(message.sequenceNumber)))]
      for (name, objects) in [
        ("inserted", message.inserted), ("updated", message.updated), ("entered", message.entered),
        ("exited", message.exited), ("deleted", message.deleted),
      ] {
        members.append((name, .array(objects.map(Self.json))))
      }
    case .error(let error):
      members += [
        ("op", .string("error")), ("id", error.id.map(JSONValue.string) ?? .null), ("code", .string(error.code.name)),
        ("message", .string(error.message)),
      ]
    case .pong(let id):
      members += [("op", .string("pong")), ("id", id.map(JSONValue.string) ?? .null)]
    case .ready(let sequenceNumber, let session, let resumed):
      members += [
        ("op", .string("ready")), ("seq", .int(Int64(sequenceNumber))),
        ("session", session.map(JSONValue.string) ?? .null), ("resumed", .bool(resumed)),
      ]
    }
    return .object(members)
  }

  private static func json(_ section: LiveSection) -> JSONValue {
    .object([
      ("index", .int(Int64(section.index))), ("name", section.name.map(JSONValue.string) ?? .null),
      ("count", .int(Int64(section.count))),
    ])
  }

  static func json(_ object: LiveObject) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [("ref", .string(object.ref))]
    if let values = object.values { members.append(("values", values)) }
    if !object.changedKeys.isEmpty { members.append(("changed", .array(object.changedKeys.map(JSONValue.string)))) }
    return .object(members)
  }

  private static func json(_ path: ListIndexPath) -> JSONValue {
    .array([.int(Int64(path.section)), .int(Int64(path.item))])
  }

  private static func json(_ row: LiveRow) -> JSONValue {
    guard case .object(let members) = json(row.object) else { return .null }
    return .object([("path", json(row.path))] + members)
  }

  private static func json(_ move: LiveMove) -> JSONValue {
    guard case .object(let members) = json(move.object) else { return .null }
    return .object([("from", json(move.from)), ("to", json(move.to))] + members)
  }
}

extension ServerMessage {
  /// Reads a server message from a frame's text: what a client (or a test)
  /// does with what ``text`` wrote.
  ///
  /// - Throws: ``LiveError`` with ``LiveErrorCode/malformedFrame`` naming
  ///   the field at fault.
  public static func parse(_ text: String) throws(LiveError) -> ServerMessage {
    let value: JSONValue
    do {
      value = try JSONValue.parse(Array(text.utf8))
    } catch {
      throw LiveError(id: nil, code: .malformedFrame, message: error.description)
    }
    var fields = FrameFields(value, id: nil)
    if case .string(let id)? = value["id"] { fields.id = id }
    guard case .object = value else { throw fields.fail("a frame is a JSON object, not \(value.phrase)") }
    switch try fields.string("op") {
    case "snapshot":
      return .snapshot(
        SnapshotMessage(
          id: try fields.string("id"), sequenceNumber: try fields.int("seq"),
          sections: try list(fields, "sections", section), objects: try list(fields, "objects", object)))
    case "changes":
      var deletedSections: [Int] = []
      for (index, element) in try fields.array("deletedSections").enumerated() {
        guard case .int(let number) = element, let small = Int(exactly: number) else {
          throw fields.fail("\"deletedSections\"[\(index)] is an integer, not \(element.phrase)")
        }
        deletedSections.append(small)
      }
      return .changes(
        ChangesMessage(
          id: try fields.string("id"), sequenceNumber: try fields.int("seq"), deletedSections: deletedSections,
          insertedSections: try list(fields, "insertedSections", section), deleted: try list(fields, "deleted", row),
          inserted: try list(fields, "inserted", row), moved: try list(fields, "moved", move),
          updated: try list(fields, "updated", row)))
    case "event":
      return .event(
        EventMessage(
          id: try fields.string("id"), sequenceNumber: try fields.int("seq"),
          inserted: try list(fields, "inserted", object), updated: try list(fields, "updated", object),
          entered: try list(fields, "entered", object), exited: try list(fields, "exited", object),
          deleted: try list(fields, "deleted", object)))
    case "error":
      return .error(
        LiveError(
          id: try fields.optionalString("id"), code: LiveErrorCode(try fields.string("code")),
          message: try fields.string("message")))
    case "pong":
      return .pong(id: try fields.optionalString("id"))
    case "ready":
      return .ready(
        sequenceNumber: try fields.int("seq"), session: try fields.optionalString("session"),
        resumed: try fields.bool("resumed", default: false))
    case let op:
      throw fields.fail("unknown op '\(op)'", .unknownOp)
    }
  }

  private static func list<T>(
    _ fields: FrameFields, _ key: String, _ read: (FrameFields) throws(LiveError) -> T
  ) throws(LiveError) -> [T] {
    var result: [T] = []
    for (index, element) in try fields.array(key).enumerated() {
      guard case .object = element else {
        throw fields.fail("\"\(key)\"[\(index)] is an object, not \(element.phrase)")
      }
      result.append(try read(FrameFields(element, id: fields.id)))
    }
    return result
  }

  private static func section(_ fields: FrameFields) throws(LiveError) -> LiveSection {
    LiveSection(index: try fields.int("index"), name: try fields.optionalString("name"), count: try fields.int("count"))
  }

  private static func object(_ fields: FrameFields) throws(LiveError) -> LiveObject {
    let changed = fields.has("changed") ? try fields.strings("changed") : []
    return LiveObject(ref: try fields.string("ref"), values: fields.value["values"], changedKeys: changed)
  }

  private static func path(_ fields: FrameFields, _ key: String) throws(LiveError) -> ListIndexPath {
    let elements = try fields.array(key)
    guard elements.count == 2, case .int(let section) = elements[0], case .int(let item) = elements[1] else {
      throw fields.fail("\"\(key)\" is [section, item]")
    }
    return ListIndexPath(item: Int(item), section: Int(section))
  }

  private static func row(_ fields: FrameFields) throws(LiveError) -> LiveRow {
    LiveRow(path: try path(fields, "path"), object: try object(fields))
  }

  private static func move(_ fields: FrameFields) throws(LiveError) -> LiveMove {
    LiveMove(from: try path(fields, "from"), to: try path(fields, "to"), object: try object(fields))
  }
}
