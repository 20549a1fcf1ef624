import Foundation
import TestSupport
import Testing

@Suite("Command line: replay --lists")
struct ReplayListsTests {
  static let schema = """
    {"entities": [
      {"name": "Person",
       "attributes": {"name": {"type": "string"}, "city": {"type": "string", "optional": true},
                      "age": {"type": "integer", "optional": true, "default": 0}},
       "relationships": {"employer": {"destination": "Company", "inverse": "employees"}}},
      {"name": "Company", "attributes": {"name": {"type": "string"}},
       "relationships": {"employees": {"destination": "Person", "toMany": true, "inverse": "employer"}}}
    ]}
    """

  private func replay(_ lines: [String], lists: String, watches: String? = nil) throws -> CommandRunner.Outcome {
    try runReplay(lines, schema: Self.schema, watches: watches, lists: lists)
  }

  private func lines(_ outcome: CommandRunner.Outcome) -> [String] {
    outcome.output.split(separator: "\n").map(String.init)
  }

  @Test func aSectionedListReportsSectionsAndIndexPaths() throws {
    let lists = """
      [{"name": "byCity", "entity": "Person", "sortBy": [{"key": "city"}, {"key": "name"}], "sectionBy": "city"}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "ann", "values": {"name": "Ann", "city": "Oslo"}}, {"entity": "Person", "ref": "bob", "values": {"name": "Bob", "city": "Bergen"}}, {"entity": "Person", "ref": "cid", "values": {"name": "Cid", "city": "Oslo"}}, {"entity": "Person", "ref": "dan", "values": {"name": "Dan"}}]}"#,
        #"{"update": [{"ref": "cid", "values": {"city": "Bergen"}}]}"#,
        #"{"update": [{"ref": "ann", "values": {"age": 40}}]}"#,
        #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}]}"#,
        #"{"delete": ["dan"]}"#,
        #"{"update": [{"ref": "bob", "values": {"city": "Aarhus"}}]}"#,
      ], lists: lists)
    #expect(outcome.status == 0)
    #expect(outcome.errorOutput == "")
    #expect(
      lines(outcome).filter { $0.contains(#""list""#) } == [
        // Nil sorts first and is named null.
        #"{"save":1,"list":"byCity","deletedSections":[],"insertedSections":[0,1,2],"deleted":[],"inserted":[[0,0],[1,0],[2,0],[2,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["dan"]},{"name":"Bergen","refs":["bob"]},{"name":"Oslo","refs":["ann","cid"]}]}"#,
        // A move between sections: from the old list's [2, 1] to the new one's [1, 1].
        #"{"save":2,"list":"byCity","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[[[2,1],[1,1]]],"updated":[],"sections":[{"name":null,"refs":["dan"]},{"name":"Bergen","refs":["bob","cid"]},{"name":"Oslo","refs":["ann"]}]}"#,
        // An update in place, at its index path in the new list.
        #"{"save":3,"list":"byCity","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[],"updated":[[2,0]],"sections":[{"name":null,"refs":["dan"]},{"name":"Bergen","refs":["bob","cid"]},{"name":"Oslo","refs":["ann"]}]}"#,
        // Save 4 inserted a company only: no line. Deleting Dan empties the nil section.
        #"{"save":5,"list":"byCity","deletedSections":[0],"insertedSections":[],"deleted":[[0,0]],"inserted":[],"moved":[],"updated":[],"sections":[{"name":"Bergen","refs":["bob","cid"]},{"name":"Oslo","refs":["ann"]}]}"#,
        // Into a new section: a deletion and an insertion, not a move (rows
        // move only between sections that stay).
        #"{"save":6,"list":"byCity","deletedSections":[],"insertedSections":[0],"deleted":[[0,0]],"inserted":[[0,0]],"moved":[],"updated":[],"sections":[{"name":"Aarhus","refs":["bob"]},{"name":"Bergen","refs":["cid"]},{"name":"Oslo","refs":["ann"]}]}"#,
      ])
    // Each save's line comes first, then its list's.
    #expect(lines(outcome).map { $0.contains(#""list""#) ? "l" : "s" }.joined() == "slslslsslsl")
  }

  @Test func aLimitPullsTheNextObjectIn() throws {
    let lists = """
      [{"name": "oldest", "entity": "Person", "predicate": "age >= %d", "arguments": [18],
        "sortBy": [{"key": "age", "ascending": false}], "limit": 2}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A", "age": 20}}, {"entity": "Person", "ref": "b", "values": {"name": "B", "age": 30}}, {"entity": "Person", "ref": "c", "values": {"name": "C", "age": 40}}, {"entity": "Person", "ref": "d", "values": {"name": "D", "age": 10}}]}"#,
        #"{"delete": ["c"]}"#,
        #"{"insert": [{"entity": "Person", "ref": "e", "values": {"name": "E", "age": 35}}]}"#,
        #"{"update": [{"ref": "d", "values": {"age": 50}}]}"#,
        #"{"update": [{"ref": "a", "values": {"age": 19}}]}"#,
        #"{"update": [{"ref": "e", "values": {"name": "Eve"}}]}"#,
      ], lists: lists)
    #expect(outcome.status == 0)
    #expect(
      lines(outcome).filter { $0.contains(#""list""#) } == [
        // d does not match; c and b fill the window, a waits below it.
        #"{"save":1,"list":"oldest","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,0],[0,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["c","b"]}]}"#,
        // c leaves: a comes in.
        #"{"save":2,"list":"oldest","deletedSections":[],"insertedSections":[],"deleted":[[0,0]],"inserted":[[0,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["b","a"]}]}"#,
        // e enters above the last: a drops out.
        #"{"save":3,"list":"oldest","deletedSections":[],"insertedSections":[],"deleted":[[0,1]],"inserted":[[0,0]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["e","b"]}]}"#,
        #"{"save":4,"list":"oldest","deletedSections":[],"insertedSections":[],"deleted":[[0,1]],"inserted":[[0,0]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["d","e"]}]}"#,
        // Save 5 changed a, which is beyond the limit: no line.
        #"{"save":6,"list":"oldest","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[],"updated":[[0,1]],"sections":[{"name":null,"refs":["d","e"]}]}"#,
      ])
  }

  @Test func anOffsetSkipsTheFirstObjectsAndTheWindowFollowsSaves() throws {
    let lists = """
      [{"name": "second", "entity": "Person", "sortBy": [{"key": "age", "ascending": false}], "limit": 2,
        "offset": 1}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A", "age": 20}}, {"entity": "Person", "ref": "b", "values": {"name": "B", "age": 30}}, {"entity": "Person", "ref": "c", "values": {"name": "C", "age": 40}}]}"#,
        #"{"delete": ["c"]}"#,
        #"{"insert": [{"entity": "Person", "ref": "d", "values": {"name": "D", "age": 50}}]}"#,
      ], lists: lists)
    #expect(outcome.status == 0)
    #expect(
      lines(outcome).filter { $0.contains(#""list""#) } == [
        // c is first, before the window.
        #"{"save":1,"list":"second","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,0],[0,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["b","a"]}]}"#,
        // c goes: b is first, and a alone is in the window.
        #"{"save":2,"list":"second","deletedSections":[],"insertedSections":[],"deleted":[[0,0]],"inserted":[],"moved":[],"updated":[],"sections":[{"name":null,"refs":["a"]}]}"#,
        // d comes first: b is back in the window.
        #"{"save":3,"list":"second","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,0]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["b","a"]}]}"#,
      ])
  }

  @Test func aBadOffsetIsReportedWithItsValue() throws {
    let lists = """
      [{"name": "back", "entity": "Person", "sortBy": [{"key": "name"}], "offset": -3},
       {"name": "half", "entity": "Person", "sortBy": [{"key": "name"}], "offset": 1.5}]
      """
    let outcome = try replay([], lists: lists)
    #expect(outcome.status == 1)
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : lists are invalid
        list 'back' on Person: a list's offset cannot be negative (-3)
        list 'half': "offset" is an integer, not the number 1.5

        """))
  }

  @Test func listLinesFollowTheWatchLinesInListOrder() throws {
    let watches = #"[{"id": "adults", "entity": "Person", "predicate": "age >= 18"}]"#
    let lists = """
      [{"name": "people", "entity": "Person", "sortBy": [{"key": "name"}]},
       {"name": "byAge", "entity": "Person", "sortBy": [{"key": "age"}, {"key": "name"}], "sectionBy": "age"}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "ann", "values": {"name": "Ann", "age": 30}}, {"entity": "Person", "ref": "bob", "values": {"name": "Bob", "age": 12}}]}"#,
        #"{"insert": [{"entity": "Company", "ref": "acme", "values": {"name": "Acme"}}]}"#,
        #"{"update": [{"ref": "bob", "values": {"age": 30}}]}"#,
      ], lists: lists, watches: watches)
    #expect(outcome.status == 0)
    #expect(
      lines(outcome) == [
        #"{"save":1,"inserted":[{"ref":"ann","entity":"Person","values":{"age":30,"city":null,"name":"Ann","employer":null}},{"ref":"bob","entity":"Person","values":{"age":12,"city":null,"name":"Bob","employer":null}}],"updated":[],"deleted":[]}"#,
        #"{"save":1,"watch":"adults","inserted":["ann"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
        #"{"save":1,"list":"people","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,0],[0,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["ann","bob"]}]}"#,
        // A number's section is named in decimal.
        #"{"save":1,"list":"byAge","deletedSections":[],"insertedSections":[0,1],"deleted":[],"inserted":[[0,0],[1,0]],"moved":[],"updated":[],"sections":[{"name":"12","refs":["bob"]},{"name":"30","refs":["ann"]}]}"#,
        #"{"save":2,"inserted":[{"ref":"acme","entity":"Company","values":{"name":"Acme","employees":[]}}],"updated":[],"deleted":[]}"#,
        #"{"save":3,"inserted":[],"updated":[{"ref":"bob","entity":"Person","changed":{"age":{"old":12,"new":30}}}],"deleted":[]}"#,
        #"{"save":3,"watch":"adults","inserted":[],"updated":[],"entered":["bob"],"exited":[],"deleted":[]}"#,
        #"{"save":3,"list":"people","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[],"updated":[[0,1]],"sections":[{"name":null,"refs":["ann","bob"]}]}"#,
        #"{"save":3,"list":"byAge","deletedSections":[0],"insertedSections":[],"deleted":[[0,0]],"inserted":[[0,1]],"moved":[],"updated":[],"sections":[{"name":"30","refs":["ann","bob"]}]}"#,
      ])
  }

  @Test func aRefusedLinePrintsNoListLine() throws {
    let lists = #"[{"name": "people", "entity": "Person", "sortBy": [{"key": "name"}]}]"#
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "ann", "values": {"name": "Ann"}}]}"#,
        #"{"insert": [{"entity": "Person", "ref": "cid", "values": {"name": "Cid"}}], "update": [{"ref": "ann", "values": {"age": "x"}}]}"#,
        #"{"insert": [{"entity": "Person", "ref": "bob"}]}"#,
        #"{"delete": ["zed"]}"#,
        "{}",
        #"{"insert": [{"entity": "Person", "ref": "bob", "values": {"name": "Bob"}}]}"#,
      ], lists: lists)
    #expect(outcome.status == 0)
    #expect(
      lines(outcome) == [
        #"{"save":1,"inserted":[{"ref":"ann","entity":"Person","values":{"age":0,"city":null,"name":"Ann","employer":null}}],"updated":[],"deleted":[]}"#,
        #"{"save":1,"list":"people","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,0]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["ann"]}]}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["'ann'.age: Person.age takes integer values, not string \"x\""]}}"#,
        #"{"error":{"message":"save failed: 1 problem","problems":["Person 'bob': 'name' is required"]}}"#,
        #"{"error":{"message":"the change was refused; nothing of it was applied","problems":["delete[0]: unknown ref 'zed'"]}}"#,
        #"{"save":null,"inserted":[],"updated":[],"deleted":[]}"#,
        // Neither Cid nor the first Bob left a trace in the list.
        #"{"save":2,"inserted":[{"ref":"bob","entity":"Person","values":{"age":0,"city":null,"name":"Bob","employer":null}}],"updated":[],"deleted":[]}"#,
        #"{"save":2,"list":"people","deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[[0,1]],"moved":[],"updated":[],"sections":[{"name":null,"refs":["ann","bob"]}]}"#,
      ])
  }

  @Test func everyInvalidListIsReportedOnceBeforeAnySave() throws {
    let lists = """
      [{"name": "nobody", "entity": "Persn", "sortBy": [{"key": "name"}]},
       {"name": "typo", "entity": "Person", "predicate": "agee > 3", "sortBy": [{"key": "name"}]},
       {"name": "broken", "entity": "Person", "predicate": "age >", "sortBy": [{"key": "name"}]},
       {"name": "unsorted", "entity": "Person", "sortBy": []},
       {"name": "sortTypo", "entity": "Person", "sortBy": [{"key": "nam"}]},
       {"name": "sections", "entity": "Person", "sortBy": [{"key": "name"}, {"key": "city"}], "sectionBy": "city"},
       {"name": "shape", "entity": 3, "predicate": 4, "sortBy": [{"key": "name", "ascending": "yes", "order": 1}, 5, {}],
        "sectionBy": 1, "limit": 2.5, "extra": true},
       {"name": "loose", "entity": "Person", "predicate": "age > %d", "arguments": 3, "sortBy": [{"key": "name"}]},
       {"name": "odd", "entity": "Person", "predicate": "age IN %@", "arguments": [{"$set": 3}], "sortBy": [{"key": "name"}]},
       {"name": "stray", "entity": "Person", "arguments": [3], "sortBy": [{"key": "name"}]},
       {"name": "negative", "entity": "Person", "sortBy": [{"key": "name"}], "limit": -1},
       {"name": "typo", "entity": "Person", "sortBy": {"key": "name"}},
       {"name": "unsortedToo", "entity": "Person"},
       {"name": "many", "entity": "Company", "sortBy": [{"key": "employees.name"}]},
       {"name": "fine", "entity": "Person", "sortBy": [{"key": "name"}]},
       [],
       {"entity": "Person"}]
      """
    let outcome = try replay(
      [#"{"insert": [{"entity": "Person", "ref": "a", "values": {"name": "A"}}]}"#], lists: lists)
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    #expect(outcome.errorOutput.hasPrefix("context-watch: "))
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : lists are invalid
        list 'nobody' on Persn: unknown entity 'Persn' (entities: Person, Company)
        list 'typo' on Person:
        error: Person has no key 'agee' (did you mean 'age'?)
         --> predicate:1:1
          |
        1 | agee > 3
          | ^^^^
        list 'broken' on Person:
        error: expected expression, found end of input
         --> predicate:1:6
          |
        1 | age >
          |      ^
        list 'unsorted' on Person: a list needs at least one sort key (ties are then broken by object identifier)
        list 'sortTypo' on Person: Person has no attribute 'nam' (in the sort key 'nam')
        list 'sections' on Person: the section key 'city' must be the first sort key (it is 'name'): sections appear in the order of their first object, so the sort must group them
        list 'shape': unknown field 'extra' (fields: name, entity, predicate, arguments, sortBy, sectionBy, limit, offset)
        list 'shape': needs an "entity" string, not the number 3
        list 'shape': "predicate" is a string, not the number 4
        list 'shape': sortBy[0]: unknown field 'order' (fields: key, ascending)
        list 'shape': sortBy[0]: "ascending" is a Boolean, not the string "yes"
        list 'shape': sortBy[1]: a sort key is a JSON object ({"key": String, "ascending": Bool?}), not the number 5
        list 'shape': sortBy[2]: needs a "key" string
        list 'shape': "sectionBy" is a string, not the number 1
        list 'shape': "limit" is an integer, not the number 2.5
        list 'loose': "arguments" is an array, not the number 3
        list 'odd': arguments[0]: "$set" needs an array, not the number 3
        list 'stray': "arguments" are given without a "predicate"
        list 'negative' on Person: a list's limit cannot be negative (-1)
        list 'typo': the name is taken by lists[1]; each list needs a name of its own
        list 'typo': needs a "sortBy" array of sort keys ({"key": String, "ascending": Bool?}), not an object
        list 'unsortedToo': needs a "sortBy" array of sort keys ({"key": String, "ascending": Bool?})
        list 'many' on Company: Company.employees is a to-many relationship: a sort key follows to-one relationships only
        lists[15]: a list is a JSON object, not an array
        lists[16]: needs a "name" string

        """))
  }

  /// A name used twice hides none of the list's other problems, those
  /// against the schema included; a limit beyond 64 bits is given as
  /// written; a name of the wrong type says what it is.
  @Test func aTakenNameHidesNoOtherProblemAndBadValuesAreShown() throws {
    let lists = """
      [{"name": "a", "entity": "Person", "sortBy": [{"key": "name"}]},
       {"name": "a", "entity": "Persn", "sortBy": [{"key": "name"}]},
       {"name": "a", "entity": "Person", "sortBy": [{"key": "name"}], "limit": 9223372036854775808},
       {"name": "c", "entity": "Person", "sortBy": [{"key": "name"}], "limit": "10"},
       {"name": 5, "entity": "Person"}]
      """
    let outcome = try replay([], lists: lists)
    #expect(outcome.status == 1)
    #expect(
      outcome.errorOutput.hasSuffix(
        """
        : lists are invalid
        list 'a': the name is taken by lists[0]; each list needs a name of its own
        list 'a' on Persn: unknown entity 'Persn' (entities: Person, Company)
        list 'a': the name is taken by lists[0]; each list needs a name of its own
        list 'a': "limit" is an integer, not 9223372036854775808, which is beyond the 64-bit range (at most 9223372036854775807)
        list 'c': "limit" is an integer, not the string "10"
        lists[4]: needs a "name" string, not the number 5

        """))
  }

  @Test func aListsFileIsAnArray() throws {
    let outcome = try replay([], lists: #"{"name": "people"}"#)
    #expect(outcome.status == 1)
    #expect(
      outcome.errorOutput.hasSuffix(": a list is invalid\nthe lists file is a JSON array of lists, not an object\n"))
  }

  @Test func badWatchesAndBadListsAreBothReported() throws {
    let outcome = try replay(
      [], lists: #"[{"name": "people", "entity": "Person", "sortBy": []}]"#,
      watches: #"[{"id": "adults", "entity": "Persn", "predicate": "age >= 18"}]"#)
    #expect(outcome.status == 1)
    let errors = outcome.errorOutput.split(separator: "\n").map(String.init)
    #expect(errors.count == 4)
    #expect(errors[0].hasSuffix(": a watch is invalid"))
    #expect(errors[1] == "watch 'adults' on Persn: unknown entity 'Persn' (entities: Person, Company)")
    #expect(errors[2].hasSuffix(": a list is invalid"))
    #expect(
      errors[3]
        == "list 'people' on Person: a list needs at least one sort key (ties are then broken by object identifier)")
  }

  /// A lists file with more distinct sort keys than the library allows is
  /// refused with the library's message, naming the list; repeats of a
  /// key count once, and a list of repeats lists as its distinct keys do.
  @Test func sortKeysRepeatFreelyButTheirDistinctCountIsLimited() throws {
    let repeated = Array(repeating: #"{"key": "city"}, {"key": "name", "ascending": false}"#, count: 5_000)
    let tooMany = (0..<65).map { #"{"key": "k\#($0)"}"# }
    let lists = """
      [{"name": "repeated", "entity": "Person", "sortBy": [\(repeated.joined(separator: ", "))], "sectionBy": "city"},
       {"name": "distinct", "entity": "Person", "sortBy": [{"key": "city"}, {"key": "name", "ascending": false}], "sectionBy": "city"}]
      """
    let outcome = try replay(
      [
        #"{"insert": [{"entity": "Person", "ref": "ann", "values": {"name": "Ann", "city": "Oslo"}}, {"entity": "Person", "ref": "bob", "values": {"name": "Bob", "city": "Oslo"}}]}"#
      ], lists: lists)
    #expect(outcome.status == 0)
    #expect(
      lines(outcome).dropFirst().map { $0.replacingOccurrences(of: #""list":"repeated""#, with: #""list":"distinct""#) }
        == [
          #"{"save":1,"list":"distinct","deletedSections":[],"insertedSections":[0],"deleted":[],"inserted":[[0,0],[0,1]],"moved":[],"updated":[],"sections":[{"name":"Oslo","refs":["bob","ann"]}]}"#,
          #"{"save":1,"list":"distinct","deletedSections":[],"insertedSections":[0],"deleted":[],"inserted":[[0,0],[0,1]],"moved":[],"updated":[],"sections":[{"name":"Oslo","refs":["bob","ann"]}]}"#,
        ])
    let refused = try replay(
      [], lists: #"[{"name": "ranked", "entity": "Person", "sortBy": [\#(tooMany.joined(separator: ", "))]}]"#)
    #expect(refused.status == 1)
    let errors = refused.errorOutput.split(separator: "\n").map(String.init)
    #expect(errors.count == 2)
    #expect(errors[0].hasSuffix(": a list is invalid"))
    #expect(
      errors[1]
        == "list 'ranked' on Person: the list has 65 distinct sort keys, more than the limit of 64; a repeated key counts once, and 'k64' is the first past the limit"
    )
  }

  @Test func listsWithoutASchemaIsAUsageError() throws {
    let outcome = try CommandRunner.run(["replay", "--lists", "lists.json"])
    #expect(outcome.status == 64)
    #expect(outcome.errorOutput.contains("[--lists LISTS.json]"))
  }
}
