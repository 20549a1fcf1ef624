extension Parser {
  func error(
    _ code: PredicateParseError.Code, _ message: String, at range: SyntaxRange,
    expected: [String] = [], found: String? = nil, suggestion: String? = nil
  ) -> PredicateParseError {
    PredicateParseError(
      code, message, in: source, at: range, expected: expected, found: found,
      suggestion: suggestion)
  }

  /// The error for the current token where the grammar wanted one of
  /// `expected`. An `.invalid` token reports its own lexical problem; a word
  /// close to one of `suggesting` gets a did-you-mean.
  func unexpected(_ expected: [String], suggesting candidates: [String] = []) -> PredicateParseError {
    if case .invalid(let problem) = token.kind { return lexicalError(problem) }
    let found = describe(token)
    var suggestion: String?
    if token.kind == .identifier,
      let guess = Self.closest(to: lexer.text(token.start, token.end), among: candidates)
    {
      suggestion = "did you mean '\(guess)'?"
    }
    return error(
      .unexpectedToken, "expected \(Self.list(expected)), found \(found)", at: token.range,
      expected: expected, found: found, suggestion: suggestion)
  }

  /// A keyword where a key belongs: `size == 3` instead of `#size == 3`.
  func reservedWordAsKey() -> PredicateParseError {
    let word = lexer.text(token.start, token.end)
    return error(
      .reservedWord, "'\(word)' is a reserved word", at: token.range,
      expected: ["expression"], found: describe(token),
      suggestion: "write '#\(word)' to use it as a key")
  }

  func lexicalError(_ problem: PredicateToken.LexicalProblem) -> PredicateParseError {
    let text = lexer.text(token.start, token.end)
    switch problem {
    case .unexpectedCharacter:
      let scalars = text.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }
      let isASCII = text.utf8.allSatisfy { $0 < 0x80 }
      return error(
        .invalidCharacter,
        "unexpected character '\(text)' (\(scalars.joined(separator: " ")))", at: token.range,
        suggestion: isASCII ? nil : "keys are ASCII letters, digits and '_'; quote text as in 'café'")
    case .questionMark:
      return error(
        .invalidCharacter, "unexpected character '?'", at: token.range,
        suggestion: "'?' is a wildcard only inside a quoted LIKE pattern")
    case .comment:
      return error(.comment, "predicates have no comments", at: token.range)
    case .unterminatedString:
      return error(
        .unterminatedString, "unterminated string literal",
        at: SyntaxRange(token.start, token.start + 1),
        suggestion: "close it with \(text.prefix(1))")
    case .malformedNumber(let problem):
      return error(.invalidNumber, "number '\(text)' \(problem.reason)", at: token.range)
    case .bareSigil(let sigil):
      let what =
        switch sigil {
        case UInt8(ascii: "$"): "a variable name, as in $name"
        case UInt8(ascii: "#"): "a key, as in #size"
        default: "a collection operator, as in @count"
        }
      return error(
        .invalidSigil, "'\(Character(Unicode.Scalar(sigil)))' must be followed by \(what)",
        at: token.range)
    case .malformedVariable:
      return error(
        .invalidSigil, "variable '\(text)' must start with a letter or '_'", at: token.range)
    case .malformedFormatSpecifier:
      return error(
        .invalidSigil,
        "unknown format specifier '\(text)'; use %@, %K, %d, %f, %s or another printf conversion",
        at: token.range)
    }
  }

  /// How an error names a token: `identifier 'agee'`, `'=='`, `end of input`.
  func describe(_ token: PredicateToken) -> String {
    var text = lexer.text(token.start, token.end)
    if text.count > 24 { text = String(text.prefix(23)) + "…" }
    switch token.kind {
    case .end: return "end of input"
    case .identifier: return "identifier '\(text)'"
    case .escapedIdentifier: return "key '\(text)'"
    case .collectionOperator: return "collection operator '\(text)'"
    case .variable: return "variable '\(text)'"
    case .formatSpecifier: return "format argument '\(text)'"
    case .keyword: return "'\(text.uppercased())'"
    case .string, .escapedString: return "string \(text)"
    case .integer, .real: return "number \(text)"
    case .invalid: return "'\(text)'"
    default: return "'\(text)'"
    }
  }

  /// `a`, `a or b`, `a, b or c`.
  static func list(_ items: [String]) -> String {
    switch items.count {
    case 0: "something else"
    case 1: items[0]
    default: items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }
  }

  /// The candidate closest to `word` by case-insensitive edit distance, if
  /// it is close enough to be a likely misspelling.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let folded = Array(word.uppercased().utf8.prefix(40))
    guard folded.count >= 2 else { return nil }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let target = Array(candidate.uppercased().utf8)
      guard target != folded else { continue }
      let distance = editDistance(folded, target)
      let limit = Swift.max(1, Swift.min(folded.count, target.count) / 3)
      if distance <= limit, distance < (best?.distance ?? .max) {
        best = (candidate, distance)
      }
    }
    return best?.candidate
  }

  /// Levenshtein distance with adjacent transpositions counted as one edit.
  static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          value = Swift.min(value, previousPrevious[j - 2] + 1)
        }
        current[j] = value
      }
      (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
  }
}
