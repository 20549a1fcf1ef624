/// A JSON value as `context-watch` and `pg-watch` read and write it:
/// integers stay exact 64-bit integers, Booleans stay Booleans, and objects
/// keep their key order.
///
/// Foundation's `JSONSerialization` turns every number into an `NSNumber`
/// and loses the difference between `1`, `1.0` and `true` on Linux, which
/// the predicate semantics depend on, and it keeps no key order; hence this
/// small reader and writer. Both tools print their lines with
/// ``serialized``, so a line comes out byte for byte the same from either.
///
/// ```swift
/// let value = try JSONValue.parse(Array(#"{"b": 1, "a": [true, 1.5]}"#.utf8))
/// value["a"]      // .array([.bool(true), .double(1.5)])
/// value.serialized  // {"b":1,"a":[true,1.5]}
/// ```
public enum JSONValue: Equatable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number without a fraction or an exponent that fits in 64 bits.
  case int(Int64)
  /// Any other finite number.
  case double(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object, its members in the order of the text.
  case object([(key: String, value: JSONValue)])

  /// Whether two values are the same JSON: an object's members compare in
  /// order, and `1` differs from `1.0`.
  ///
  /// - Complexity: O(*n*) in the smaller value's members and elements.
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }

  /// The value of `key` in an object; `nil` for a missing key or a
  /// non-object.
  ///
  /// ```swift
  /// JSONValue.object([("id", .string("adults"))])["id"]  // .string("adults")
  /// ```
  ///
  /// - Complexity: O(*n*) in the object's members.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first(where: { $0.key == key })?.value
  }

  /// A short name of the value's JSON type: `null`, `boolean`, `number`,
  /// `string`, `array` or `object`. Messages that say what they found use
  /// ``phrase``, which also gives a scalar's value.
  ///
  /// ```swift
  /// JSONValue.int(3).typeName  // number
  /// ```
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .int, .double: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
}

extension JSONValue {
  /// The deepest nesting of arrays and objects the reader accepts.
  package static let maximumDepth = 512

  /// Reads one JSON value that fills `text` (surrounding white space aside).
  package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// Reads one JSON value that fills `bytes`, surrounding white space aside.
  ///
  /// The text must be UTF-8: an invalid sequence is an error at its first
  /// byte, never replaced. Nesting deeper than 512 arrays and objects, a
  /// duplicate key and a number beyond `Double`'s range are errors too.
  ///
  /// ```swift
  /// try JSONValue.parse(Array("[1,".utf8))
  /// // throws: invalid JSON at byte 4: expected a value, found end of input
  /// ```
  ///
  /// - Parameter bytes: UTF-8 JSON text.
  /// - Returns: The value.
  /// - Throws: ``JSONParseError`` with what is wrong and its line and byte.
  /// - Complexity: O(*n*) in the bytes.
  public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    var reader = JSONReader(bytes: bytes)
    reader.skipWhitespace()
    let value = try reader.readValue(depth: 0)
    reader.skipWhitespace()
    guard reader.index == reader.bytes.count else { throw reader.fail("unexpected text after the value") }
    return value
  }

  /// The value as compact JSON text, keys in their order.
  ///
  /// A number that is not finite (which ``parse(_:)`` never reads, but a
  /// computed value can hold) is written `null`; control characters in
  /// strings are escaped, every other character is written as itself.
  ///
  /// ```swift
  /// JSONValue.object([("position", .string("0/16B3F40"))]).serialized
  /// // {"position":"0/16B3F40"}
  /// ```
  ///
  /// - Complexity: O(*n*) in the size of the text.
  public var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .int(let number): output += String(number)
    case .double(let number):
      if number.isFinite {
        output += number.description
      } else {
        output += "null"
      }
    case .string(let text): JSONValue.writeString(text, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        JSONValue.writeString(member.key, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
    }
  }

  private static func writeString(_ text: String, to output: inout String) {
    output += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{00}"..."\u{1F}":
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
