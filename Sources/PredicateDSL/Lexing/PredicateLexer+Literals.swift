extension PredicateLexer {
  /// A problem inside a literal: what, and the UTF-8 range to underline.
  struct LiteralProblem: Error {
    var message: String
    var range: SyntaxRange
  }

  /// The value of a `.string` or `.escapedString` token, escapes decoded.
  func decodeString(_ token: PredicateToken) throws(LiteralProblem) -> String {
    let contentStart = token.start + 1
    let contentEnd = token.end - 1
    // The lexer saw no backslash: the bytes are the string.
    if token.kind == .string {
      return tokenText(contentStart, contentEnd)
    }
    // An `.escapedString` holds a backslash: the bytes before the first one
    // are taken as they are.
    var index = contentStart
    while index < contentEnd, bytes[index] != UInt8(ascii: "\\") { index += 1 }
    var scalars = String.UnicodeScalarView()
    scalars.append(
      contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
        .unicodeScalars)
    var utf8Run = index
    while index < contentEnd {
      guard bytes[index] == UInt8(ascii: "\\") else {
        index += 1
        continue
      }
      if utf8Run < index {
        scalars.append(
          contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[utf8Run..<index]), as: UTF8.self)
            .unicodeScalars)
      }
      let escapeStart = index
      let (scalar, next) = try decodeEscape(at: escapeStart, end: contentEnd)
      scalars.append(scalar)
      index = next
      utf8Run = next
    }
    if utf8Run < contentEnd {
      scalars.append(
        contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[utf8Run..<contentEnd]), as: UTF8.self)
          .unicodeScalars)
    }
    return String(scalars)
  }

  /// Decodes the escape that starts with the backslash at `start`.
  private func decodeEscape(at start: Int, end: Int) throws(LiteralProblem) -> (Unicode.Scalar, Int) {
    let letter = byte(at: start + 1)
    switch letter {
    case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"):
      return (Unicode.Scalar(letter), start + 2)
    case UInt8(ascii: "n"): return ("\n", start + 2)
    case UInt8(ascii: "t"): return ("\t", start + 2)
    case UInt8(ascii: "r"): return ("\r", start + 2)
    case UInt8(ascii: "a"): return ("\u{07}", start + 2)
    case UInt8(ascii: "b"): return ("\u{08}", start + 2)
    case UInt8(ascii: "f"): return ("\u{0C}", start + 2)
    case UInt8(ascii: "v"): return ("\u{0B}", start + 2)
    case UInt8(ascii: "x"), UInt8(ascii: "X"):
      let value = try hexValue(from: start + 2, digits: 2, end: end, escapeStart: start)
      return (Unicode.Scalar(UInt8(value)), start + 4)
    case UInt8(ascii: "u"), UInt8(ascii: "U"):
      let unit = try hexValue(from: start + 2, digits: 4, end: end, escapeStart: start)
      if let scalar = Unicode.Scalar(unit) { return (scalar, start + 6) }
      // A UTF-16 surrogate: only a high one followed by an escaped low one
      // makes a character.
      if (0xD800...0xDBFF).contains(unit), byte(at: start + 6) == UInt8(ascii: "\\"),
        byte(at: start + 7) | 0x20 == UInt8(ascii: "u"),
        let low = try? hexValue(from: start + 8, digits: 4, end: end, escapeStart: start + 6),
        (0xDC00...0xDFFF).contains(low),
        let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
      {
        return (scalar, start + 12)
      }
      throw LiteralProblem(
        message: "escape '\(text(start, start + 6))' is an unpaired UTF-16 surrogate",
        range: SyntaxRange(start, start + 6))
    case UInt8(ascii: "0")...UInt8(ascii: "7"):
      var value: UInt32 = 0
      for offset in 1...3 {
        let digit = byte(at: start + offset)
        guard start + offset < end, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else {
          throw LiteralProblem(
            message: "octal escape needs three digits, as in '\\101'",
            range: SyntaxRange(start, Swift.min(start + offset + 1, end)))
        }
        value = value * 8 + UInt32(digit - UInt8(ascii: "0"))
      }
      guard value <= 0xFF else {
        throw LiteralProblem(
          message: "octal escape '\(text(start, start + 4))' is larger than \\377",
          range: SyntaxRange(start, start + 4))
      }
      return (Unicode.Scalar(UInt8(value)), start + 4)
    default:
      let scalarEnd = Swift.min(end, start + 1 + Self.scalarLength(letter))
      throw LiteralProblem(
        message: "unknown escape '\(text(start, scalarEnd))' in string literal; write '\\\\' for a backslash",
        range: SyntaxRange(start, scalarEnd))
    }
  }

  private func hexValue(
    from start: Int, digits: Int, end: Int, escapeStart: Int
  )
    throws(LiteralProblem) -> UInt32
  {
    var value: UInt32 = 0
    for offset in 0..<digits {
      let digit = Self.digitValue(byte(at: start + offset))
      guard start + offset < end, digit < 16 else {
        let kind = bytes[escapeStart + 1]
        throw LiteralProblem(
          message: "escape '\\\(Character(Unicode.Scalar(kind)))' needs \(digits) hexadecimal digits",
          range: SyntaxRange(escapeStart, Swift.min(start + offset + 1, end)))
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  /// How many bytes the UTF-8 sequence that starts with `lead` has.
  static func scalarLength(_ lead: UInt8) -> Int {
    switch lead {
    case 0..<0x80: 1
    case 0xF0...: 4
    case 0xE0...: 3
    default: 2
    }
  }

  /// The source text in `start..<end`, clamped to the input.
  func text(_ start: Int, _ end: Int) -> String {
    let lower = Swift.min(Swift.max(start, 0), bytes.count)
    let upper = Swift.min(Swift.max(end, lower), bytes.count)
    return Self.string(UnsafeBufferPointer(rebasing: bytes[lower..<upper]))
  }

  /// The source bytes `start..<end` of a token as a string: `text` without
  /// its clamping, for ranges the lexer produced (within the input).
  func tokenText(_ start: Int, _ end: Int) -> String {
    assert(0 <= start && start <= end && end <= bytes.count)
    return Self.string(UnsafeBufferPointer(start: bytes.baseAddress.unsafelyUnwrapped + start, count: end - start))
  }

  /// A string of UTF-8 bytes (repaired if a range cuts a character). Copying
  /// into a string's own storage costs about half of `String(decoding:as:)`,
  /// which matters for the keys and literals of every parse.
  @inline(__always)
  static func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: utf8.count) { buffer in
      // One copy of the bytes, not the element-wise `initialize(from:)`.
      if let source = utf8.baseAddress {
        buffer.baseAddress.unsafelyUnwrapped.initialize(from: source, count: utf8.count)
      }
      return utf8.count
    }
  }

  /// The value of an `.integer` token, or `nil` when it does not fit in 64
  /// bits. The magnitude is returned unsigned so that `-9223372036854775808`
  /// can be read.
  @inline(__always)
  func integerMagnitude(_ token: PredicateToken) -> UInt64? {
    // A decimal integer of up to 19 digits (no base prefix: it does not
    // start with 0) cannot overflow 64 bits: no checks per digit.
    let count = token.end - token.start
    if count <= 19, bytes[token.start] != UInt8(ascii: "0") {
      var value: UInt64 = 0
      for index in token.start..<token.end {
        value = value &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
      }
      return value
    }
    var index = token.start
    var radix: UInt64 = 10
    if token.end - token.start > 2, bytes[index] == UInt8(ascii: "0") {
      switch bytes[index + 1] | 0x20 {
      case UInt8(ascii: "x"): radix = 16
      case UInt8(ascii: "o"): radix = 8
      case UInt8(ascii: "b"): radix = 2
      default: break
      }
      if radix != 10 { index += 2 }
    }
    var value: UInt64 = 0
    while index < token.end {
      let (shifted, overflowA) = value.multipliedReportingOverflow(by: radix)
      let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(Self.digitValue(bytes[index])))
      if overflowA || overflowB { return nil }
      value = sum
      index += 1
    }
    return value
  }
}
