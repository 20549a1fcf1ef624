import Foundation
import TestSupport
import Testing

/// The JSON the command line reads: UTF-8 only, errors with their line and
/// byte, and time linear in the input. The large inputs are sizes at which a
/// quadratic reader takes minutes; these finish in well under a second of
/// reading.
@Suite("Command line: JSON input")
struct JSONInputTests {
  /// 2 M escapes mixed with text in each of two strings (6 MB each).
  @Test func longStringsMixingEscapesAndTextReadInLinearTime() throws {
    let text = String(repeating: #"a\n"#, count: 2_000_000)
    let line = #"{"format": "s == %@", "args": [""# + text + #""], "object": {"s": ""# + text + #""}}"#
    let outcome = try CommandRunner.run(["eval", "--cases"], input: line + "\n")
    #expect(outcome.status == 0)
    #expect(outcome.output.hasSuffix(#"","result":true}"# + "\n"))
    #expect(outcome.output.utf8.count > 4_000_000)
  }

  /// An object of 600,000 keys: duplicates are found with a hash set,
  /// not by comparing each key with every earlier one.
  @Test func objectsWithManyKeysReadInLinearTime() throws {
    let members = (0..<600_000).map { #""k\#($0)": \#($0)"# }.joined(separator: ", ")
    let line = #"{"format": "k599999 == 599999 AND k0 == 0", "object": {"# + members + "}}"
    let outcome = try CommandRunner.run(["eval", "--cases"], input: line + "\n")
    #expect(outcome.status == 0)
    #expect(outcome.output == #"{"canonical":"k599999 == 599999 AND k0 == 0","result":true}"# + "\n")
  }

  @Test func aDuplicateKeyIsAnErrorAtTheRepeatedKey() throws {
    let outcome = try CommandRunner.run(["eval", "--cases"], input: #"{"a": 1, "b": 2, "a": 3}"# + "\n")
    #expect(
      outcome.output == #"{"error":{"stage":"input","message":"invalid JSON at byte 18: duplicate key \"a\""}}"# + "\n")
  }

  /// Invalid UTF-8 is refused where it stands, never replaced by U+FFFD:
  /// two different invalid inputs can no longer read as the same text.
  @Test func invalidUTF8InACaseIsAnErrorWithItsByte() throws {
    let lines: [[UInt8]] = [
      Array(#"{"format": "a == 'x"#.utf8) + [0xFF] + Array(#"y'"}"#.utf8),
      Array(#"{"format": "a == 'x"#.utf8) + [0xFE] + Array(#"y'"}"#.utf8),
      // A truncated sequence, an overlong '/', and an encoded surrogate.
      Array(#"{"format": ""#.utf8) + [0xE2, 0x82] + Array(#""}"#.utf8),
      Array(#"{"format": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
      Array(#"{"format": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
      Array(#"{"format": "a == 'é'"}"#.utf8),
    ]
    let outcome = try CommandRunner.run(["eval", "--cases"], bytes: Array(lines.joined(separator: [0x0A])) + [0x0A])
    #expect(outcome.status == 0)
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"error":{"stage":"input","message":"invalid JSON at byte 20: invalid UTF-8 (byte 0xFF)"}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 20: invalid UTF-8 (byte 0xFE)"}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 13: invalid UTF-8 (byte 0xE2)"}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 13: invalid UTF-8 (byte 0xC0)"}}"#,
        #"{"error":{"stage":"input","message":"invalid JSON at byte 13: invalid UTF-8 (byte 0xED)"}}"#,
        #"{"canonical":"a == \"é\"","result":false}"#,
      ])
  }

  /// `eval FORMAT` prints a matching line byte for byte, and refuses a line
  /// that is not UTF-8 with its line number and byte.
  @Test func evalEchoesMatchingLinesByteForByteAndRefusesInvalidUTF8() throws {
    var input: [UInt8] = []
    input += Array(#"{"name":  "Ren\u00e9",   "n": 1.50}"#.utf8) + [0x0A]
    input += Array(#"{"name": "Ren"#.utf8) + [0xC3] + Array(#"e", "n": 2}"#.utf8) + [0x0D, 0x0A]
    input += Array(#"{"name": "Zoë", "n": 3}"#.utf8) + [0x0D, 0x0A]
    let outcome = try CommandRunner.run(["eval", "n > 1"], bytes: input)
    #expect(outcome.status == 1)
    #expect(outcome.output == #"{"name":  "Ren\u00e9",   "n": 1.50}"# + "\n" + #"{"name": "Zoë", "n": 3}"# + "\n")
    #expect(outcome.errorOutput == "line 2: invalid JSON at byte 14: invalid UTF-8 (byte 0xC3)\n")
  }

  @Test func aReplayLineThatIsNotUTF8IsRefused() throws {
    let line = Array(#"{"insert": [{"entity": "Person", "ref": "a"#.utf8) + [0xFF] + Array(#""}]}"#.utf8)
    let schema = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: schema) }
    try Data(ReplayCommandTests.schema.utf8).write(to: schema)
    let outcome = try CommandRunner.run(["replay", "--schema", schema.path], bytes: line + [0x0A])
    #expect(outcome.status == 0)
    #expect(
      outcome.output
        == #"{"error":{"message":"invalid JSON","problems":["invalid JSON at byte 43: invalid UTF-8 (byte 0xFF)"]}}"#
        + "\n")
  }

  /// The schema file is read by the same reader: invalid UTF-8 and syntax
  /// errors are reported with their line and byte.
  @Test func schemaFileErrorsHaveALineAndAByte() throws {
    let invalid =
      Array(#"{"entities": ["#.utf8) + [0x0A] + Array(#"  {"name": "P"#.utf8) + [0xFF] + Array(#""}]}"#.utf8)
    let broken = "{\"entities\": [\n  {\"name\": \"P\"}\n  {\"name\": \"Q\"}]}"
    for (bytes, message) in [
      (invalid, "invalid JSON at line 2, byte 14: invalid UTF-8 (byte 0xFF)"),
      (Array(broken.utf8), "invalid JSON at line 3, byte 3: expected ',' or ']'"),
      (Array(#"{"entities": [], "entities": []}"#.utf8), #"invalid JSON at byte 18: duplicate key "entities""#),
    ] {
      let schema = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).json")
      defer { try? FileManager.default.removeItem(at: schema) }
      try Data(bytes).write(to: schema)
      let outcome = try CommandRunner.run(["replay", "--schema", schema.path])
      #expect(outcome.status == 1)
      #expect(outcome.output == "")
      #expect(outcome.errorOutput == "context-watch: \(schema.path): \(message)\n")
    }
  }

  @Test func aMissingFileIsNamed() throws {
    let outcome = try CommandRunner.run(["replay", "--schema", "/nonexistent/schema.json"])
    #expect(outcome.status == 1)
    #expect(outcome.errorOutput == "context-watch: /nonexistent/schema.json: no such file\n")
  }

  /// A line longer than 64 MiB is skipped without being held in memory,
  /// and answered with an error; the next line is read as usual.
  @Test func aLineLongerThan64MiBIsSkippedWithAnError() throws {
    let long = [UInt8](repeating: UInt8(ascii: "x"), count: (64 << 20) + 1)
    let input = long + [0x0A] + Array(#"{"format": "TRUEPREDICATE"}"#.utf8) + [0x0A]
    let outcome = try CommandRunner.run(["eval", "--cases"], bytes: input)
    #expect(outcome.status == 0)
    #expect(
      outcome.output.split(separator: "\n") == [
        #"{"error":{"stage":"input","message":"the line is 67108865 bytes long, longer than the limit of 67108864 bytes (64 MiB); it was skipped"}}"#,
        #"{"canonical":"TRUEPREDICATE","result":true}"#,
      ])
    let filtered = try CommandRunner.run(["eval", "TRUEPREDICATE"], bytes: long + [0x0A] + Array("{}\n".utf8))
    #expect(filtered.status == 1)
    #expect(filtered.output == "{}\n")
    #expect(
      filtered.errorOutput
        == "line 1: the line is 67108865 bytes long, longer than the limit of 67108864 bytes (64 MiB); it was skipped\n"
    )
  }
}
