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

  /// Looks up the identifier in `bytes[start..<end]`, ignoring ASCII case.
  /// A switch on length and first letter, then a byte comparison: no
  /// allocation and no reference counting on the lexer's hottest path.
  @inline(__always)
  static func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
    let length = end - start
    guard length >= 2, length <= 15 else { return nil }
    func matches(_ spelling: StaticString) -> Bool {
      let expected = spelling.utf8Start
      for offset in 1..<length where bytes[start + offset] & 0xDF != expected[offset] {
        return false
      }
      return true
    }
    switch (length, bytes[start] & 0xDF) {
    case (2, UInt8(ascii: "C")):
      if matches("CI") { return Keyword.ci }
    case (2, UInt8(ascii: "I")):
      if matches("IN") { return Keyword.`in` }
    case (2, UInt8(ascii: "N")):
      if matches("NO") { return Keyword.`false` }
    case (2, UInt8(ascii: "O")):
      if matches("OR") { return Keyword.or }
    case (3, UInt8(ascii: "A")):
      if matches("AND") { return Keyword.and }
      if matches("ALL") { return Keyword.all }
      if matches("ANY") { return Keyword.any }
    case (3, UInt8(ascii: "N")):
      if matches("NOT") { return Keyword.not }
      if matches("NIL") { return Keyword.null }
    case (3, UInt8(ascii: "Y")):
      if matches("YES") { return Keyword.`true` }
    case (4, UInt8(ascii: "C")):
      if matches("CAST") { return Keyword.cast }
    case (4, UInt8(ascii: "L")):
      if matches("LIKE") { return Keyword.like }
      if matches("LAST") { return Keyword.last }
    case (4, UInt8(ascii: "N")):
      if matches("NONE") { return Keyword.none }
      if matches("NULL") { return Keyword.null }
    case (4, UInt8(ascii: "S")):
      if matches("SOME") { return Keyword.some }
      if matches("SELF") { return Keyword.`self` }
      if matches("SIZE") { return Keyword.size }
    case (4, UInt8(ascii: "T")):
      if matches("TRUE") { return Keyword.`true` }
    case (5, UInt8(ascii: "F")):
      if matches("FALSE") { return Keyword.`false` }
      if matches("FIRST") { return Keyword.first }
    case (6, UInt8(ascii: "A")):
      if matches("ANYKEY") { return Keyword.anyKey }
    case (7, UInt8(ascii: "B")):
      if matches("BETWEEN") { return Keyword.between }
    case (7, UInt8(ascii: "M")):
      if matches("MATCHES") { return Keyword.matches }
    case (8, UInt8(ascii: "C")):
      if matches("CONTAINS") { return Keyword.contains }
    case (8, UInt8(ascii: "E")):
      if matches("ENDSWITH") { return Keyword.endsWith }
    case (8, UInt8(ascii: "S")):
      if matches("SUBQUERY") { return Keyword.subquery }
    case (10, UInt8(ascii: "B")):
      if matches("BEGINSWITH") { return Keyword.beginsWith }
    case (13, UInt8(ascii: "T")):
      if matches("TRUEPREDICATE") { return Keyword.truePredicate }
    case (14, UInt8(ascii: "F")):
      if matches("FALSEPREDICATE") { return Keyword.falsePredicate }
    case (15, UInt8(ascii: "C")):
      if matches("CASEINSENSITIVE") { return Keyword.caseInsensitive }
    default: break
    }
    return nil
  }
}
