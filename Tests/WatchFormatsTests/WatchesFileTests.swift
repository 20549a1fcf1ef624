import ContextWatching
import Foundation
import PredicateDSL
import Testing
import WatchFormats

@Suite("Watch formats: the watches file")
struct WatchesFileTests {
  private func file(_ text: String) throws -> WatchesFile {
    WatchesFile(try JSONValue.parse(Array(text.utf8)))
  }

  @Test func readsEachFieldOfAWatch() throws {
    let file = try file(
      """
      [{"id": "adults", "entity": "Person", "predicate": "age >= %d AND name IN %@", "args": [18, {"$set": ["a"]}],
        "events": ["inserted", "exited"], "keys": ["age"], "ignoredKeys": ["name"]},
       {"id": "all", "entity": "Company", "predicate": "TRUEPREDICATE", "args": null}]
      """)
    #expect(file.problems == [])
    #expect(file.watches.map(\.id) == ["adults", "all"])
    let adults = file.watches[0]
    #expect(adults.entity == "Person")
    #expect(adults.predicate == "age >= %d AND name IN %@")
    #expect(adults.arguments == [.int(18), .set([.string("a")])])
    #expect(adults.options.label == "adults")
    #expect(adults.options.events == [.inserted, .exited])
    #expect(adults.options.watchedKeys == ["age"])
    #expect(adults.options.ignoredKeys == ["name"])
    let all = file.watches[1]
    #expect(all.arguments == [])
    #expect(all.options.events == WatchOptions().events)
    #expect(all.options.watchedKeys == nil)
  }

  /// Every problem once, in file order, each naming its watch; the watches
  /// that read well are kept.
  @Test func collectsEveryProblemInFileOrder() throws {
    let file = try file(
      """
      [{"id": "a", "entity": "Person", "predicate": "age > %d", "args": 5},
       {"id": "a", "entity": "Person", "predicate": "age > 1", "colour": "red", "shade": 1},
       {"id": "b", "entity": 3, "keys": ["age", 2], "ignoredKeys": "name"},
       {"id": "c", "entity": "Person", "predicate": "age > 1", "events": ["born", "died"]},
       {"id": "d", "entity": "Person", "predicate": "age IN %@", "args": [1, {"$date": "soon"}, {"$set": 3}]},
       {"id": 7, "entity": "Person", "predicate": "age > 1"},
       {"entity": "Person", "predicate": "age > 1"},
       "e",
       {"id": "fine", "entity": "Person", "predicate": "age > 1"}]
      """)
    #expect(
      file.problems == [
        #"watch 'a': "args" is an array, not the number 5"#,
        "watch 'a': the id is taken by watches[0]; each watch needs an id of its own",
        "watch 'a': unknown field 'colour' (fields: id, entity, predicate, args, events, keys, ignoredKeys, follows)",
        "watch 'a': unknown field 'shade' (fields: id, entity, predicate, args, events, keys, ignoredKeys, follows)",
        #"watch 'b': needs an "entity" string, not the number 3"#,
        #"watch 'b': needs a "predicate" string"#,
        "watch 'b': keys[1] is a string, not the number 2",
        #"watch 'b': "ignoredKeys" is an array of strings, not the string "name""#,
        "watch 'c': unknown event 'born' (events: inserted, updated, entered, exited, deleted)",
        #"watch 'd': args[1]: "$date" string "soon" is not an ISO-8601 date"#,
        #"watches[5]: needs an "id" string, not the number 7"#,
        #"watches[6]: needs an "id" string"#,
        #"watches[7]: a watch is a JSON object, not the string "e""#,
      ])
    #expect(file.watches.map(\.id) == ["fine"])
  }

  @Test func readsWhatAWatchFollows() throws {
    let file = try file(
      """
      [{"id": "saved", "entity": "Person", "predicate": "age > 1", "follows": "saves"},
       {"id": "drafts", "entity": "Person", "predicate": "age > 1", "follows": "pending"},
       {"id": "both", "entity": "Person", "predicate": "age > 1", "follows": "all"},
       {"id": "default", "entity": "Person", "predicate": "age > 1"}]
      """)
    #expect(file.problems == [])
    #expect(file.watches.map(\.options.follows) == [.saves, .pending, .all, .saves])
  }

  @Test func aBadFollowsValueIsAProblemNamingTheValues() throws {
    let file = try file(
      """
      [{"id": "typo", "entity": "Person", "predicate": "age > 1", "follows": "pendng"},
       {"id": "list", "entity": "Person", "predicate": "age > 1", "follows": ["saves"]},
       {"id": "empty", "entity": "Person", "predicate": "age > 1", "follows": ""}]
      """)
    #expect(
      file.problems == [
        #"watch 'typo': unknown value 'pendng' of "follows" (values: saves, pending, all)"#,
        #"watch 'list': "follows" is a string (saves, pending, all), not an array"#,
        #"watch 'empty': unknown value '' of "follows" (values: saves, pending, all)"#,
      ])
    #expect(file.watches.isEmpty)
  }

  @Test func aFileThatIsNotAnArrayIsOneProblem() throws {
    let file = try file(#"{"id": "a"}"#)
    #expect(file.problems == ["the watches file is a JSON array of watches, not an object"])
    #expect(file.watches.isEmpty)
    #expect(try self.file("[]").problems == [])
  }

  @Test func readingAFileReportsItsJSONErrorWithLineAndByte() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watches-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("watches.json").path
    try Data("[\n  {\"id\": \"a\",}\n]\n".utf8).write(to: URL(fileURLWithPath: path))
    let error = try #require(throws: JSONParseError.self) { try WatchesFile.read(path) }
    #expect(error.description == "invalid JSON at line 2, byte 14: expected a string key")
    let missing = try #require(throws: JSONValue.FileError.self) {
      try WatchesFile.read(folder.appendingPathComponent("none.json").path)
    }
    #expect(missing.description == "no such file")
    try Data(#"[{"id": "a", "entity": "Person", "predicate": "age > 1"}]"#.utf8).write(to: URL(fileURLWithPath: path))
    #expect(try WatchesFile.read(path).watches.map(\.entity) == ["Person"])
  }
}
