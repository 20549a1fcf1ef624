import Foundation
import TestSupport
import Testing

@Suite("Command line")
struct CommandLineTests {
  @Test func checkPrintsTheCanonicalForm() throws {
    let outcome = try CommandRunner.run(["check", "name beginswith[c] 'a' and age = 30"])
    #expect(outcome.status == 0)
    #expect(outcome.output == "name BEGINSWITH[c] \"a\" AND age == 30\n")
  }

  @Test func checkSubstitutesArguments() throws {
    let outcome = try CommandRunner.run([
      "check", "%K > %d AND name == %@ AND code == %@", "stats.score", "30", "Ann", "\"42\"",
    ])
    #expect(outcome.status == 0)
    #expect(outcome.output == "stats.score > 30 AND name == \"Ann\" AND code == \"42\"\n")
  }

  /// `check` reads no input: 4 MB written to it meet a closed pipe, which
  /// must not kill the test process (SIGPIPE) nor fail the run.
  @Test func aCommandThatExitsBeforeReadingItsInputIsNotAFailure() throws {
    let input = String(repeating: "{\"age\": 40}\n", count: 350_000)
    for _ in 0..<3 {
      let outcome = try CommandRunner.run(["check", "age > 30"], input: input)
      #expect(outcome.status == 0)
      #expect(outcome.output == "age > 30\n")
    }
  }

  @Test func checkRendersErrorsAndExitsOne() throws {
    let outcome = try CommandRunner.run(["check", "name BEGINSWITHH 'A'"])
    #expect(outcome.status == 1)
    #expect(outcome.output == "")
    #expect(
      outcome.errorOutput == """
        error: unknown operator 'BEGINSWITHH'
         --> predicate:1:6
          |
        1 | name BEGINSWITHH 'A'
          |      ^^^^^^^^^^^ did you mean 'BEGINSWITH'?

        """)
  }

  @Test func checkWithoutAFormatIsAUsageError() throws {
    let outcome = try CommandRunner.run(["check"])
    #expect(outcome.status == 64)
    #expect(outcome.errorOutput.contains("usage: context-watch check FORMAT [ARG...]"))
  }

  @Test func evalCasesAnswersEveryLineInOrder() throws {
    let input = [
      #"{"format": "age > %d", "args": [30]}"#,
      #"{"format": "age >"}"#,
      #"not json"#,
      #"{"args": []}"#,
      #"{"format": "name == %@ AND d > %@", "args": ["Ann", {"$date": 0}]}"#,
      #"{"format": "a IN %@", "args": [{"$set": [2, 1]}]}"#,
      #"{"format": "a == $x", "vars": {"x": 1}, "object": {"a": 1}}"#,
      #"{"format": "%K == 1", "args": [5]}"#,
      #"[1, 2]"#,
      #"{"format": "a == 1", "args": {"x": 1}}"#,
      #"{"format": "a == 1\n"}"#,
      "",
      #"{"format": "naïve == 1"}"#,
    ].joined(separator: "\n")
    let outcome = try CommandRunner.run(["eval", "--cases"], input: input + "\n")
    #expect(outcome.status == 0)
    let lines = outcome.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(
      Array(lines) == [
        #"{"canonical":"age > 30","result":false}"#,
        #"{"error":{"stage":"parse","message":"expected expression, found end of input","offset":5,"line":1,"column":6}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 1: expected a value"}}"#,
        #"{"error":{"stage":"input","message":"a case needs a \"format\" string"}}"#,
        #"{"canonical":"name == \"Ann\" AND d > CAST(0.0, \"NSDate\")","result":false}"#,
        #"{"canonical":"a IN CAST({1, 2}, \"NSSet\")","result":false}"#,
        #"{"canonical":"a == $x","result":true}"#,
        #"{"error":{"stage":"parse","message":"argument 1 for '%K' must be a string naming a key path, not integer","offset":0,"line":1,"column":1}}"#,
        #"{"error":{"stage":"input","message":"a case must be a JSON object, not an array"}}"#,
        #"{"error":{"stage":"input","message":"\"args\" must be an array, not an object"}}"#,
        #"{"canonical":"a == 1","result":false}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 1: expected a value, found end of input"}}"#,
        #"{"error":{"stage":"parse","message":"unexpected character 'ï' (U+EF) (keys are ASCII letters, digits and '_'; quote text as in 'café')","offset":2,"line":1,"column":3}}"#,
      ])
  }

  @Test func evalCasesKeepsIntegersExact() throws {
    let outcome = try CommandRunner.run(
      ["eval", "--cases"],
      input: #"{"format": "a == %@ AND b == %@ AND c == %@", "args": [9007199254740993, 1.0, true]}"#)
    #expect(
      outcome.output == #"{"canonical":"a == 9007199254740993 AND b == 1.0 AND c == TRUE","result":false}"# + "\n")
  }

  @Test func evalNeedsCasesOrAFormat() throws {
    #expect(try CommandRunner.run(["eval"]).status == 64)
    #expect(try CommandRunner.run(["eval", "--count"]).status == 64)
  }

  @Test func evalCasesEvaluates() throws {
    let input = [
      #"{"format": "age > %d AND name BEGINSWITH[c] %@", "args": [30, "a"], "object": {"age": 31, "name": "Alice"}}"#,
      #"{"format": "created > %@", "args": [{"$date": 5}], "object": {"created": {"$date": "2001-01-01T00:00:10Z"}}}"#,
      #"{"format": "tags CONTAINS 'x' AND ANY s == 2", "object": {"tags": ["x"], "s": {"$set": [1, 2]}}}"#,
      #"{"format": "age < $limit", "vars": {"limit": "40"}, "object": {"age": 31}}"#,
      #"{"format": "a == $unbound"}"#,
      #"{"format": "ANY a == 1", "object": {"a": 5}}"#,
      #"{"format": "name MATCHES '('"}"#,
      #"{"format": "big == 9007199254740993", "object": {"big": 9007199254740993}}"#,
      #"{"format": "missing == nil"}"#,
    ].joined(separator: "\n")
    let outcome = try CommandRunner.run(["eval", "--cases"], input: input + "\n")
    #expect(outcome.status == 0)
    let lines = outcome.output.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        #"{"canonical":"age > 30 AND name BEGINSWITH[c] \"a\"","result":true}"#,
        #"{"canonical":"created > CAST(5.0, \"NSDate\")","result":true}"#,
        #"{"canonical":"tags CONTAINS \"x\" AND ANY s == 2","result":true}"#,
        #"{"canonical":"age < $limit","error":{"stage":"evaluate","message":"cannot order integer 31 against string \"40\""}}"#,
        #"{"canonical":"a == $unbound","error":{"stage":"evaluate","message":"no value for variable $unbound"}}"#,
        #"{"canonical":"ANY a == 1","error":{"stage":"evaluate","message":"ANY needs a collection, found integer 5"}}"#,
        #"{"canonical":"name MATCHES \"(\"","error":{"stage":"evaluate","message":"invalid regular expression \"(\""}}"#,
        #"{"canonical":"big == 9007199254740993","result":true}"#,
        #"{"canonical":"missing == nil","result":true}"#,
      ])
  }

  @Test func evalFiltersJSONLines() throws {
    let records = [
      #"{"name": "Al", "age": 40}"#, #"{"name": "Bo", "age": 20}"#, "", #"{"name": "Cy", "age": 35}"#,
    ].joined(separator: "\n")
    let matched = try CommandRunner.run(["eval", "age > %d", "30"], input: records + "\n")
    #expect(matched.status == 0)
    #expect(matched.output == #"{"name": "Al", "age": 40}"# + "\n" + #"{"name": "Cy", "age": 35}"# + "\n")
    let counted = try CommandRunner.run(["eval", "--count", "name BEGINSWITH 'B'"], input: records)
    #expect(counted.output == "1\n")
  }

  @Test func evalFilterReportsErrorsWithCarets() throws {
    let bad = try CommandRunner.run(["eval", "age >"], input: "{}\n")
    #expect(bad.status == 1)
    #expect(bad.errorOutput.contains("error: expected expression, found end of input\n --> predicate:1:6"))
    let input = [#"{"age": "x"}"#, "{oops", #"{"age": 50}"#].joined(separator: "\n")
    let partial = try CommandRunner.run(["eval", "age > 30"], input: input)
    #expect(partial.status == 1)
    #expect(partial.output == #"{"age": 50}"# + "\n")
    #expect(
      partial.errorOutput.contains("line 1: error: cannot order string \"x\" against integer 30\n --> predicate:1:1"))
    #expect(partial.errorOutput.contains("line 2: invalid JSON at byte 2"))
  }

  @Test func demoTellsTheWatcherStory() throws {
    let outcome = try CommandRunner.run(["demo"])
    #expect(outcome.status == 0)
    let output = outcome.output
    for expected in [
      "   ↳ delivery for save 1 on queue 'demo.deliveries':\n       pay: inserted Ann\n       seniors: inserted Bob",
      "       seniors: entered Ann (age 59 → 60)",
      "       seniors: updated Ann (salary 100 → 120)\n       pay: updated Ann (salary 100 → 120)",
      "       research: entered Ann (through its department)",
      "   ↳ save 5: no watch saw it, so nothing was delivered",
      "       big: entered Acme",
      "       big: exited Acme",
      "       seniors: deleted Bob\n       research: deleted Bob",
      "   error: Person has no key 'agee' (did you mean 'age'?)",
      "   #4 matches watch 'seniors'\n     ✓ entity: Employee is a Person\n     ✓ age >= 60    (age = 60)",
      "  the table: R&D: Ann\n",
      "       insert section 1 (Shop)\n       insert row [0, 1] (Di)\n       insert row [1, 0] (Cy)\n"
        + "     end updates; the table: R&D: Ann, Di | Shop: Cy",
      "   ↳ Ann's monitor: updated department\n   ↳ list: begin updates\n"
        + "       move row [0, 0] → [1, 0] (Ann; department)\n",
      "       delete row [1, 0] (Ann)\n       delete row [1, 1] (Cy)\n       delete section 1 (Shop)\n"
        + "       insert section 1 (Store)\n       insert row [1, 0] (Ann)\n       insert row [1, 1] (Cy)\n",
      "       delete row [0, 0] (Di)\n       delete section 0 (R&D)\n     end updates; the table: Store: Ann, Cy",
    ] {
      #expect(output.contains(expected), "missing: \(expected)")
    }
  }

  @Test func demoRunsAGeneratedWorkload() throws {
    let outcome = try CommandRunner.run(["demo", "--saves", "20"])
    #expect(outcome.status == 0)
    #expect(outcome.output.contains("20 saves of 10 updated people each"))
    #expect(outcome.output.contains("latency from save to delegate callback: p50 "))
    #expect(try CommandRunner.run(["demo", "--saves", "none"]).status == 64)
  }

  /// A bad option of `demo` says which option, the value given and what
  /// it takes, then the usage.
  @Test(arguments: [
    (["--saves", "-1"], "--saves takes a whole number from 1 to 1000000, not '-1'"),
    (["--saves", "abc"], "--saves takes a whole number from 1 to 1000000, not 'abc'"),
    (["--saves", "0"], "--saves takes a whole number from 1 to 1000000, not '0'"),
    (["--saves", "1000001"], "--saves takes a whole number from 1 to 1000000, not '1000001'"),
    (["--saves"], "--saves needs a number of saves"),
    (["--saves", "5", "6"], "unexpected argument '6'"),
    (["--save", "5"], "unknown argument '--save'"),
  ])
  func demoSaysWhatIsWrongWithAnOption(arguments: [String], message: String) throws {
    let outcome = try CommandRunner.run(["demo"] + arguments)
    #expect(outcome.status == 64)
    #expect(outcome.output.isEmpty)
    #expect(
      outcome.errorOutput == "context-watch: demo: \(message)\nusage: context-watch demo [--saves N | predicates]\n")
  }

  @Test func demoPredicatesSaysWhichArgumentIsExtra() throws {
    let outcome = try CommandRunner.run(["demo", "predicates", "all"])
    #expect(outcome.status == 64)
    #expect(
      outcome.errorOutput == "context-watch: demo: unexpected argument 'all'\nusage: context-watch demo predicates\n")
  }

  @Test func demoToursThePredicateLanguage() throws {
    let outcome = try CommandRunner.run(["demo", "predicates"])
    #expect(outcome.status == 0)
    #expect(outcome.output.contains("canonical: name BEGINSWITH[cd] \"jo\" AND (age >= 18 OR guardian != nil)"))
    #expect(outcome.output.contains("did you mean 'BEGINSWITH'?"))
  }

  @Test func unknownCommandsAreUsageErrors() throws {
    let outcome = try CommandRunner.run(["frobnicate"])
    #expect(outcome.status == 64)
    #expect(outcome.errorOutput.contains("unknown command 'frobnicate'"))
  }
}
