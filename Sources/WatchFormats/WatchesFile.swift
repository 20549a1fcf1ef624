package import ContextWatching
package import PredicateDSL

/// A watches file, the `--watches WATCHES.json` of `context-watch replay`
/// and `pg-watch watch`: a JSON array of watches, each `{"id", "entity",
/// "predicate", "args"?, "events"?, "keys"?, "ignoredKeys"?, "follows"?}`.
/// `"follows"` is `"saves"` (the default), `"pending"` or `"all"`, as
/// `WatchOptions.follows` is `ChangeKinds.saves`, `ChangeKinds.pending`
/// or `ChangeKinds.all`.
///
/// Reading checks each watch's shape and collects every problem, so that
/// one run reports them all; the watches that read well are in
/// ``watches``, and ``WatchLines`` checks them against the schema.
///
/// ```swift
/// let file = try WatchesFile.read("watches.json")
/// for problem in file.problems { print(problem) }
/// // watch 'adults': unknown field 'colour' (fields: id, entity, predicate, args, events, keys, ignoredKeys, follows)
/// ```
public struct WatchesFile: Sendable {
  /// One watch of the file, read well: what ``WatchLines`` registers.
  public struct Watch: Sendable {
    /// The watch's id: its label, and its name in the watch lines.
    package var id: String
    /// The entity it watches.
    package var entity: String
    /// Its predicate's format string.
    package var predicate: String
    /// The format arguments of `"args"`.
    package var arguments: [FilterValue]
    /// Its label, events, keys and what it follows.
    package var options: WatchOptions
  }

  /// Every problem of a watches file, or of its watches against a schema,
  /// each a rendered message.
  public struct Problems: Error, Sendable, CustomStringConvertible {
    /// The messages, one per problem, each naming its watch.
    public var messages: [String]

    /// The messages, joined by `; `.
    public var description: String { messages.joined(separator: "; ") }
  }

  /// The fields a watch may have, in the order messages name them.
  static let fields = ["id", "entity", "predicate", "args", "events", "keys", "ignoredKeys", "follows"]

  /// The values of `"follows"`, by name, in the order messages name them.
  static let followedKinds: [(name: String, kinds: ChangeKinds)] = [
    ("saves", .saves), ("pending", .pending), ("all", .all),
  ]

  /// The watches that read well, in file order; a watch whose only
  /// problem is an id that an earlier watch took is among them, so that
  /// ``WatchLines`` checks it against the schema too. Register them only
  /// when ``problems`` is empty.
  public var watches: [Watch] = []
  /// What is wrong with the file, one message per problem, in file order:
  /// each names its watch by its id (`watch 'adults': …`), or by its place
  /// when it has none (`watches[3]: …`).
  public var problems: [String] = []

  /// Reads the watches file at `path`.
  ///
  /// A file that is JSON but not a valid watches file still reads: its
  /// problems are in ``problems``.
  ///
  /// - Parameter path: The file's path.
  /// - Returns: The file's watches and problems.
  /// - Throws: ``JSONValue/FileError`` when the file cannot be read, or
  ///   ``JSONParseError`` (with line and byte) when it is not UTF-8 JSON.
  /// - Complexity: O(*n*) in the file's size.
  public static func read(_ path: String) throws -> WatchesFile {
    WatchesFile(try JSONValue.parse(file: path))
  }

  /// The watches a file's JSON describes, and the problems of those that
  /// could not be read (they are left out).
  package init(_ json: JSONValue) {
    guard case .array(let items) = json else {
      problems = ["the watches file is a JSON array of watches, not \(json.phrase)"]
      return
    }
    var places: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      guard case .object = item else {
        problems.append("watches[\(index)]: a watch is a JSON object, not \(item.phrase)")
        continue
      }
      guard case .string(let id)? = item["id"] else {
        let found = item["id"].map { ", not \($0.phrase)" } ?? ""
        problems.append("watches[\(index)]: needs an \"id\" string\(found)")
        continue
      }
      var messages: [String] = []
      func problem(_ text: String) { messages.append("watch '\(id)': \(text)") }
      let isTaken = places[id] != nil
      if let first = places[id] {
        problem("the id is taken by watches[\(first)]; each watch needs an id of its own")
      } else {
        places[id] = index
      }
      item.unknownFieldMessages(allowed: Self.fields).forEach(problem)
      func string(_ field: String, _ article: String) -> String? {
        switch item[field] {
        case .string(let text)?: return text
        case nil: problem("needs \(article) \"\(field)\" string")
        case let other?: problem("needs \(article) \"\(field)\" string, not \(other.phrase)")
        }
        return nil
      }
      let entity = string("entity", "an")
      let predicate = string("predicate", "a")
      var options = WatchOptions(label: id)
      var arguments: [FilterValue] = []
      do {
        if let events = item["events"] { options.events = try Self.eventSet(events) }
      } catch {
        problem(error.description)
      }
      do {
        if let keys = item["keys"] { options.watchedKeys = Set(try Self.strings(keys, "keys")) }
      } catch {
        problem(error.description)
      }
      do {
        if let keys = item["ignoredKeys"] { options.ignoredKeys = Set(try Self.strings(keys, "ignoredKeys")) }
      } catch {
        problem(error.description)
      }
      do {
        if let follows = item["follows"] { options.follows = try Self.followedKinds(follows) }
      } catch {
        problem(error.description)
      }
      do {
        arguments = try JSONValue.formatArguments(item["args"], field: "args")
      } catch {
        problem(error.description)
      }
      problems += messages
      // A watch whose only problem is its taken id is kept, so that the
      // schema's checks reach it too.
      guard messages.count == (isTaken ? 1 : 0), let entity, let predicate else { continue }
      watches.append(Watch(id: id, entity: entity, predicate: predicate, arguments: arguments, options: options))
    }
  }

  private static func strings(_ value: JSONValue, _ field: String) throws(Problems) -> [String] {
    guard case .array(let items) = value else {
      throw Problems(messages: ["\"\(field)\" is an array of strings, not \(value.phrase)"])
    }
    var texts: [String] = []
    for (index, item) in items.enumerated() {
      guard case .string(let text) = item else {
        throw Problems(messages: ["\(field)[\(index)] is a string, not \(item.phrase)"])
      }
      texts.append(text)
    }
    return texts
  }

  /// The kinds of change a `"follows"` value names.
  private static func followedKinds(_ value: JSONValue) throws(Problems) -> ChangeKinds {
    let names = followedKinds.map(\.name).joined(separator: ", ")
    guard case .string(let name) = value else {
      throw Problems(messages: ["\"follows\" is a string (\(names)), not \(value.phrase)"])
    }
    guard let kinds = followedKinds.first(where: { $0.name == name })?.kinds else {
      throw Problems(messages: ["unknown value '\(name)' of \"follows\" (values: \(names))"])
    }
    return kinds
  }

  private static func eventSet(_ value: JSONValue) throws(Problems) -> WatchEvents {
    var events: WatchEvents = []
    for name in try strings(value, "events") {
      guard let event = WatchEvent(rawValue: name) else {
        let names = WatchEvent.allCases.map(\.rawValue).joined(separator: ", ")
        throw Problems(messages: ["unknown event '\(name)' (events: \(names))"])
      }
      events.insert(WatchEvents(event))
    }
    return events
  }
}
