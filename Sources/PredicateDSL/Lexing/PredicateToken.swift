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
    case string
    case integer
    case real
    case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
    case comma, dot, colon, assign
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case and, or, not
    case plus, minus, star, slash, power
    case ampersand, pipe, caret, shiftLeft, shiftRight
  }

  /// Why the lexer produced an `.invalid` token.
  enum LexicalProblem: Equatable {
    case unexpectedCharacter
    case questionMark
    case comment
    case unterminatedString
    case malformedNumber(String)
    case bareSigil(Character)
    case malformedVariable
    case malformedFormatSpecifier
  }
}

/// The reserved words of the predicate language. Matching is
/// case-insensitive and only ever of a whole identifier.
enum Keyword: CaseIterable, Equatable {
  case and, or, not, `in`, all, any, some, none
  case like, matches, contains, beginsWith, endsWith, between
  case caseInsensitive, ci
  case null, `self`, `true`, `false`
  case first, last, size, anyKey
  case subquery, cast
  case truePredicate, falsePredicate
  case utiConformsTo, utiEquals

  /// The spellings that lex as this keyword, in upper case.
  var spellings: [String] {
    switch self {
    case .and: ["AND"]
    case .or: ["OR"]
    case .not: ["NOT"]
    case .in: ["IN"]
    case .all: ["ALL"]
    case .any: ["ANY"]
    case .some: ["SOME"]
    case .none: ["NONE"]
    case .like: ["LIKE"]
    case .matches: ["MATCHES"]
    case .contains: ["CONTAINS"]
    case .beginsWith: ["BEGINSWITH"]
    case .endsWith: ["ENDSWITH"]
    case .between: ["BETWEEN"]
    case .caseInsensitive: ["CASEINSENSITIVE"]
    case .ci: ["CI"]
    case .null: ["NULL", "NIL"]
    case .self: ["SELF"]
    case .true: ["TRUE", "YES"]
    case .false: ["FALSE", "NO"]
    case .first: ["FIRST"]
    case .last: ["LAST"]
    case .size: ["SIZE"]
    case .anyKey: ["ANYKEY"]
    case .subquery: ["SUBQUERY"]
    case .cast: ["CAST"]
    case .truePredicate: ["TRUEPREDICATE"]
    case .falsePredicate: ["FALSEPREDICATE"]
    case .utiConformsTo: ["UTI-CONFORMS-TO"]
    case .utiEquals: ["UTI-EQUALS"]
    }
  }

  /// The canonical spelling.
  var text: String { spellings[0] }

  /// Every reserved word, upper case, for did-you-mean suggestions and for
  /// deciding when a printed key needs a `#`.
  static let allSpellings: Set<String> = Set(allCases.flatMap(\.spellings))

  /// Keyword spellings grouped by length, as ASCII bytes, for the lexer.
  static let byLength: [[(bytes: [UInt8], keyword: Keyword)]] = {
    var table = [[(bytes: [UInt8], keyword: Keyword)]](repeating: [], count: 16)
    for keyword in allCases where keyword != .utiConformsTo && keyword != .utiEquals {
      for spelling in keyword.spellings {
        table[spelling.utf8.count].append((Array(spelling.utf8), keyword))
      }
    }
    return table
  }()

  /// Looks up the identifier in `bytes[start..<end]`, ignoring ASCII case.
  static func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
    let length = end - start
    guard length >= 2, length < byLength.count else { return nil }
    candidates: for (spelling, keyword) in byLength[length] {
      for offset in 0..<length where bytes[start + offset] & 0xDF != spelling[offset] {
        continue candidates
      }
      return keyword
    }
    return nil
  }
}
