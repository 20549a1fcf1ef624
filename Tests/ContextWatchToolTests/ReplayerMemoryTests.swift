// What a replay keeps between lines (through @testable import of the
// command line's module).

import Foundation
import ObjectGraph
import Testing
import WatchFormats

@testable import ContextWatchTool

@Suite("Command line: replay memory")
struct ReplayerMemoryTests {
  private func replayer() throws -> Replayer {
    let replayer = Replayer(schema: try ObjectSchema(json: Data(ReplayCommandTests.schema.utf8)))
    let problems = replayer.monitor(
      ListFile.lists(
        in: try JSONValue.parse(Array(#"[{"name": "all", "entity": "Person", "sortBy": [{"key": "name"}]}]"#.utf8))
      ).lists)
    #expect(problems.isEmpty)
    return replayer
  }

  private func answers(_ replayer: Replayer, _ line: String) -> [String] {
    replayer.apply(Array(line.utf8)).map(\.serialized)
  }

  /// 20,000 cycles of inserting an object and deleting it, the ref reused
  /// each time: the replay holds the refs of the live objects alone (one
  /// here), not one per object ever deleted, and deletions still print
  /// their refs.
  @Test func refsOfDeletedObjectsAreNotKept() throws {
    let replayer = try replayer()
    _ = answers(replayer, #"{"insert": [{"entity": "Person", "ref": "kept", "values": {"name": "K"}}]}"#)
    for cycle in 0..<20_000 {
      _ = answers(replayer, #"{"insert": [{"entity": "Person", "ref": "p", "values": {"name": "P"}}]}"#)
      let deleted = answers(replayer, #"{"delete": ["p"]}"#)
      if cycle == 0 || cycle == 19_999 {
        #expect(deleted.first?.contains(#""deleted":[{"ref":"p","entity":"Person""#) == true)
      }
    }
    #expect(replayer.retainedRefCount == 1)
  }

  /// A line that inserts and deletes objects in one save, and a refused
  /// line, leave no ref behind either.
  @Test func insertedAndDeletedOnOneLineOrRefusedLeavesNoRef() throws {
    let replayer = try replayer()
    for _ in 0..<1_000 {
      _ = answers(
        replayer,
        #"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A"}}], "delete": ["a"]}"#)
      _ = answers(
        replayer,
        #"{"insert": [{"entity": "Person", "ref": "b", "values": {"name": "B"}}], "update": [{"ref": "zed"}]}"#)
    }
    #expect(replayer.retainedRefCount == 0)
  }
}
