import ContextWatching
import Foundation
import ObjectGraph
import PredicateDSL
import WatchFormats

/// `context-watch replay --schema SCHEMA.json < changes.jsonl`: applies one
/// save per input line to an in-memory context and prints one JSON line per
/// input line, in order.
///
/// An input line is `{"author": String?, "insert": [{"entity", "ref",
/// "values"}], "update": [{"ref", "values"}], "delete": [ref]}`. A `ref` is
/// the caller's name for an object, usable in later lines until a save
/// deletes the object; the replay then forgets it once that line is
/// answered, so it holds the refs of live objects alone. A relationship's
/// value is a ref (to-one), null, or an array of refs (to-many); other
/// values follow the JSON conventions of `eval --cases`.
///
/// A saved line prints `{"save": Int, "inserted": [{"ref", "entity",
/// "values"}], "updated": [{"ref", "entity", "changed": {KEY: {"old",
/// "new"}}}], "deleted": [{"ref", "entity", "values"}]}`, objects sorted by
/// ref. A refused line prints `{"error": {"message", "problems"}}`, and
/// nothing of it is applied: later lines go on from the state before it.
///
/// With `--watches WATCHES.json` (`[{"id", "entity", "predicate", "args"?,
/// "events"?, "keys"?, "ignoredKeys"?, "follows"?}]`), a `ContextWatcher`
/// watches the context, and each saved line is followed by one line per
/// watch that saw something, in watch order: `{"save", "watch",
/// "inserted", "updated", "entered", "exited", "deleted"}` with sorted
/// refs. A watch whose `"follows"` is `"pending"` or `"all"` also sees each
/// line's changes as the save publishes them, before the save: those
/// lines come first, with `"cause": "pending"` after `"watch"` and the
/// previous save's number. Watches that do not
/// validate are reported before any save, and the exit status is 1.
///
/// With `--lists LISTS.json` (see ``ListFile``), a `ListMonitor` per list
/// follows the context, and each saved line is followed (after its watch
/// lines) by one line per list the save changed, in list order:
/// `{"save", "list", "deletedSections", "insertedSections", "deleted",
/// "inserted", "moved", "updated", "sections"}`. The changes are a batch
/// update (old coordinates for deletions and the sources of moves, new
/// ones for the rest): section indexes, `[section, item]` index paths and
/// `[[s, i], [s, i]]` moves, each array sorted ascending. `sections` is
/// the whole new list: `[{"name", "refs"}]`, a section's name being its
/// value as text (null for nil; one section named null for a list without
/// sections), refs in list order. Lists that do not validate are reported
/// before any save, and the exit status is 1; with both files, both are
/// checked.
enum ReplayCommand {
  static let usage =
    "usage: context-watch replay --schema SCHEMA.json [--watches WATCHES.json] [--lists LISTS.json] < changes.jsonl"

  static func run(_ arguments: [String]) -> Int32 {
    var options: [String: String] = [:]
    var rest = arguments[...]
    while let flag = rest.first {
      guard ["--schema", "--watches", "--lists"].contains(flag) else {
        Console.error("context-watch: replay: unknown argument '\(flag)'\n\(usage)")
        return 64
      }
      guard let value = rest.dropFirst().first else {
        Console.error("context-watch: replay: \(flag) needs a file\n\(usage)")
        return 64
      }
      guard options[flag] == nil else {
        Console.error("context-watch: replay: \(flag) is given twice; give each file once\n\(usage)")
        return 64
      }
      options[flag] = value
      rest = rest.dropFirst(2)
    }
    guard let schemaPath = options["--schema"] else {
      Console.error(usage)
      return 64
    }
    guard let schema = readSchema(schemaPath) else { return 1 }
    let replayer = Replayer(schema: schema)
    // Both files are checked, so that one run reports every problem.
    var isValid = true
    if let path = options["--watches"] { isValid = addWatches(path, to: replayer) }
    if let path = options["--lists"] { isValid = addLists(path, to: replayer) && isValid }
    guard isValid else { return 1 }
    for line in Console.inputLines where !Console.isBlank(line) {
      switch line {
      case .bytes(let bytes):
        for answer in replayer.apply(bytes) { print(answer.serialized) }
      case .tooLong(let length):
        print(Replayer.refusal("line too long", problems: [Console.InputLine.tooLongMessage(length)]).serialized)
      }
    }
    return 0
  }

  /// The schema of a file, or nil after reporting why there is none: the
  /// file is read as UTF-8 JSON first, so that a syntax error has its line
  /// and byte.
  private static func readSchema(_ path: String) -> ObjectSchema? {
    let bytes: [UInt8]
    do {
      bytes = try JSONValue.contents(ofFile: path)
      _ = try JSONValue.parse(bytes)
    } catch {
      Console.error("context-watch: \(path): \(error)")
      return nil
    }
    do {
      return try ObjectSchema(json: Data(bytes))
    } catch {
      Console.error("context-watch: \(path): invalid schema")
      for problem in error.problems { Console.error("  - \(problem)") }
      return nil
    }
  }

  /// Adds the watches of a file, or reports every problem of the file on
  /// standard error, each once, and returns false.
  private static func addWatches(_ path: String, to replayer: Replayer) -> Bool {
    var problems: [String] = []
    do {
      let file = try WatchesFile.read(path)
      problems = file.problems
      try replayer.watch(file.watches)
    } catch let error as WatchesFile.Problems {
      problems += error.messages
    } catch {
      Console.error("context-watch: \(path): \(error)")
      return false
    }
    guard !problems.isEmpty else { return true }
    Console.error("context-watch: \(path): \(problems.count == 1 ? "a watch is" : "watches are") invalid")
    for message in problems { Console.error(message) }
    return false
  }

  /// Adds a list monitor for each list of a file, or reports every problem
  /// of the file on standard error, each once, and returns false.
  private static func addLists(_ path: String, to replayer: Replayer) -> Bool {
    let problems: [String]
    do {
      let (lists, fileProblems) = try ListFile.read(path)
      // Lists that read well are still checked against the schema, so
      // that every problem is reported at once, in the file's order.
      problems = (fileProblems + replayer.monitor(lists)).enumerated()
        .sorted { ($0.element.place, $0.offset) < ($1.element.place, $1.offset) }.map(\.element.message)
    } catch {
      Console.error("context-watch: \(path): \(error)")
      return false
    }
    guard !problems.isEmpty else { return true }
    Console.error("context-watch: \(path): \(problems.count == 1 ? "a list is" : "lists are") invalid")
    for message in problems { Console.error(message) }
    return false
  }
}
