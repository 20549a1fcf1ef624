import Foundation
import TestSupport
import Testing

/// `replay` at sizes where an algorithm quadratic in the replay's history
/// takes minutes; each finishes in seconds here. Not timed: a regression
/// shows as a test that hangs.
@Suite("Command line: replay at scale")
struct ReplayScalingTests {
  /// 10,000 lines, each adding one member to the same to-many relationship:
  /// each line prints the one member added, not the whole set (which made
  /// the output, and the work, quadratic).
  @Test func aToManyRelationshipGrowingByOnePerLinePrintsOneRefPerLine() throws {
    let count = 10_000
    var lines = [#"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}]}"#]
    for index in 0..<count {
      lines.append(
        #"{"insert": [{"entity": "Person", "ref": "p\#(index)", "values": {"name": "P", "employer": "acme"}}]}"#)
    }
    let outcome = try runReplay(lines, schema: ReplayCommandTests.schema)
    #expect(outcome.status == 0)
    let output = outcome.output.split(separator: "\n")
    #expect(output.count == count + 1)
    #expect(
      output.last
        == #"{"save":10001,"inserted":[{"ref":"p9999","entity":"Person","values":{"age":0,"born":null,"name":"P","employer":"acme"}}],"updated":[{"ref":"acme","entity":"Company","changed":{"employees":{"added":["p9999"],"removed":[]}}}],"deleted":[]}"#
    )
    #expect(outcome.output.utf8.count < 250 * (count + 1))
  }

  /// 3,000 lines refused by the save, after 40,000 objects: naming the
  /// objects in the save's errors looks up the identifiers the message
  /// holds, not every ref ever created.
  @Test func aRefusedLineCostsInProportionToTheLine() throws {
    let objects = (0..<40_000).map { #"{"entity": "Person", "ref": "p\#($0)", "values": {"name": "P"}}"# }
    var lines = [#"{"insert": ["# + objects.joined(separator: ", ") + "]}"]
    for _ in 0..<3_000 {
      lines.append(#"{"insert": [{"entity": "Person", "ref": "nameless"}]}"#)
    }
    let outcome = try runReplay(lines, schema: ReplayCommandTests.schema)
    #expect(outcome.status == 0)
    let output = outcome.output.split(separator: "\n")
    #expect(output.count == 3_001)
    #expect(
      output.last
        == #"{"error":{"message":"save failed: 1 problem","problems":["Person 'nameless': 'name' is required"]}}"#)
  }

  /// One save seen by 50,000 watches: the delivery's attribution is
  /// indexed by watch once, not searched five times per watch.
  @Test func oneSaveSeenByFiftyThousandWatches() throws {
    let count = 50_000
    let watches =
      "["
      + (0..<count).map { #"{"id": "w\#($0)", "entity": "Person", "predicate": "age > 1"}"# }.joined(
        separator: ", ") + "]"
    let outcome = try runReplay(
      [
        #"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A", "age": 50}}, {"entity": "Person", "ref": "b", "values": {"name": "B", "age": 30}}]}"#
      ], schema: ReplayCommandTests.schema, watches: watches)
    #expect(outcome.status == 0)
    let output = outcome.output.split(separator: "\n")
    #expect(output.count == count + 1)
    #expect(
      output.last
        == #"{"save":1,"watch":"w49999","inserted":["a","b"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#)
  }
}
