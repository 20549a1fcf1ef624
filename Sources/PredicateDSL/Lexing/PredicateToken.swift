/// One token of predicate text: its kind and the UTF-8 offsets it spans.
///
/// Tokens carry offsets only; their text, decoded strings and numeric values
/// are read from the source on demand, so lexing allocates nothing.
struct PredicateToken: Equatable {
  var kind: Kind
  var start: Int
  var end: Int

  var range: SyntaxRange { SyntaxRange(start, end) }

  enum Kind: Equatable {
    case end
    /// Text the lexer could not make a token of; the parser reports it.
    case invalid(LexicalProblem)
    /// A plain identifier that is not a reserved word.
    case identifier
    /// `#name`: a reserved word (or any identifier) used as a key.
    case escapedIdentifier
    /// `@name`: a collection operator in a key path.
    case collectionOperator
    /// `$name`: a substitution variable.
    case variable
    /// `%@`, `%K`, `%d`...: a format argument.
    case formatSpecifier
    case keyword(Keyword)
    /// A string literal without escapes: its content is its value.
    case string
    /// A string literal with at least one backslash escape.
    case escapedString
    case integer
    case real
    case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
    case comma, dot, colon, assign
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case and, or, not
    case plus, minus, star, slash, power
    case ampersand, pipe, caret, shiftLeft, shiftRight
  }

  /// Why the lexer produced an `.invalid` token. Trivial (no strings), so
  /// that tokens copy and compare without reference counting.
  enum LexicalProblem: Equatable {
    case unexpectedCharacter
    case questionMark
    case comment
    case unterminatedString
    case malformedNumber(NumberProblem)
    /// A `$`, `#` or `@` (the byte) with no name after it.
    case bareSigil(UInt8)
    case malformedVariable
    case malformedFormatSpecifier
  }

  enum NumberProblem: Equatable {
    case noDigitsAfterPrefix
    case digitOutOfBase(radix: UInt8)
    case noExponentDigits
    case runsIntoLetters

    var reason: String {
      switch self {
      case .noDigitsAfterPrefix: "has no digits after its base prefix"
      case .digitOutOfBase(let radix): "has a digit that is not valid in base \(radix)"
      case .noExponentDigits: "has no digits in its exponent"
      case .runsIntoLetters: "runs into letters"
      }
    }
  }
}
