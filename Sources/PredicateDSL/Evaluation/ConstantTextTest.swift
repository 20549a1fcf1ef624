internal import Foundation

/// A `BEGINSWITH`, `ENDSWITH`, `CONTAINS` or `==` test against a constant
/// needle, folded once when the predicate is compiled.
@usableFromInline
struct ConstantTextTest: Sendable {
  let operation: TextComparison.SubstringOperation
  let needle: String
  let folding: StringFolding?

  init(_ operation: TextComparison.SubstringOperation, needle: String, folding: StringFolding?) {
    self.operation = operation
    self.folding = folding
    self.needle = folding?.fold(needle) ?? needle
  }

  @usableFromInline
  func matches(_ subject: String) -> Bool {
    guard let folding else {
      return TextComparison.withUTF8(subject) { s in
        TextComparison.withUTF8(needle) { n in TextComparison.test(operation, s, n, lowercasing: false) }
      }
    }
    let fast: Bool? = TextComparison.withUTF8(subject) { s in
      guard TextComparison.isASCII(s) else { return nil }
      return TextComparison.withUTF8(needle) { n in
        TextComparison.test(operation, s, n, lowercasing: folding.caseInsensitive)
      }
    }
    if let fast { return fast }
    let folded = folding.fold(subject)
    if operation == .equal { return TextComparison.literalEqual(folded, needle) }
    return TextComparison.test(operation, folded, needle)
  }
}
