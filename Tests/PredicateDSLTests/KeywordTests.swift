import PredicateDSL
import Testing

@Suite("Keywords")
struct KeywordTests {
  static let reserved = [
    "AND", "OR", "NOT", "IN", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS",
    "BEGINSWITH", "ENDSWITH", "BETWEEN", "CASEINSENSITIVE", "CI", "NULL", "NIL", "SELF", "TRUE", "YES",
    "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "CAST", "TRUEPREDICATE",
    "FALSEPREDICATE",
  ]

  static func spellings(_ word: String) -> [String] {
    let mixed = String(word.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
    return [word, word.lowercased(), mixed]
  }

  /// A reserved word is never read as a key, in any letter case…
  @Test(arguments: reserved)
  func reservedWordsAreNotKeys(_ word: String) {
    for spelling in Self.spellings(word) {
      if let syntax = try? PredicateParser.parse("\(spelling) == 1"),
        case .comparison(let comparison) = syntax.kind
      {
        #expect(comparison.lhs.kind != .keyPath(spelling), "\(spelling) read as a key")
      }
    }
  }

  /// …but with `#` it is, and it prints with its `#`.
  @Test(arguments: reserved)
  func escapedReservedWordsAreKeys(_ word: String) throws {
    for spelling in Self.spellings(word) {
      let syntax = try PredicateParser.parse("#\(spelling) == 1")
      #expect(syntax.description == "#\(spelling) == 1")
    }
  }

  /// Words that only start like a keyword are keys.
  @Test(arguments: reserved)
  func longerWordsAreKeys(_ word: String) throws {
    for key in [word + "_", word + "1", word + "s", "x" + word] {
      let syntax = try PredicateParser.parse("\(key) == 1")
      #expect(syntax.description == "\(key) == 1")
    }
  }
}
