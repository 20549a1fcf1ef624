extension Parser {
  /// The collection operators a key path may use, as key-value coding names
  /// them. `isKnownCollectionOperator` spells them out again, by first letter.
  static let collectionOperators: [String] = [
    "count", "sum", "avg", "min", "max", "distinctUnionOfObjects", "unionOfObjects",
    "distinctUnionOfArrays", "unionOfArrays", "distinctUnionOfSets",
  ]

  /// Whether the `@name` token names one of `collectionOperators`,
  /// compared in place: no string is made, and the first letter picks the
  /// one or few names to compare with.
  func isKnownCollectionOperator(_ token: PredicateToken) -> Bool {
    let start = token.start + 1
    let length = token.end - start
    guard length >= 3 else { return false }
    func matches(_ name: StaticString) -> Bool {
      guard name.utf8CodeUnitCount == length else { return false }
      let expected = name.utf8Start
      for offset in 1..<length where lexer.bytes[start + offset] != expected[offset] { return false }
      return true
    }
    switch lexer.bytes[start] {
    case UInt8(ascii: "c"): return matches("count")
    case UInt8(ascii: "s"): return matches("sum")
    case UInt8(ascii: "a"): return matches("avg")
    case UInt8(ascii: "m"): return matches("min") || matches("max")
    case UInt8(ascii: "u"): return matches("unionOfObjects") || matches("unionOfArrays")
    case UInt8(ascii: "d"):
      return matches("distinctUnionOfObjects") || matches("distinctUnionOfArrays")
        || matches("distinctUnionOfSets")
    default: return false
    }
  }

  /// The `@name` of a `.collectionOperator` token, validated.
  func collectionOperator(_ token: PredicateToken) throws(PredicateParseError) -> String {
    let name = lexer.text(token.start + 1, token.end)
    guard Self.collectionOperators.contains(name) else {
      throw error(
        .unknownCollectionOperator, "unknown collection operator '@\(name)'", at: token.range,
        suggestion: Self.closest(to: name, among: Self.collectionOperators).map { "did you mean '@\($0)'?" })
    }
    return "@" + name
  }

  /// Consumes the current `%` specifier and its argument: `%K` gives a key
  /// path, every other specifier a constant.
  mutating func substituteArgument() throws(PredicateParseError) -> ExpressionSyntax {
    let specifier = token
    // Only messages quote the specifier: its text is built for them alone.
    let lexer = self.lexer
    func text() -> String { lexer.text(specifier.start, specifier.end) }
    let conversion = FormatConversion(byte: lexer.bytes[token.end - 1])!
    guard argumentIndex < arguments.count else {
      throw error(
        .missingArgument,
        "missing argument for '\(text())': the format needs argument \(argumentIndex + 1), but only \(Self.count(arguments.count, "argument")) \(arguments.count == 1 ? "was" : "were") given",
        at: specifier.range)
    }
    let position = argumentIndex + 1
    let argument = arguments[argumentIndex]
    argumentIndex += 1
    advance()
    func mismatch() -> PredicateParseError {
      error(
        .invalidArgument,
        "argument \(position) for '\(text())' must be \(conversion.expectation), not \(argument.typeName)",
        at: specifier.range)
    }
    if conversion == .keyPath {
      guard case .string(let path) = argument else { throw mismatch() }
      try validateKeyPath(path, at: specifier.range, position: position)
      return ExpressionSyntax(.keyPath(path), range: specifier.range)
    }
    guard let value = conversion.constant(from: argument) else { throw mismatch() }
    return ExpressionSyntax(.constant(value), range: specifier.range)
  }

  /// Checks that a `%K` argument is a dotted path of keys and collection
  /// operators, so that the printout can spell it.
  func validateKeyPath(
    _ path: String, at range: SyntaxRange, position: Int
  )
    throws(PredicateParseError)
  {
    func invalid(_ reason: String) -> PredicateParseError {
      error(
        .invalidKeyPath, "argument \(position) for '%K' is not a key path: \(reason)", at: range)
    }
    guard !path.isEmpty else { throw invalid("it is empty") }
    for component in path.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
      guard let first = component.first else { throw invalid("\"\(path)\" has an empty key") }
      if first == UInt8(ascii: "@") {
        let name = String(decoding: component.dropFirst(), as: UTF8.self)
        guard Self.collectionOperators.contains(name) else {
          throw invalid("unknown collection operator '@\(name)'")
        }
        continue
      }
      guard PredicateLexer.isIdentifierStart(first),
        component.allSatisfy(PredicateLexer.isIdentifierContinuation)
      else {
        throw invalid(
          "\"\(String(decoding: component, as: UTF8.self))\" is not a key (letters, digits and '_', not starting with a digit)"
        )
      }
    }
  }
}
