import Foundation
import TestSupport
import Testing

@Suite("Command line: replay")
struct ReplayCommandTests {
  static let schema = """
    {"entities": [
      {"name": "Person",
       "attributes": {"name": {"type": "string"}, "age": {"type": "integer", "optional": true, "default": 0},
                      "born": {"type": "date", "optional": true}},
       "relationships": {"employer": {"destination": "Company", "inverse": "employees"}}},
      {"name": "Employee", "parent": "Person", "attributes": {"salary": {"type": "double", "optional": true}}},
      {"name": "Company", "attributes": {"name": {"type": "string"}},
       "relationships": {"employees": {"destination": "Person", "toMany": true, "inverse": "employer",
                                       "deleteRule": "deny"}}}
    ]}
    """

  private func replay(
    _ lines: [String], schema: String = schema, watches: String? = nil
  ) throws -> CommandRunner.Outcome {
    try runReplay(lines, schema: schema, watches: watches)
  }

  @Test func watchesPrintALinePerWatchThatSawSomething() throws {
    let watches = """
      [{"id": "seniors", "entity": "Person", "predicate": "age > %d", "args": [30]},
       {"id": "acme-staff", "entity": "Person", "predicate": "employer.name == 'Acme'", "events": ["entered", "exited"]},
       {"id": "renames", "entity": "Company", "predicate": "TRUEPREDICATE", "keys": ["name"]}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}, {"entity": "Employee", "ref": "ann", "values": {"name": "Ann", "age": 30, "employer": "acme"}}, {"entity": "Person", "ref": "bob", "values": {"name": "Bob", "age": 50}}]}"#,
        #"{"update": [{"ref": "ann", "values": {"age": 31}}, {"ref": "bob", "values": {"age": 20}}]}"#,
        #"{"update": [{"ref": "acme", "values": {"name": "Acme Inc"}}]}"#,
        #"{"update": [{"ref": "zed", "values": {"age": 1}}]}"#,
        #"{"delete": ["ann"]}"#,
      ], watches: watches)
    #expect(outcome.status == 0)
    let lines = outcome.output.split(separator: "\n").map(String.init)
    #expect(
      lines.filter { $0.contains(#""watch""#) } == [
        #"{"save":1,"watch":"seniors","inserted":["bob"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":1,"watch":"renames","inserted":["acme"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":2,"watch":"seniors","inserted":[],"updated":[],"entered":["ann"],"exited":["bob"],"deleted":[]}"#,
        #"{"save":3,"watch":"acme-staff","inserted":[],"updated":[],"entered":[],"exited":["ann"],"deleted":[]}"#,
        #"{"save":3,"watch":"renames","inserted":[],"updated":["acme"],"entered":[],"exited":[],"deleted":[]}"#,
        // Acme's employees changed, but 'renames' watches only its name.
        #"{"save":4,"watch":"seniors","inserted":[],"updated":[],"entered":[],"exited":[],"deleted":["ann"]}"#,
      ])
    // Each save line comes first, then its watches; the refused line has no watch lines.
    #expect(
      lines.map { $0.hasPrefix(#"{"save":"#) ? ($0.contains(#""watch""#) ? "w" : "s") : "e" }.joined() == "swwswswwesw")
  }

  /// A watch that follows pending changes sees each line's changes as the
  /// save publishes them, before the save; its line says so.
  @Test func aWatchThatFollowsPendingChangesMarksItsLines() throws {
    let watches = """
      [{"id": "drafts", "entity": "Person", "predicate": "age > 30", "follows": "pending"},
       {"id": "both", "entity": "Person", "predicate": "age > 30", "follows": "all"},
       {"id": "saved", "entity": "Person", "predicate": "age > 30"}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "bob", "values": {"name": "Bob", "age": 50}}]}"#,
        #"{"update": [{"ref": "bob", "values": {"age": 20}}]}"#,
      ], watches: watches)
    #expect(outcome.status == 0)
    let lines = outcome.output.split(separator: "\n").map(String.init)
    #expect(
      lines.filter { $0.contains(#""watch""#) } == [
        // Each line's pending changes come first, numbered by the save
        // before them.
        #"{"save":0,"watch":"drafts","cause":"pending","inserted":["bob"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":0,"watch":"both","cause":"pending","inserted":["bob"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":1,"watch":"both","inserted":["bob"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":1,"watch":"saved","inserted":["bob"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":1,"watch":"drafts","cause":"pending","inserted":[],"updated":[],"entered":[],"exited":["bob"],"deleted":[]}"#,
        #"{"save":1,"watch":"both","cause":"pending","inserted":[],"updated":[],"entered":[],"exited":["bob"],"deleted":[]}"#,
        #"{"save":2,"watch":"both","inserted":[],"updated":[],"entered":[],"exited":["bob"],"deleted":[]}"#,
        #"{"save":2,"watch":"saved","inserted":[],"updated":[],"entered":[],"exited":["bob"],"deleted":[]}"#,
      ])
  }

  @Test func aBadFollowsValueIsReportedBeforeAnySave() throws {
    let watches = """
      [{"id": "drafts", "entity": "Person", "predicate": "age > 30", "follows": "unsaved"}]
      """
    let outcome = try replay([], watches: watches)
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : a watch is invalid
        watch 'drafts': unknown value 'unsaved' of "follows" (values: saves, pending, all)

        """))
  }

  @Test func invalidWatchesAreReportedBeforeAnySave() throws {
    let watches = """
      [{"id": "bad", "entity": "Person", "predicate": "agee > 3"},
       {"id": "worse", "entity": "Persn", "predicate": "age > 3"},
       {"id": "fine", "entity": "Person", "predicate": "age > 3", "events": ["born"]},
       {"id": "loose", "entity": "Person", "predicate": "age > %d", "args": 3},
       {"id": "odd", "entity": "Person", "predicate": "age IN %@", "args": [{"$set": 3}]}]
      """
    let outcome = try replay(
      [#"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A"}}]}"#], watches: watches)
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    #expect(outcome.errorOutput.contains("watches are invalid"))
    #expect(
      outcome.errorOutput.contains(
        "watch 'fine': unknown event 'born' (events: inserted, updated, entered, exited, deleted)"))
    #expect(outcome.errorOutput.contains(#"watch 'loose': "args" is an array, not the number 3"#))
    #expect(outcome.errorOutput.contains(#"watch 'odd': args[0]: "$set" needs an array, not the number 3"#))
    #expect(
      outcome.errorOutput.contains(
        """
        watch 'bad' on Person:
        error: Person has no key 'agee' (did you mean 'age'?)
         --> predicate:1:1
          |
        1 | agee > 3
          | ^^^^
        """))
    #expect(
      outcome.errorOutput.contains(
        "watch 'worse' on Persn: unknown entity 'Persn' (entities: Person, Employee, Company)"))
  }

  @Test func aWatchesFileProblemIsPrintedOnce() throws {
    let watches = """
      [{"id": "fine", "entity": "Person", "predicate": "age > 3"},
       {"id": "odd", "entity": "Person", "predicate": "age > 3", "events": ["born"]}]
      """
    let outcome = try replay(
      [#"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A"}}]}"#], watches: watches)
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : a watch is invalid
        watch 'odd': unknown event 'born' (events: inserted, updated, entered, exited, deleted)

        """))
    #expect(outcome.errorOutput.components(separatedBy: "unknown event").count == 2)
  }

  @Test func printsEverySaveWithRefsOnBothSidesOfRelationships() throws {
    let outcome = try replay([
      #"{"author": "hr", "insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}, {"entity": "Employee", "ref": "ann", "values": {"name": "Ann", "age": 30, "salary": 10, "employer": "acme", "born": {"$date": 0}}}]}"#,
      #"{"update": [{"ref": "ann", "values": {"age": 31, "employer": null}}]}"#,
      #"{"delete": ["acme", "ann"]}"#,
    ])
    #expect(outcome.status == 0)
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"save":1,"inserted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":["ann"]}},{"ref":"ann","entity":"Employee","values":{"age":30,"born":{"$date":0.0},"name":"Ann","salary":10.0,"employer":"acme"}}],"updated":[],"deleted":[]}"#,
        #"{"save":2,"inserted":[],"updated":[{"ref":"acme","entity":"Company","changed":{"employees":{"added":[],"removed":["ann"]}}},{"ref":"ann","entity":"Employee","changed":{"age":{"old":30,"new":31},"employer":{"old":"acme","new":null}}}],"deleted":[]}"#,
        #"{"save":3,"inserted":[],"updated":[],"deleted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":[]}},{"ref":"ann","entity":"Employee","values":{"age":31,"born":{"$date":0.0},"name":"Ann","salary":10.0,"employer":null}}]}"#,
      ])
  }

  @Test func aRefusedLineLeavesNoTraceAndLaterLinesGoOn() throws {
    let outcome = try replay([
      #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}, {"entity": "Person", "ref": "ann", "values": {"name": "Ann", "employer": "acme"}}]}"#,
      #"{"delete": ["acme"], "update": [{"ref": "ann", "values": {"age": 5}}]}"#,
      #"{"insert": [{"entity": "Person", "ref": "bob", "values": {"age": "x"}}], "update": [{"ref": "zed"}]}"#,
      #"{"insert": [{"entity": "Robot", "ref": "r2"}]}"#,
      "not json",
      #"{"insert": [{"entity": "Person", "ref": "bob"}]}"#,
      #"{"insert": [{"entity": "Person", "ref": "bob", "values": {"name": "Bob", "employer": "acme"}}], "update": [{"ref": "ann", "values": {"age": 6}}]}"#,
    ])
    #expect(outcome.status == 0)
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"save":1,"inserted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":["ann"]}},{"ref":"ann","entity":"Person","values":{"age":0,"born":null,"name":"Ann","employer":"acme"}}],"updated":[],"deleted":[]}"#,
        #"{"error":{"message":"save failed: 1 problem","problems":["Company 'acme' cannot be deleted: 'employees' (delete rule deny) still holds Person 'ann'"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["update[0]: unknown ref 'zed'","'bob'.age: Person.age takes integer values, not string \"x\""]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["insert[0]: unknown entity 'Robot' (entities: Person, Employee, Company)"]}}"#,
        #"{"error":{"message":"invalid JSON","problems":["invalid JSON at byte 1: expected a value"]}}"#,
        #"{"error":{"message":"save failed: 1 problem","problems":["Person 'bob': 'name' is required"]}}"#,
        // Save 2: ann's age is 0 again (the refused lines left nothing), and
        // the ref 'bob' is free again.
        #"{"save":2,"inserted":[{"ref":"bob","entity":"Person","values":{"age":0,"born":null,"name":"Bob","employer":"acme"}}],"updated":[{"ref":"acme","entity":"Company","changed":{"employees":{"added":["bob"],"removed":[]}}},{"ref":"ann","entity":"Person","changed":{"age":{"old":0,"new":6}}}],"deleted":[]}"#,
      ])
  }

  @Test func rejectsABadSchemaWithEveryProblem() throws {
    let outcome = try replay(
      [],
      schema:
        #"{"entities": [{"name": "A", "attributes": {"x": {"type": "text"}}, "relationships": {"b": {"destination": "B"}}}]}"#
    )
    #expect(outcome.status == 1)
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        invalid schema
          - A.x: unknown type 'text' (types: string, integer, double, boolean, date, uuid, data)
          - A.b: unknown destination entity 'B'

        """))
  }

  @Test func withoutASchemaIsAUsageError() throws {
    let outcome = try CommandRunner.run(["replay"])
    #expect(outcome.status == 64)
    #expect(outcome.errorOutput.contains("usage: context-watch replay --schema SCHEMA.json"))
  }

  /// A line that inserts and deletes the same ref saves nothing and leaves
  /// no trace: the ref is free again, and no message shows an internal
  /// identifier.
  @Test func aLineThatSavesNothingLeavesNoTrace() throws {
    let outcome = try replay([
      #"{"insert": [{"entity": "Person", "ref": "x", "values": {"name": "X"}}], "delete": ["x"]}"#,
      #"{"update": [{"ref": "x", "values": {"age": 3}}]}"#,
      #"{"insert": [{"entity": "Person", "ref": "x", "values": {"name": "X", "age": 4}}]}"#,
      #"{"insert": [{"entity": "Person", "ref": "y", "values": {"name": "Y"}}], "update": [{"ref": "x", "values": {"employer": "y"}}]}"#,
    ])
    #expect(outcome.status == 0)
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"save":null,"inserted":[],"updated":[],"deleted":[]}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["update[0]: unknown ref 'x'"]}}"#,
        #"{"save":1,"inserted":[{"ref":"x","entity":"Person","values":{"age":4,"born":null,"name":"X","employer":null}}],"updated":[],"deleted":[]}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["'x'.employer: Person.employer takes Company objects, not Person 'y'"]}}"#,
      ])
    #expect(!outcome.output.contains("#"))
  }

  /// Problems are sentences, never a Swift dump of an internal type.
  @Test func refusalsListTheirProblemsAsText() throws {
    let outcome = try replay([
      #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}, {"entity": "Person", "ref": "ann", "values": {"name": "Ann", "employer": 5}}]}"#,
      #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}, {"entity": "Person", "ref": "ann", "values": {"name": "Ann", "employer": "zed"}}]}"#,
      #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme", "employees": "ann"}}, {"entity": "Person", "ref": "ann", "values": {"name": "Ann"}}]}"#,
      #"{"insert": 5}"#,
      #"{"insert": [{"entity": "Person", "ref": "ann", "values": 5}]}"#,
    ])
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["'ann'.employer: a relationship takes refs (strings), not the number 5"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["'ann'.employer: unknown ref 'zed'"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["'acme'.employees: Company.employees is to-many: give an array of refs"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["\"insert\" is an array, not the number 5"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["insert[0].values is an object, not the number 5"]}}"#,
      ])
    #expect(!outcome.output.contains("Refusal"))
  }

  /// A misspelt key of a change line, or of one of its inserts or
  /// updates, refuses the line with a did-you-mean, instead of inserting an
  /// object without its values.
  @Test func aMisspeltKeyOfAChangeRefusesItWithADidYouMean() throws {
    let outcome = try replay([
      #"{"insert": [{"entity": "Company", "ref": "acme", "valeus": {"name": "Acme"}}], "updat": []}"#,
      #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}]}"#,
      #"{"update": [{"ref": "acme", "Values": {"name": "Acme Inc"}, "when": 1}]}"#,
    ])
    let refusal = #"{"error":{"message":"the change was refused; nothing of it was applied","problems":"#
    #expect(
      outcome.output.split(separator: "\n").map(String.init) == [
        refusal
          + #"["unknown field 'updat' (did you mean 'update'?)","insert[0]: unknown field 'valeus' (did you mean 'values'?)"]}}"#,
        #"{"save":1,"inserted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":[]}}],"updated":[],"deleted":[]}"#,
        refusal
          + #"["update[0]: unknown field 'Values' (did you mean 'values'?)","update[0]: unknown field 'when' (fields: ref, values)"]}}"#,
      ])
  }

  /// A taken id hides none of the watch's other problems: the schema
  /// checks it too.
  @Test func aTakenWatchIdHidesNoOtherProblem() throws {
    let watches = """
      [{"id": "a", "entity": "Person", "predicate": "age > 1"},
       {"id": "a", "entity": "Person", "predicate": "agee > 1"}]
      """
    let outcome = try replay([], watches: watches)
    #expect(outcome.status == 1)
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : watches are invalid
        watch 'a': the id is taken by watches[0]; each watch needs an id of its own
        watch 'a' on Person:
        error: Person has no key 'agee' (did you mean 'age'?)
         --> predicate:1:1
          |
        1 | agee > 1
          | ^^^^

        """))
  }

  /// A watches file is read strictly: each problem once, in file order.
  @Test func aWatchesFileRefusesDuplicateIdsUnknownFieldsAndBadTypes() throws {
    let watches = """
      [{"id": "a", "entity": "Person", "predicate": "age > %d", "args": 5},
       {"id": "a", "entity": "Person", "predicate": "age > 1", "colour": "red"},
       {"id": "b", "entity": 3, "predicate": "age > 1", "keys": ["age", 2]},
       {"entity": "Person", "predicate": "age > 1"},
       7]
      """
    let outcome = try replay([], watches: watches)
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    let lines = outcome.errorOutput.split(separator: "\n").dropFirst()
    #expect(outcome.errorOutput.hasSuffix(": watches are invalid\n" + lines.joined(separator: "\n") + "\n"))
    #expect(
      Array(lines) == [
        #"watch 'a': "args" is an array, not the number 5"#,
        "watch 'a': the id is taken by watches[0]; each watch needs an id of its own",
        "watch 'a': unknown field 'colour' (fields: id, entity, predicate, args, events, keys, ignoredKeys, follows)",
        #"watch 'b': needs an "entity" string, not the number 3"#,
        "watch 'b': keys[1] is a string, not the number 2",
        #"watches[3]: needs an "id" string"#,
        "watches[4]: a watch is a JSON object, not the number 7",
      ])
  }

  @Test func eachReplayFileIsGivenOnce() throws {
    let usage =
      "usage: context-watch replay --schema SCHEMA.json [--watches WATCHES.json] [--lists LISTS.json] < changes.jsonl"
    let outcome = try CommandRunner.run(["replay", "--schema", "a.json", "--schema", "b.json"])
    #expect(outcome.status == 64)
    #expect(
      outcome.errorOutput
        == "context-watch: replay: --schema is given twice; give each file once\n\(usage)\n")
    let unknown = try CommandRunner.run(["replay", "--schema", "a.json", "--watch", "w.json"])
    #expect(unknown.status == 64)
    #expect(unknown.errorOutput == "context-watch: replay: unknown argument '--watch'\n\(usage)\n")
    let missing = try CommandRunner.run(["replay", "--schema"])
    #expect(missing.errorOutput == "context-watch: replay: --schema needs a file\n\(usage)\n")
  }
}
