import ContextWatching
import Foundation
import ObjectGraph
import PredicateDSL
import WatchFormats

/// Applies JSON change lines to a context, keeping the caller's refs.
final class Replayer {
  let context: ObjectContext
  /// Live objects by ref.
  private var objects: [String: ManagedObject] = [:]
  /// Refs by object, for printing: the live objects', and, until the line
  /// that deleted them is answered, the objects its save deleted (the
  /// save's line, its watches' and its lists' lines name them). Between
  /// lines it holds the live objects alone, so it does not grow with the
  /// objects a replay deletes.
  private var refs: [ObjectID: String] = [:]
  /// The objects the current line's save deleted, whose refs go once the
  /// line is answered.
  private var deletedBySave: [ObjectID] = []

  /// The watches and their lines, when the replay has watches.
  private var watchLines: WatchLines?

  /// The list monitors with their names, in list order, kept alive with
  /// their observations while the replay runs; and the changes they
  /// delivered since the last input line, each with its list's index.
  private var lists: [(name: String, monitor: ListMonitor, observation: ObserverToken)] = []
  private let listUpdates = LockedState<[(list: Int, update: ListMonitorUpdate)]>([])

  init(schema: ObjectSchema) {
    context = ObjectContext(schema: schema, name: "replay", notificationCenter: nil)
  }

  /// Adds watches; all or none.
  ///
  /// - Throws: ``WatchesFile/Problems`` with every invalid watch's rendered
  ///   error.
  func watch(_ watches: [WatchesFile.Watch]) throws {
    watchLines = try WatchLines(context: context, watches: watches)
  }

  /// Adds a list monitor per list, delivering on the saving thread during
  /// each save; all or none.
  ///
  /// - Returns: The rendered error of each list that does not validate
  ///   against the schema; when there is one, no list is monitored.
  func monitor(_ lists: [ListFile.List]) -> [ListFile.Problem] {
    var problems: [ListFile.Problem] = []
    var added: [(String, ListMonitor, ObserverToken)] = []
    for (index, list) in lists.enumerated() {
      do {
        let monitor = try ListMonitor(context: context, request: list.request, scheduler: .immediate)
        let updates = listUpdates
        let observation = monitor.observe { update in updates.withLock { $0.append((index, update)) } }
        added.append((list.name, monitor, observation))
      } catch {
        problems.append(ListFile.Problem(place: list.place, message: ListFile.message(error)))
      }
    }
    if problems.isEmpty { self.lists = added }
    return problems
  }

  /// The answers to one input line: the save's, then each watch's, then
  /// each list's.
  func apply(_ line: [UInt8]) -> [JSONValue] {
    let answer = context.performAndWait { _ in applyOnQueue(line) }
    let watchLines = watchLines?.take(ref: ref) ?? []
    let changedLists = listUpdates.withLock { taken in
      defer { taken = [] }
      return taken
    }
    let answers = [answer] + watchLines + changedLists.sorted { $0.list < $1.list }.map(listLine)
    // `answers` holds every line that names the objects the save deleted;
    // no later line can name them (their refs left `objects` with the
    // save, and a later line's ref of the same name is a new object's).
    for id in deletedBySave { refs[id] = nil }
    deletedBySave = []
    return answers
  }

  /// The refs held, by object: as many as the live objects between lines.
  var retainedRefCount: Int { refs.count }

  /// A list's line: what the save did to it as a batch update (each array
  /// sorted ascending; moves by their source, then their destination),
  /// and its whole new content.
  private func listLine(_ list: Int, _ update: ListMonitorUpdate) -> JSONValue {
    func path(_ indexPath: ListIndexPath) -> JSONValue {
      .array([.int(Int64(indexPath.section)), .int(Int64(indexPath.item))])
    }
    func paths(_ indexPaths: [ListIndexPath]) -> JSONValue { .array(indexPaths.sorted().map(path)) }
    func indexes(_ sections: [ListChanges.Section]) -> JSONValue {
      .array(sections.map(\.index).sorted().map { .int(Int64($0)) })
    }
    let changes = update.changes
    let content = update.content
    let moves = changes.moved.map { ($0.from, $0.to) }.sorted(by: <)
    let sections = (0..<content.numberOfSections).map { index in
      JSONValue.object([
        ("name", content.section(at: index).name.map(JSONValue.string) ?? .null),
        ("refs", .array(content.objects(inSection: index).map { .string(ref($0.objectID)) })),
      ])
    }
    return .object([
      ("save", .int(Int64(changes.sequenceNumber))), ("list", .string(lists[list].name)),
      ("deletedSections", indexes(changes.deletedSections)), ("insertedSections", indexes(changes.insertedSections)),
      ("deleted", paths(changes.deleted.map(\.indexPath))), ("inserted", paths(changes.inserted.map(\.indexPath))),
      ("moved", .array(moves.map { .array([path($0.0), path($0.1)]) })),
      ("updated", paths(changes.updated.map(\.indexPath))), ("sections", .array(sections)),
    ])
  }

  /// The caller's ref of an object. Every object the replay prints was
  /// inserted by a line and keeps its ref; the identifier stands in only
  /// should that invariant break.
  private func ref(_ id: ObjectID) -> String { refs[id] ?? id.description }

  /// An input problem: collected, so that one answer lists them all.
  private struct Refusal: Error {
    var problems: [String]
  }

  private func applyOnQueue(_ line: [UInt8]) -> JSONValue {
    let change: JSONValue
    do {
      change = try JSONValue.parse(line)
    } catch {
      return Self.refusal("invalid JSON", problems: [error.description])
    }
    var problems: [String] = []
    var added: [String] = []
    do {
      try apply(change, problems: &problems, added: &added)
    } catch let refusal as Refusal {
      problems += refusal.problems
    } catch {
      problems.append(naming("\(error)"))
    }
    if !problems.isEmpty {
      undo(added)
      return Self.refusal("the change was refused; nothing of it was applied", problems: problems)
    }
    let author: String? = if case .string(let name)? = change["author"] { name } else { nil }
    do {
      let save = try context.save(author: author)
      // An object inserted and deleted on the same line was never saved:
      // its ref is free again, as if the line had not named it.
      forgetUnsaved(added)
      guard let save else {
        return .object([("save", .null), ("inserted", .array([])), ("updated", .array([])), ("deleted", .array([]))])
      }
      return output(save)
    } catch {
      let problems = error.problems.map { naming($0.message) }  // before the refs go
      undo(added)
      return Self.refusal(
        "save failed: \(problems.count == 1 ? "1 problem" : "\(problems.count) problems")", problems: problems)
    }
  }

  private func apply(_ change: JSONValue, problems: inout [String], added: inout [String]) throws {
    guard case .object = change else {
      throw Refusal(problems: ["a change line is a JSON object, not \(change.phrase)"])
    }
    problems += change.unknownFieldMessages(allowed: ["author", "insert", "update", "delete"])
    switch change["author"] {
    case nil, .null?, .string?: break
    case let other?: problems.append("\"author\" is a string, not \(other.phrase)")
    }
    // Inserts first, so that relationships may name objects inserted on the same line.
    var pending: [(object: ManagedObject, ref: String, values: [(key: String, value: JSONValue)])] = []
    for (index, item) in try list(change["insert"], "insert").enumerated() {
      let place = "insert[\(index)]"
      problems += item.unknownFieldMessages(allowed: ["ref", "entity", "values"]).map { "\(place): \($0)" }
      guard case .string(let entity)? = item["entity"], case .string(let ref)? = item["ref"] else {
        problems.append("\(place): needs \"entity\" and \"ref\" strings")
        continue
      }
      if objects[ref] != nil {
        problems.append("\(place): ref '\(ref)' is already in use")
        continue
      }
      do {
        let object = try context.insert(entity)
        objects[ref] = object
        refs[object.objectID] = ref
        added.append(ref)
        pending.append((object, ref, try fields(item["values"], place)))
      } catch let refusal as Refusal {
        problems += refusal.problems
      } catch {
        problems.append("\(place): \(naming("\(error)"))")
      }
    }
    for (index, item) in try list(change["update"], "update").enumerated() {
      let place = "update[\(index)]"
      problems += item.unknownFieldMessages(allowed: ["ref", "values"]).map { "\(place): \($0)" }
      guard case .string(let ref)? = item["ref"] else {
        problems.append("\(place): needs a \"ref\" string")
        continue
      }
      guard let object = objects[ref] else {
        problems.append("\(place): unknown ref '\(ref)'")
        continue
      }
      pending.append((object, ref, try fields(item["values"], place)))
    }
    for (object, ref, values) in pending {
      for (key, value) in values {
        do {
          try set(key, of: object, to: value)
        } catch let refusal as Refusal {
          problems += refusal.problems.map { "'\(ref)'.\(key): \($0)" }
        } catch {
          problems.append("'\(ref)'.\(key): \(naming("\(error)"))")
        }
      }
    }
    for (index, item) in try list(change["delete"], "delete").enumerated() {
      guard case .string(let ref) = item else {
        problems.append("delete[\(index)]: a ref is a string, not \(item.phrase)")
        continue
      }
      guard let object = objects[ref] else {
        problems.append("delete[\(index)]: unknown ref '\(ref)'")
        continue
      }
      do {
        try context.delete(object)
      } catch {
        problems.append("delete[\(index)]: \(naming("\(error)"))")
      }
    }
  }

  private func list(_ value: JSONValue?, _ field: String) throws -> [JSONValue] {
    switch value {
    case nil, .null?: return []
    case .array(let items)?: return items
    case let other?: throw Refusal(problems: ["\"\(field)\" is an array, not \(other.phrase)"])
    }
  }

  private func fields(_ value: JSONValue?, _ place: String) throws -> [(key: String, value: JSONValue)] {
    switch value {
    case nil, .null?: return []
    case .object(let members)?: return members
    case let other?: throw Refusal(problems: ["\(place).values is an object, not \(other.phrase)"])
    }
  }

  private func set(_ key: String, of object: ManagedObject, to value: JSONValue) throws {
    guard object.targets(of: key) != nil else {
      return try object.setValue(try value.filterValue(), forKey: key)
    }
    var destinations: [ManagedObject] = []
    let named: [JSONValue] =
      switch value {
      case .null: []
      case .array(let items): items
      default: [value]
      }
    for item in named {
      guard case .string(let ref) = item else {
        throw Refusal(problems: ["a relationship takes refs (strings), not \(item.phrase)"])
      }
      guard let destination = objects[ref] else { throw Refusal(problems: ["unknown ref '\(ref)'"]) }
      destinations.append(destination)
    }
    if case .toMany? = object.targets(of: key), case .string = value {
      throw Refusal(problems: ["\(object.entityName).\(key) is to-many: give an array of refs"])
    }
    try context.setTargets(destinations, forKey: key, of: object)
  }

  /// Forgets the refs a saved line added for objects it also deleted: they
  /// were never saved.
  private func forgetUnsaved(_ added: [String]) {
    for ref in added {
      if let object = objects[ref], object.isDeleted {
        objects[ref] = nil
        refs[object.objectID] = nil
      }
    }
  }

  /// Forgets the refs of a refused line and rolls the context back.
  private func undo(_ added: [String]) {
    context.rollback()
    for ref in added {
      if let object = objects.removeValue(forKey: ref) { refs[object.objectID] = nil }
    }
  }

  // MARK: Output

  /// The save's line; the refs of its deleted objects are free again, and
  /// are forgotten once the line is answered.
  private func output(_ save: ContextSave) -> JSONValue {
    for snapshot in save.deleted {
      if let name = refs[snapshot.objectID] { objects[name] = nil }
      deletedBySave.append(snapshot.objectID)
    }
    return JSONValue(save: save, ref: ref)
  }

  /// Replaces each object identifier (`#N`) in a library's message by the
  /// ref of its object (`'ref'`), so that `Person #3 is deleted` reads
  /// `Person 'ann' is deleted`.
  ///
  /// - Complexity: O(*n*) in the message's length, whatever the number of
  ///   refs.
  private func naming(_ message: String) -> String {
    var text = ""
    var rest = message[...]
    while let hash = rest.firstIndex(of: "#") {
      text += rest[..<hash]
      let digits = rest[rest.index(after: hash)...].prefix(while: { $0.isASCII && $0.isNumber })
      if let number = UInt64(digits), let name = refs[ObjectID(rawValue: number)] {
        text += "'\(name)'"
      } else {
        text += rest[hash..<digits.endIndex]
      }
      rest = rest[digits.endIndex...]
    }
    return text + rest
  }

  static func refusal(_ message: String, problems: [String]) -> JSONValue {
    .object([("error", .object([("message", .string(message)), ("problems", .array(problems.map(JSONValue.string)))]))])
  }
}
