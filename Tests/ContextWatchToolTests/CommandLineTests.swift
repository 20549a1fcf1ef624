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
    let outcome = try CommandRunner.run(["check", "%K > %d AND name == %@ AND code == %@", "stats.score", "30", "Ann", "\"42\""])
    #expect(outcome.status == 0)
    #expect(outcome.output == "stats.score > 30 AND name == \"Ann\" AND code == \"42\"\n")
  }

  @Test func checkRendersErrorsAndExitsOne() throws {
    let outcome = try CommandRunner.run(["check", "name BEGINSWITHH 'A'"])
    #expect(outcome.status == 1)
    #expect(
      outcome.output == """
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
        #"{"canonical":"age > 30"}"#,
        #"{"error":{"stage":"parse","message":"expected expression, found end of input","offset":5,"line":1,"column":6}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at offset 0: expected a value"}}"#,
        #"{"error":{"stage":"input","message":"a case needs a \"format\" string"}}"#,
        #"{"canonical":"name == \"Ann\" AND d > CAST(0.0, \"NSDate\")"}"#,
        #"{"canonical":"a IN CAST({1, 2}, \"NSSet\")"}"#,
        #"{"canonical":"a == $x"}"#,
        #"{"error":{"stage":"parse","message":"argument 1 for '%K' must be a string naming a key path, not integer","offset":0,"line":1,"column":1}}"#,
        #"{"error":{"stage":"input","message":"a case must be a JSON object, not array"}}"#,
        #"{"error":{"stage":"input","message":"\"args\" must be an array, not object"}}"#,
        #"{"canonical":"a == 1"}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at offset 0: expected a value, found end of input"}}"#,
        #"{"error":{"stage":"parse","message":"unexpected character 'ï' (U+EF) (keys are ASCII letters, digits and '_'; quote text as in 'café')","offset":2,"line":1,"column":3}}"#,
      ])
  }

  @Test func evalCasesKeepsIntegersExact() throws {
    let outcome = try CommandRunner.run(
      ["eval", "--cases"], input: #"{"format": "a == %@ AND b == %@ AND c == %@", "args": [9007199254740993, 1.0, true]}"#)
    #expect(outcome.output == #"{"canonical":"a == 9007199254740993 AND b == 1.0 AND c == TRUE"}"# + "\n")
  }

  @Test func evalNeedsCases() throws {
    let outcome = try CommandRunner.run(["eval"])
    #expect(outcome.status == 64)
  }

  @Test func demoRunsOnTheEmbeddedExamples() throws {
    let outcome = try CommandRunner.run(["demo"])
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
