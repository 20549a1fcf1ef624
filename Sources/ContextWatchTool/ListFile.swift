import ContextWatching
import Foundation
import ObjectGraph
import PredicateDSL
import WatchFormats

/// The lists file of `replay --lists`: a JSON array of `{"name": String,
/// "entity": String, "predicate": String?, "arguments": [JSON]?, "sortBy":
/// [{"key": String, "ascending": Bool?}], "sectionBy": String?, "limit":
/// Int?, "offset": Int?}`, sort keys ascending unless they say otherwise.
///
/// Reading checks the shape of each list and parses its predicate; the
/// schema's checks (entity, keys, sort and section keys) come when the
/// replayer creates the list's monitor. Each problem is one message that
/// names the list (`list 'adults': …`), or its place in the file when it
/// has no name (`lists[2]: …`).
enum ListFile {
  /// One list of the file: its name, what it lists, and its place in the
  /// file.
  struct List {
    var name: String
    var request: ListRequest
    var place: Int
  }

  /// A problem of the file: its message, and the place of the list it is
  /// about (0 for the file as a whole), so that messages can be told in
  /// the file's order.
  struct Problem {
    var place: Int
    var message: String
  }

  /// The fields a list may have, in the order messages name them.
  static let fields = ["name", "entity", "predicate", "arguments", "sortBy", "sectionBy", "limit", "offset"]
  /// The fields a sort key may have.
  static let sortKeyFields = ["key", "ascending"]

  /// The lists of a file, and the problems of those that could not be
  /// read (they are left out).
  ///
  /// - Throws: When the file cannot be read or is not UTF-8 JSON.
  static func read(_ path: String) throws -> (lists: [List], problems: [Problem]) {
    try lists(in: JSONValue.parse(file: path))
  }

  /// The lists a file's JSON describes, and the problems of those that
  /// could not be read. A list whose only problem is a name that an
  /// earlier list took is among the lists, so that the schema's checks
  /// reach it too; its clash is among the problems, so the file still
  /// does not run.
  static func lists(in json: JSONValue) -> (lists: [List], problems: [Problem]) {
    guard case .array(let items) = json else {
      return ([], [Problem(place: 0, message: "the lists file is a JSON array of lists, not \(json.phrase)")])
    }
    var lists: [List] = []
    var problems: [Problem] = []
    var places: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      guard case .object = item else {
        problems.append(
          Problem(place: index, message: "lists[\(index)]: a list is a JSON object, not \(item.phrase)"))
        continue
      }
      guard case .string(let name)? = item["name"] else {
        let found = item["name"].map { ", not \($0.phrase)" } ?? ""
        problems.append(Problem(place: index, message: "lists[\(index)]: needs a \"name\" string\(found)"))
        continue
      }
      var messages: [String] = []
      if let first = places[name] {
        messages.append("list '\(name)': the name is taken by lists[\(first)]; each list needs a name of its own")
      } else {
        places[name] = index
      }
      // A list whose name is taken is still read and kept, so that the
      // schema checks it too; the clash alone keeps the file from running.
      if let list = list(item, named: name, place: index, problems: &messages) { lists.append(list) }
      problems += messages.map { Problem(place: index, message: $0) }
    }
    return (lists, problems)
  }

  /// The list `item` describes, or nil with its problems added to
  /// `problems`.
  private static func list(
    _ item: JSONValue, named name: String, place: Int, problems: inout [String]
  ) -> List? {
    guard case .object = item else { return nil }
    let problemsBefore = problems.count
    func problem(_ text: String) { problems.append("list '\(name)': \(text)") }
    item.unknownFieldMessages(allowed: fields).forEach(problem)
    var entity: String?
    switch item["entity"] {
    case .string(let text)?: entity = text
    case nil: problem("needs an \"entity\" string")
    case let other?: problem("needs an \"entity\" string, not \(other.phrase)")
    }
    var predicate: String?
    switch item["predicate"] {
    case nil, .null?: break
    case .string(let text)?: predicate = text
    case let other?: problem("\"predicate\" is a string, not \(other.phrase)")
    }
    var arguments: [FilterValue] = []
    do {
      arguments = try JSONValue.formatArguments(item["arguments"], field: "arguments")
      if predicate == nil, !arguments.isEmpty { problem("\"arguments\" are given without a \"predicate\"") }
    } catch {
      problem(error.description)
    }
    let sortKeys = self.sortKeys(item["sortBy"], problem: problem)
    var sectionKey: String?
    switch item["sectionBy"] {
    case nil, .null?: break
    case .string(let text)?: sectionKey = text
    case let other?: problem("\"sectionBy\" is a string, not \(other.phrase)")
    }
    func integer(_ field: String) -> Int? {
      switch item[field] {
      case nil, .null?: return nil
      case .int(let number)?: return Int(exactly: number)
      case .double(let number)? where number == number.rounded() && abs(number) > Double(Int64.max) / 2:
        // An integer literal beyond Int64, which the JSON reader keeps as a
        // double: its exact value, in decimal.
        let bound = number > 0 ? "at most \(Int64.max)" : "at least \(Int64.min)"
        problem(
          "\"\(field)\" is an integer, not \(String(format: "%.0f", number)), which is beyond the 64-bit range (\(bound))"
        )
      case let other?: problem("\"\(field)\" is an integer, not \(other.phrase)")
      }
      return nil
    }
    let limit = integer("limit")
    let offset = integer("offset") ?? 0
    guard problems.count == problemsBefore, let entity, let sortKeys else { return nil }
    guard let predicate else {
      return List(
        name: name,
        request: ListRequest(
          entity, sortedBy: sortKeys, sectionedBy: sectionKey, limit: limit, offset: offset, label: name),
        place: place)
    }
    do {
      return List(
        name: name,
        request: try ListRequest(
          entity, where: predicate, arguments: arguments, sortedBy: sortKeys, sectionedBy: sectionKey, limit: limit,
          offset: offset, label: name),
        place: place)
    } catch {
      problems.append(message(error))
      return nil
    }
  }

  /// The sort keys of `"sortBy"`, or nil after telling `problem` what is
  /// wrong with them.
  private static func sortKeys(
    _ value: JSONValue?, problem: (String) -> Void
  ) -> [ObjectFetchRequest.SortKey]? {
    let shape = "{\"key\": String, \"ascending\": Bool?}"
    guard case .array(let items)? = value else {
      problem("needs a \"sortBy\" array of sort keys (\(shape))\(value.map { ", not \($0.phrase)" } ?? "")")
      return nil
    }
    var keys: [ObjectFetchRequest.SortKey] = []
    var isValid = true
    for (index, item) in items.enumerated() {
      let place = "sortBy[\(index)]"
      guard case .object = item else {
        problem("\(place): a sort key is a JSON object (\(shape)), not \(item.phrase)")
        isValid = false
        continue
      }
      for message in item.unknownFieldMessages(allowed: sortKeyFields) {
        problem("\(place): \(message)")
        isValid = false
      }
      var ascending = true
      switch item["ascending"] {
      case nil, .null?: break
      case .bool(let flag)?: ascending = flag
      case let other?:
        problem("\(place): \"ascending\" is a Boolean, not \(other.phrase)")
        isValid = false
      }
      guard case .string(let key)? = item["key"] else {
        problem("\(place): needs a \"key\" string")
        isValid = false
        continue
      }
      keys.append(ObjectFetchRequest.SortKey(key, ascending: ascending))
    }
    return isValid ? keys : nil
  }

  /// A list's error as one message: `list 'adults' on Person: …`, with the
  /// predicate and a caret under the spot when the error is the
  /// predicate's.
  ///
  /// The list's name is its request's label, so the error's own rendering
  /// begins `watch 'adults' on Person`; the message says `list` instead.
  static func message(_ error: MonitorError) -> String {
    guard let refusal = error.watchError else { return error.message }
    return message(refusal)
  }

  /// A watch's refusal of a list, named as the list.
  static func message(_ error: WatchError) -> String {
    let text = error.detailedDescription()
    let prefix = "watch '\(error.watch)' on "
    guard text.hasPrefix(prefix) else { return "list '\(error.watch)': \(text)" }
    return "list '\(error.watch)' on " + text.dropFirst(prefix.count)
  }
}
