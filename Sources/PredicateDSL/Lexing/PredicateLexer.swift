/// Turns predicate text into tokens, one at a time, on demand.
///
/// The lexer reads UTF-8 bytes, never allocates, and never throws: text it
/// cannot make sense of becomes an `.invalid` token that the parser reports
/// with the grammar's context. Every step consumes at least one byte, so
/// lexing is linear in the input.
struct PredicateLexer {
  let bytes: UnsafeBufferPointer<UInt8>
  private(set) var position = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The byte at `index`, or 0 past the end (0 never starts a token).
  @inline(__always)
  func byte(at index: Int) -> UInt8 {
    index < bytes.count ? bytes[index] : 0
  }

  mutating func next() -> PredicateToken {
    skipWhitespace()
    let start = position
    guard start < bytes.count else { return PredicateToken(kind: .end, start: start, end: start) }
    let first = bytes[start]
    position += 1
    // Identifiers and keywords, the most common tokens, before the switch
    // (whose table they would leave through two more range tests).
    if Self.isIdentifierStart(first) {
      skipIdentifier()
      return PredicateToken(kind: identifierOrKeyword(start: start), start: start, end: position)
    }
    let kind: PredicateToken.Kind
    switch first {
    case UInt8(ascii: "("): kind = .leftParen
    case UInt8(ascii: ")"): kind = .rightParen
    case UInt8(ascii: "["): kind = .leftBracket
    case UInt8(ascii: "]"): kind = .rightBracket
    case UInt8(ascii: "{"): kind = .leftBrace
    case UInt8(ascii: "}"): kind = .rightBrace
    case UInt8(ascii: ","): kind = .comma
    case UInt8(ascii: "."): kind = .dot
    case UInt8(ascii: "+"): kind = .plus
    case UInt8(ascii: "-"): kind = .minus
    case UInt8(ascii: "^"): kind = .caret
    case UInt8(ascii: ":"): kind = take("=") ? .assign : .colon
    case UInt8(ascii: "*"): kind = take("*") ? .power : .star
    case UInt8(ascii: "&"): kind = take("&") ? .and : .ampersand
    case UInt8(ascii: "|"): kind = take("|") ? .or : .pipe
    case UInt8(ascii: "!"): kind = take("=") ? .notEqual : .not
    case UInt8(ascii: "="):
      if take("=") {
        kind = .equal
      } else if take("<") {
        kind = .lessOrEqual
      } else if take(">") {
        kind = .greaterOrEqual
      } else {
        kind = .equal
      }
    case UInt8(ascii: "<"):
      if take("=") {
        kind = .lessOrEqual
      } else if take(">") {
        kind = .notEqual
      } else if take("<") {
        kind = .shiftLeft
      } else {
        kind = .less
      }
    case UInt8(ascii: ">"):
      if take("=") {
        kind = .greaterOrEqual
      } else if take(">") {
        kind = .shiftRight
      } else {
        kind = .greater
      }
    case UInt8(ascii: "/"):
      if byte(at: position) == UInt8(ascii: "*") || byte(at: position) == UInt8(ascii: "/") {
        position += 1
        kind = .invalid(.comment)
      } else {
        kind = .slash
      }
    case UInt8(ascii: "?"): kind = .invalid(.questionMark)
    case UInt8(ascii: "'"), UInt8(ascii: "\""): kind = lexString(quote: first)
    case UInt8(ascii: "0")...UInt8(ascii: "9"): kind = lexNumber(start: start)
    case UInt8(ascii: "#"): kind = lexSigil(first, as: .escapedIdentifier)
    case UInt8(ascii: "@"): kind = lexSigil(first, as: .collectionOperator)
    case UInt8(ascii: "$"):
      if Self.isIdentifierStart(byte(at: position)) {
        skipIdentifier()
        kind = .variable
      } else if Self.isIdentifierContinuation(byte(at: position)) {
        skipIdentifier()
        kind = .invalid(.malformedVariable)
      } else {
        kind = .invalid(.bareSigil(first))
      }
    case UInt8(ascii: "%"): kind = lexFormatSpecifier()
    default:
      // Not ASCII we know: consume the whole scalar so the error names it.
      while position < bytes.count, bytes[position] & 0xC0 == 0x80 { position += 1 }
      kind = .invalid(.unexpectedCharacter)
    }
    return PredicateToken(kind: kind, start: start, end: position)
  }

  // MARK: - Pieces

  private mutating func skipWhitespace() {
    var index = position
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    position = index
  }

  /// The class of every byte, one ASCII character per byte value, so that
  /// the table is constant data (no initialisation, no bounds to check past
  /// a `UInt8`): its bits say identifier continuation (1), identifier start
  /// (2), white space (4) and decimal digit (8). `@` is none, `C` a letter or
  /// `_`, `I` a digit, `D` space, tab, line feed or carriage return; bytes
  /// from 128 up are none.
  private static var byteClasses: StaticString {
    """
    @@@@@@@@@DD@@D@@@@@@@@@@@@@@@@@@D@@@@@@@@@@@@@@@IIIIIIIIII@@@@@@\
    @CCCCCCCCCCCCCCCCCCCCCCCCCC@@@@C@CCCCCCCCCCCCCCCCCCCCCCCCCC@@@@@\
    @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\
    @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
    """
  }

  /// Whether `byte` is in any of the classes of `mask` (see `byteClasses`):
  /// one load and one test per byte in the scanning loops.
  @inline(__always)
  private static func isInClass(_ byte: UInt8, _ mask: UInt8) -> Bool {
    byteClasses.utf8Start[Int(byte)] & mask != 0
  }

  /// Space, tab, line feed or carriage return.
  @inline(__always)
  static func isWhitespace(_ byte: UInt8) -> Bool {
    isInClass(byte, 4)
  }

  @inline(__always)
  private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
    if byte(at: position) == UInt8(ascii: scalar) {
      position += 1
      return true
    }
    return false
  }

  /// `A`–`Z`, `_` and `a`–`z`.
  @inline(__always)
  static func isIdentifierStart(_ byte: UInt8) -> Bool {
    isInClass(byte, 2)
  }

  /// An identifier start or `0`–`9`.
  @inline(__always)
  static func isIdentifierContinuation(_ byte: UInt8) -> Bool {
    isInClass(byte, 1)
  }

  private mutating func skipIdentifier() {
    var index = position
    while index < bytes.count, Self.isIdentifierContinuation(bytes[index]) { index += 1 }
    position = index
  }

  private mutating func lexSigil(
    _ sigil: UInt8, as kind: PredicateToken.Kind
  )
    -> PredicateToken.Kind
  {
    guard Self.isIdentifierStart(byte(at: position)) else { return .invalid(.bareSigil(sigil)) }
    skipIdentifier()
    return kind
  }

  private mutating func identifierOrKeyword(start: Int) -> PredicateToken.Kind {
    guard let keyword = Keyword.lookUp(bytes, start, position) else {
      // UTI-CONFORMS-TO and UTI-EQUALS are the only words with hyphens.
      if position - start == 3, bytes[start] & 0xDF == UInt8(ascii: "U"),
        bytes[start + 1] & 0xDF == UInt8(ascii: "T"), bytes[start + 2] & 0xDF == UInt8(ascii: "I")
      {
        if matchSuffix("-CONFORMS-TO") { return .keyword(.utiConformsTo) }
        if matchSuffix("-EQUALS") { return .keyword(.utiEquals) }
      }
      return .identifier
    }
    return .keyword(keyword)
  }

  /// Consumes `suffix` (upper-case ASCII, compared case-insensitively) when
  /// it follows and ends at an identifier boundary.
  private mutating func matchSuffix(_ suffix: StaticString) -> Bool {
    let count = suffix.utf8CodeUnitCount
    guard position + count <= bytes.count else { return false }
    let expected = suffix.utf8Start
    for offset in 0..<count {
      let actual = bytes[position + offset]
      let folded = actual == UInt8(ascii: "-") ? actual : actual & 0xDF
      if folded != expected[offset] { return false }
    }
    guard !Self.isIdentifierContinuation(byte(at: position + count)) else { return false }
    position += count
    return true
  }

  /// A string literal after its opening quote: `.string` when it has no
  /// backslash (its bytes are its value), else `.escapedString`.
  private mutating func lexString(quote: UInt8) -> PredicateToken.Kind {
    var index = position
    var escaped = false
    while index < bytes.count {
      let byte = bytes[index]
      if byte == quote {
        position = index + 1
        return escaped ? .escapedString : .string
      }
      if byte == UInt8(ascii: "\\") {
        // A backslash escapes the next byte (possibly the quote); decoding
        // validates the escape later.
        escaped = true
        index += 2
      } else {
        index += 1
      }
    }
    position = bytes.count
    return .invalid(.unterminatedString)
  }

  private mutating func lexNumber(start: Int) -> PredicateToken.Kind {
    let first = bytes[start]
    let marker = byte(at: position) | 0x20
    if first == UInt8(ascii: "0"),
      marker == UInt8(ascii: "x") || marker == UInt8(ascii: "o") || marker == UInt8(ascii: "b")
    {
      position += 1
      let digitsStart = position
      while position < bytes.count, Self.isIdentifierContinuation(bytes[position]) { position += 1 }
      let radix = marker == UInt8(ascii: "x") ? 16 : marker == UInt8(ascii: "o") ? 8 : 2
      if digitsStart == position {
        return .invalid(.malformedNumber(.noDigitsAfterPrefix))
      }
      for index in digitsStart..<position where Self.digitValue(bytes[index]) >= radix {
        return .invalid(.malformedNumber(.digitOutOfBase(radix: UInt8(radix))))
      }
      return .integer
    }
    var isReal = false
    skipDigits()
    if byte(at: position) == UInt8(ascii: "."), Self.isDigit(byte(at: position + 1)) {
      isReal = true
      position += 1
      skipDigits()
    }
    if byte(at: position) | 0x20 == UInt8(ascii: "e") {
      isReal = true
      position += 1
      if byte(at: position) == UInt8(ascii: "+") || byte(at: position) == UInt8(ascii: "-") {
        position += 1
      }
      guard Self.isDigit(byte(at: position)) else {
        skipIdentifier()
        return .invalid(.malformedNumber(.noExponentDigits))
      }
      skipDigits()
    }
    if Self.isIdentifierContinuation(byte(at: position)) {
      skipIdentifier()
      return .invalid(.malformedNumber(.runsIntoLetters))
    }
    return isReal ? .real : .integer
  }

  @inline(__always)
  static func isDigit(_ byte: UInt8) -> Bool {
    isInClass(byte, 8)
  }

  /// The value of an ASCII digit in any base up to 36; 99 for anything else.
  static func digitValue(_ byte: UInt8) -> Int {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 10
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
    default: 99
    }
  }

  private mutating func skipDigits() {
    var index = position
    while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    position = index
  }

  /// `%` [flags] [width] [.precision] [length] conversion, as printf has it,
  /// plus `%@` and `%K`.
  private mutating func lexFormatSpecifier() -> PredicateToken.Kind {
    while position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: " "), UInt8(ascii: "#"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."):
        position += 1
      default:
        return lexConversion()
      }
    }
    return .invalid(.malformedFormatSpecifier)
  }

  private mutating func lexConversion() -> PredicateToken.Kind {
    // Length modifiers: hh h ll l q L z t j.
    while position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: "h"), UInt8(ascii: "l"), UInt8(ascii: "q"), UInt8(ascii: "L"),
        UInt8(ascii: "z"), UInt8(ascii: "t"), UInt8(ascii: "j"):
        position += 1
      default:
        guard FormatConversion(byte: bytes[position]) != nil else {
          if bytes[position] < 0x80 { position += 1 }
          return .invalid(.malformedFormatSpecifier)
        }
        position += 1
        return .formatSpecifier
      }
    }
    return .invalid(.malformedFormatSpecifier)
  }
}
