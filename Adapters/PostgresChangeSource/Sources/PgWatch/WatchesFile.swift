import ContextWatching
import PredicateDSL

/// The watches file of `pg-watch watch --watches`, in the form of
/// `context-watch replay --watches`: `[{"id", "entity", "predicate",
/// "args"?, "events"?, "keys"?, "ignoredKeys"?}]`.
struct WatchesFile {
  struct Watch {
    var id: String
    var entity: String
    var predicate: String
    var arguments: [FilterValue]
    var options: WatchOptions
  }

  /// The fields a watch may have, in the order messages name them.
  static let fields = ["id", "entity", "predicate", "args", "events", "keys", "ignoredKeys"]

  var watches: [Watch] = []
  /// What is wrong with the file, one message per problem, each naming the
  /// watch by its id (or its place when it has none).
  var problems: [String] = []

  /// Reads the watches a JSON value describes; problems are collected, not
  /// thrown, so that one run reports them all.
  init(_ json: WatchJSON) {
    guard case .array(let items) = json else {
      problems = ["the watches file is a JSON array of watches, not \(json.typeName)"]
      return
    }
    var places: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      guard case .object(let members) = item else {
        problems.append("watches[\(index)]: a watch is a JSON object, not \(item.typeName)")
        continue
      }
      guard case .string(let id)? = item["id"] else {
        let found = item["id"].map { ", not \($0.typeName)" } ?? ""
        problems.append("watches[\(index)]: needs an \"id\" string\(found)")
        continue
      }
      var messages: [String] = []
      func problem(_ text: String) { messages.append("watch '\(id)': \(text)") }
      if let first = places[id] {
        problem("the id is taken by watches[\(first)]; each watch needs an id of its own")
      } else {
        places[id] = index
      }
      for (key, _) in members where !Self.fields.contains(key) {
        problem("unknown field '\(key)' (fields: \(Self.fields.joined(separator: ", ")))")
      }
      func string(_ field: String, _ article: String) -> String? {
        switch item[field] {
        case .string(let text)?: return text
        case nil: problem("needs \(article) \"\(field)\" string")
        case let other?: problem("needs \(article) \"\(field)\" string, not \(other.typeName)")
        }
        return nil
      }
      func strings(_ field: String) -> [String]? {
        guard let value = item[field] else { return nil }
        guard case .array(let elements) = value else {
          problem("\"\(field)\" is an array of strings, not \(value.typeName)")
          return nil
        }
        var texts: [String] = []
        for (position, element) in elements.enumerated() {
          guard case .string(let text) = element else {
            problem("\(field)[\(position)] is a string, not \(element.typeName)")
            return nil
          }
          texts.append(text)
        }
        return texts
      }
      let entity = string("entity", "an")
      let predicate = string("predicate", "a")
      var options = WatchOptions(label: id)
      if let names = strings("events") {
        var events: WatchEvents = []
        for name in names {
          guard let event = WatchEvent(rawValue: name) else {
            problem(
              "unknown event '\(name)' (events: \(WatchEvent.allCases.map(\.rawValue).joined(separator: ", ")))")
            continue
          }
          events.insert(WatchEvents(event))
        }
        options.events = events
      }
      if let keys = strings("keys") { options.watchedKeys = Set(keys) }
      if let keys = strings("ignoredKeys") { options.ignoredKeys = Set(keys) }
      var arguments: [FilterValue] = []
      switch item["args"] {
      case nil, .null?: break
      case .array(let elements)?:
        for (position, element) in elements.enumerated() {
          do {
            arguments.append(try element.filterValue())
          } catch {
            problem("args[\(position)]: \(error.description)")
          }
        }
      case let other?: problem("\"args\" is an array, not \(other.typeName)")
      }
      problems += messages
      guard messages.isEmpty, let entity, let predicate else { continue }
      watches.append(Watch(id: id, entity: entity, predicate: predicate, arguments: arguments, options: options))
    }
  }
}
