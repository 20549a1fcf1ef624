/// The reader behind ``JSONValue/parse(_:)``: one pass over UTF-8 bytes, each
/// error built with its line and byte.
struct JSONReader {
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
    fail(message, at: index)
  }

  /// An error at `offset`, with its line and byte in the line. Invalid
  /// UTF-8 is named as such wherever it stands.
  func fail(_ message: String, at offset: Int) -> JSONParseError {
    var message = message
    if offset < bytes.count, bytes[offset] >= 0x80, JSONReader.scalarLength(bytes, at: offset) == nil {
      message = "invalid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)))"
    }
    var line = 1
    var lineStart = 0
    for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
      line += 1
      lineStart = position + 1
    }
    return JSONParseError(
      message: message, offset: offset, line: line, byte: offset - lineStart + 1,
      isMultiline: bytes.contains(0x0A))
  }

  /// The length of the well-formed UTF-8 sequence at `offset` (1 to 4), or
  /// nil when the bytes there are not one: a stray continuation byte, a
  /// truncated sequence, an overlong form, a surrogate or a value beyond
  /// U+10FFFF.
  static func scalarLength(_ bytes: [UInt8], at offset: Int) -> Int? {
    let lead = bytes[offset]
    let length: Int
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    switch lead {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      upper = 0x9F
    case 0xF0:
      length = 4
      lower = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      upper = 0x8F
    default: return nil
    }
    guard offset + length <= bytes.count, (lower...upper).contains(bytes[offset + 1]) else { return nil }
    for position in offset + 2..<offset + length where bytes[position] & 0xC0 != 0x80 { return nil }
    return length
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
    var keys: Set<String> = []
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
      let keyOffset = index
      let key = try readString()
      guard keys.insert(key).inserted else { throw fail("duplicate key \"\(key)\"", at: keyOffset) }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      index += 1
      skipWhitespace()
      let value = try readValue(depth: depth + 1)
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

  /// Reads a string, its escapes decoded, checking that its text is UTF-8.
  ///
  /// - Complexity: O(*n*) in the string's bytes: runs of text are copied
  ///   into one buffer, decoded once at the end.
  mutating func readString() throws(JSONParseError) -> String {
    index += 1
    let start = index
    var buffer: [UInt8] = []
    var runStart = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let end = index
        index += 1
        if runStart == start { return String(decoding: bytes[start..<end], as: UTF8.self) }
        buffer.append(contentsOf: bytes[runStart..<end])
        return String(decoding: buffer, as: UTF8.self)
      }
      if byte < 0x20 { throw fail("control character in string") }
      if byte >= 0x80 {
        guard let length = JSONReader.scalarLength(bytes, at: index) else { throw fail("invalid UTF-8") }
        index += length
        continue
      }
      if byte != UInt8(ascii: "\\") {
        index += 1
        continue
      }
      buffer.append(contentsOf: bytes[runStart..<index])
      guard index + 1 < bytes.count else { break }
      let escape = bytes[index + 1]
      index += 2
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
      case UInt8(ascii: "b"): buffer.append(0x08)
      case UInt8(ascii: "f"): buffer.append(0x0C)
      case UInt8(ascii: "n"): buffer.append(0x0A)
      case UInt8(ascii: "r"): buffer.append(0x0D)
      case UInt8(ascii: "t"): buffer.append(0x09)
      case UInt8(ascii: "u"):
        let unit = try readHex4()
        let scalar: Unicode.Scalar
        if (0xD800...0xDBFF).contains(unit) {
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          else { throw fail("unpaired surrogate in \\u escape") }
          index += 2
          let low = try readHex4()
          guard (0xDC00...0xDFFF).contains(low),
            let pair = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
          else { throw fail("invalid surrogate pair") }
          scalar = pair
        } else {
          guard let single = Unicode.Scalar(unit) else { throw fail("unpaired surrogate in \\u escape") }
          scalar = single
        }
        buffer.append(contentsOf: String(scalar).utf8)
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
      throw fail("number \(text) is out of range", at: start)
    }
    return .double(real)
  }
}
