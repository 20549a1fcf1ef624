import Foundation
import PredicateDSL
import Testing
import WatchFormats

@Suite("Watch formats: JSON values")
struct JSONValueTests {
  private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try JSONValue.parse(Array(text.utf8))
  }

  @Test func readsIntegersDecimalsAndBooleansApartAndKeepsKeyOrder() throws {
    let value = try parse(#" {"z": 1, "a": 1.0, "m": true, "n": null, "s": "x", "l": [-0, 2e3]} "#)
    #expect(
      value
        == .object([
          ("z", .int(1)), ("a", .double(1)), ("m", .bool(true)), ("n", .null), ("s", .string("x")),
          ("l", .array([.int(0), .double(2000)])),
        ]))
    #expect(value.serialized == #"{"z":1,"a":1.0,"m":true,"n":null,"s":"x","l":[0,2000.0]}"#)
    #expect(value["m"] == .bool(true))
    #expect(value["missing"] == nil)
    #expect(JSONValue.int(1) != .double(1))
    #expect(JSONValue.object([("a", .int(1)), ("b", .int(2))]) != .object([("b", .int(2)), ("a", .int(1))]))
  }

  @Test func integersBeyondSixtyFourBitsAreDecimals() throws {
    #expect(try parse("9223372036854775807") == .int(.max))
    #expect(try parse("-9223372036854775808") == .int(.min))
    #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
  }

  @Test func writesEscapesAndUnicodeAsTheToolsPrintThem() throws {
    let value = try parse(#"["a\"b\\c\/d\n\r\t\b\f\u0001é\u00e9\ud83d\ude00"]"#)
    #expect(value == .array([.string("a\"b\\c/d\n\r\t\u{08}\u{0C}\u{01}éé😀")]))
    #expect(value.serialized == #"["a\"b\\c/d\n\r\t\u0008\u000c\u0001éé😀"]"#)
    #expect(JSONValue.double(.infinity).serialized == "null")
    #expect(JSONValue.object([]).serialized == "{}")
    #expect(JSONValue.array([]).serialized == "[]")
  }

  @Test func typeNamesForMessages() {
    let names = [JSONValue.null, .bool(false), .int(1), .double(1), .string(""), .array([]), .object([])].map(
      \.typeName)
    #expect(names == ["null", "boolean", "number", "number", "string", "array", "object"])
  }

  /// Each error says what is wrong and where: the byte in a text of one
  /// line, the line and byte in a longer one.
  @Test(arguments: [
    ("", "invalid JSON at byte 1: expected a value, found end of input"),
    ("[1,", "invalid JSON at byte 4: expected a value, found end of input"),
    ("[1 2]", "invalid JSON at byte 4: expected ',' or ']'"),
    (#"{"a" 1}"#, "invalid JSON at byte 6: expected ':'"),
    (#"{"a": 1,}"#, "invalid JSON at byte 9: expected a string key"),
    (#"{"a": 1, "a": 2}"#, #"invalid JSON at byte 10: duplicate key "a""#),
    ("[1] x", "invalid JSON at byte 5: unexpected text after the value"),
    ("01", "invalid JSON at byte 3: leading zero in number"),
    ("1.", "invalid JSON at byte 3: expected digits after '.'"),
    ("1e999", "invalid JSON at byte 1: number 1e999 is out of range"),
    ("tru", "invalid JSON at byte 1: expected a value"),
    (#""a"#, "invalid JSON at byte 3: unterminated string"),
    (#""\x""#, "invalid JSON at byte 4: invalid escape in string"),
    (#""\ud800""#, #"invalid JSON at byte 8: unpaired surrogate in \u escape"#),
    ("[\n  1,\n  x]", "invalid JSON at line 3, byte 3: expected a value"),
    ("{\n\"a\": \"\t\"}", "invalid JSON at line 2, byte 7: control character in string"),
  ])
  func errorsNameTheProblemAndItsPlace(text: String, message: String) {
    #expect(throws: JSONParseError.self) { try self.parse(text) }
    do {
      _ = try parse(text)
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func invalidUTF8IsNamedAtItsFirstByte() throws {
    let error = try #require(throws: JSONParseError.self) {
      try JSONValue.parse([UInt8(ascii: "["), UInt8(ascii: "\""), 0x61, 0xC3, 0x28, UInt8(ascii: "\""), 0x5D])
    }
    #expect(error.description == "invalid JSON at byte 4: invalid UTF-8 (byte 0xC3)")
    #expect(error.offset == 3)
    #expect(error.line == 1)
    #expect(!error.isMultiline)
  }

  @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() throws {
    let depth = 512
    #expect(throws: Never.self) {
      try self.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
    }
    let error = try #require(throws: JSONParseError.self) {
      try self.parse(String(repeating: "[", count: 100_000))
    }
    #expect(error.description == "invalid JSON at byte \(depth + 1): nesting is too deep")
  }

  @Test func filterValuesRoundTripThroughTheTaggedForms() throws {
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let json = try parse(
      #"[{"$set": [2, 1]}, {"$date": 10}, {"$date": "2001-01-01T00:00:10Z"}, {"$uuid": ""#
        + uuid.uuidString + #""}, {"$data": "AAEC"}, {"b": 1, "a": null}]"#)
    let value = try json.filterValue()
    guard case .array(let elements) = value else {
      Issue.record("not an array: \(value)")
      return
    }
    #expect(elements[0] == .set([.int(1), .int(2)]))
    #expect(elements[1] == .date(secondsSinceReferenceDate: 10))
    #expect(elements[2] == .date(secondsSinceReferenceDate: 10))
    #expect(elements[4] == .data([0, 1, 2]))
    #expect(elements[5] == .record(["a": .null, "b": .int(1)]))
    // Back to JSON: sets sorted by their text, records by key, dates in seconds.
    #expect(
      JSONValue(value).serialized
        == #"[{"$set":[1,2]},{"$date":10.0},{"$date":10.0},{"$uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"},"#
        + #"{"$data":"AAEC"},{"a":null,"b":1}]"#)
  }

  @Test func numbersAndDatesThatAreNotFiniteRoundTripAsTaggedStrings() throws {
    let values: [FilterValue] = [
      .double(.infinity), .double(-.infinity), .date(secondsSinceReferenceDate: .infinity),
      .date(secondsSinceReferenceDate: -.infinity), .double(1.5),
    ]
    let text = JSONValue(.array(values)).serialized
    #expect(
      text
        == #"[{"$double":"Infinity"},{"$double":"-Infinity"},{"$date":"Infinity"},{"$date":"-Infinity"},1.5]"#)
    #expect(try parse(text).filterValue() == .array(values))
    #expect(JSONValue(.double(.nan)).serialized == #"{"$double":"NaN"}"#)
    guard case .double(let number) = try parse(#"{"$double": "NaN"}"#).filterValue() else {
      Issue.record("not a double")
      return
    }
    #expect(number.isNaN)
    let wrong = try parse(#"{"$double": "1.5"}"#)
    #expect(throws: JSONValue.ConversionError.self) { try wrong.filterValue() }
    do {
      _ = try wrong.filterValue()
    } catch {
      #expect(
        error.description == #""$double" string "1.5" is not NaN, Infinity or -Infinity (write finite numbers bare)"#)
    }
  }

  @Test(arguments: [
    (#"{"$set": 3}"#, #""$set" needs an array, not the number 3"#),
    (#"{"$date": true}"#, #""$date" needs seconds since 2001-01-01 or an ISO-8601 string, not the Boolean true"#),
    (#"{"$date": "soon"}"#, #""$date" string "soon" is not an ISO-8601 date"#),
    (#"{"$uuid": "x"}"#, #""$uuid" string "x" is not a UUID"#),
    (#"{"$uuid": 1}"#, #""$uuid" needs a string, not the number 1"#),
    (#"{"$data": "%"}"#, #""$data" string is not base64"#),
  ])
  func taggedFormsWithTheWrongPayloadAreErrors(text: String, message: String) throws {
    let json = try parse(text)
    #expect(throws: JSONValue.ConversionError.self) { try json.filterValue() }
    do {
      _ = try json.filterValue()
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func formatArgumentsNameTheBadElement() throws {
    #expect(try JSONValue.formatArguments(nil, field: "args") == [])
    #expect(try JSONValue.formatArguments(.null, field: "args") == [])
    #expect(try JSONValue.formatArguments(parse("[1, \"a\"]"), field: "args") == [.int(1), .string("a")])
    let bad = try parse(#"[1, {"$set": 3}]"#)
    do {
      _ = try JSONValue.formatArguments(bad, field: "args")
      Issue.record("no error")
    } catch {
      #expect(error.description == #"args[1]: "$set" needs an array, not the number 3"#)
    }
    do {
      _ = try JSONValue.formatArguments(.object([]), field: "arguments")
      Issue.record("no error")
    } catch {
      #expect(error.description == #""arguments" is an array, not an object"#)
    }
  }

  @Test func filesThatCannotBeReadSayWhy() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing.json").path
    for (path, message) in [(missing, "no such file"), (folder.path, "is a directory, not a file")] {
      let error = try #require(throws: JSONValue.FileError.self) { try JSONValue.contents(ofFile: path) }
      #expect(error.description == message)
    }
    let good = folder.appendingPathComponent("good.json")
    try Data("[1]\n".utf8).write(to: good)
    #expect(try JSONValue.contents(ofFile: good.path) == Array("[1]\n".utf8))
    #expect(try JSONValue.parse(file: good.path) == .array([.int(1)]))
  }

  /// Unknown keys get a did-you-mean when a field is close (a difference
  /// of case, or a few edits), else the list of fields, in object order.
  @Test func namesUnknownFieldsWithADidYouMean() throws {
    let value = try parse(#"{"name": "P", "tabel": "people", "PrimaryKey": "id", "colour": 1}"#)
    #expect(
      value.unknownFieldMessages(allowed: ["name", "table", "primaryKey"]) == [
        "unknown field 'tabel' (did you mean 'table'?)",
        "unknown field 'PrimaryKey' (did you mean 'primaryKey'?)",
        "unknown field 'colour' (fields: name, table, primaryKey)",
      ])
    #expect(JSONValue.array([.int(1)]).unknownFieldMessages(allowed: []) == [])
  }

  @Test func phrasesWhatWasFound() throws {
    let values: [JSONValue] = [
      .null, .bool(true), .int(5), .double(2.5), .string("yes"), .string(String(repeating: "a", count: 50)),
      .array([]), .object([]),
    ]
    #expect(
      values.map(\.phrase) == [
        "null", "the Boolean true", "the number 5", "the number 2.5", #"the string "yes""#,
        "the string \"" + String(repeating: "a", count: 40) + "…\"", "an array", "an object",
      ])
  }
}
