/// A JSON value as the command line reads and writes it: integers stay exact
/// 64-bit integers, Booleans stay Booleans, and objects keep their key order.
///
/// Foundation's `JSONSerialization` turns every number into an `NSNumber`
/// and loses the difference between `1`, `1.0` and `true` on Linux, which the
/// predicate semantics depend on; hence this small reader.
enum JSONValue: Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
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

  /// The value of `key` in an object; `nil` for a missing key or a non-object.
  subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first(where: { $0.key == key })?.value
  }

  /// A short name of the JSON type, for error messages.
  var typeName: String {
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

/// An error reading JSON, with the UTF-8 offset where it was found.
struct JSONParseError: Error, CustomStringConvertible {
  var message: String
  var offset: Int
  var description: String { "invalid JSON at offset \(offset): \(message)" }
}

extension JSONValue {
  /// The deepest nesting of arrays and objects the reader accepts.
  static let maximumDepth = 512

  /// Reads one JSON value that fills `text` (surrounding white space aside).
  static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    var reader = JSONReader(bytes: Array(text.utf8))
    reader.skipWhitespace()
    let value = try reader.readValue(depth: 0)
    reader.skipWhitespace()
    guard reader.index == reader.bytes.count else {
      throw JSONParseError(message: "unexpected text after the value", offset: reader.index)
    }
    return value
  }

  /// The value as compact JSON text, keys in their order.
  var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  func write(to output: inout String) {
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

  static func writeString(_ text: String, to output: inout String) {
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

private struct JSONReader {
  let bytes: [UInt8]
  var index = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  mutating func skipWhitespace() {
    while index < bytes.count,
      bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D
    {
      index += 1
    }
  }

  func fail(_ message: String) -> JSONParseError {
    JSONParseError(message: message, offset: index)
  }

  mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard index < bytes.count else { throw fail("expected a value, found end of input") }
    guard depth < JSONValue.maximumDepth else { throw fail("nesting is too deep") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try readObject(depth: depth)
    case UInt8(ascii: "["): return try readArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try readString())
    case UInt8(ascii: "t"): return try readWord("true", .bool(true))
    case UInt8(ascii: "f"): return try readWord("false", .bool(false))
    case UInt8(ascii: "n"): return try readWord("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
    default: throw fail("expected a value")
    }
  }

  mutating func readWord(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
    let expected = Array(word.utf8)
    guard index + expected.count <= bytes.count,
      Array(bytes[index..<index + expected.count]) == expected
    else { throw fail("expected a value") }
    index += expected.count
    return value
  }

  mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
    index += 1
    var members: [(key: String, value: JSONValue)] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw fail("expected a string key")
      }
      let key = try readString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      index += 1
      skipWhitespace()
      let value = try readValue(depth: depth + 1)
      if members.contains(where: { $0.key == key }) { throw fail("duplicate key \"\(key)\"") }
      members.append((key, value))
      skipWhitespace()
      guard index < bytes.count else { throw fail("expected ',' or '}', found end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
      index += 1
      return .object(members)
    }
  }

  mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try readValue(depth: depth + 1))
      skipWhitespace()
      guard index < bytes.count else { throw fail("expected ',' or ']', found end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
      index += 1
      return .array(elements)
    }
  }

  mutating func readString() throws(JSONParseError) -> String {
    index += 1
    var scalars = String.UnicodeScalarView()
    var runStart = index
    func flush(_ end: Int) {
      if runStart < end {
        scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
      }
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        flush(index)
        index += 1
        return String(scalars)
      }
      if byte < 0x20 { throw fail("control character in string") }
      if byte != UInt8(ascii: "\\") {
        index += 1
        continue
      }
      flush(index)
      guard index + 1 < bytes.count else { break }
      let escape = bytes[index + 1]
      index += 2
      switch escape {
      case UInt8(ascii: "\""): scalars.append("\"")
      case UInt8(ascii: "\\"): scalars.append("\\")
      case UInt8(ascii: "/"): scalars.append("/")
      case UInt8(ascii: "b"): scalars.append("\u{08}")
      case UInt8(ascii: "f"): scalars.append("\u{0C}")
      case UInt8(ascii: "n"): scalars.append("\n")
      case UInt8(ascii: "r"): scalars.append("\r")
      case UInt8(ascii: "t"): scalars.append("\t")
      case UInt8(ascii: "u"):
        let unit = try readHex4()
        if (0xD800...0xDBFF).contains(unit) {
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          else { throw fail("unpaired surrogate in \\u escape") }
          index += 2
          let low = try readHex4()
          guard (0xDC00...0xDFFF).contains(low),
            let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
          else { throw fail("invalid surrogate pair") }
          scalars.append(scalar)
        } else {
          guard let scalar = Unicode.Scalar(unit) else { throw fail("unpaired surrogate in \\u escape") }
          scalars.append(scalar)
        }
      default:
        throw fail("invalid escape in string")
      }
      runStart = index
    }
    throw fail("unterminated string")
  }

  mutating func readHex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("\\u needs four hexadecimal digits") }
    var value: UInt32 = 0
    for byte in bytes[index..<index + 4] {
      guard let digit = hexDigit(byte) else { throw fail("\\u needs four hexadecimal digits") }
      value = value << 4 | digit
    }
    index += 4
    return value
  }

  func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  mutating func readNumber() throws(JSONParseError) -> JSONValue {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    func digits() -> Int {
      let from = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        index += 1
      }
      return index - from
    }
    let integerDigits = digits()
    guard integerDigits > 0 else { throw fail("expected digits") }
    if integerDigits > 1, bytes[index - integerDigits] == UInt8(ascii: "0") {
      throw fail("leading zero in number")
    }
    var isInteger = true
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      isInteger = false
      guard digits() > 0 else { throw fail("expected digits after '.'") }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      isInteger = false
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        index += 1
      }
      guard digits() > 0 else { throw fail("expected digits in exponent") }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .int(integer) }
    guard let real = Double(text), real.isFinite else {
      throw JSONParseError(message: "number \(text) is out of range", offset: start)
    }
    return .double(real)
  }
}
