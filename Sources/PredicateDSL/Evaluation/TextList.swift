internal import Foundation

/// A short list of strings that a string is looked up in by code units: the
/// fast path of `IN` a constant list of strings without options.
@usableFromInline
struct TextList: Sendable {
  /// The candidates' UTF-8, an array each, made when compiling: a lookup
  /// then reads only the subject's bytes through a closure.
  private let candidates: [[UInt8]]

  init(_ strings: [String]) { candidates = strings.map { Array($0.utf8) } }

  /// Whether `subject` is one of the strings, code unit for code unit.
  @usableFromInline
  func contains(_ subject: String) -> Bool {
    TextComparison.withUTF8(subject) { s in
      for candidate in candidates where candidate.count == s.count {
        let equal = candidate.withUnsafeBufferPointer { c in
          TextComparison.test(.equal, s, c, lowercasing: false)
        }
        if equal { return true }
      }
      return false
    }
  }
}
