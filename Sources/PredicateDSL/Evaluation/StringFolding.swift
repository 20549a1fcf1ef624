internal import Foundation

/// The folding that `[c]` and `[d]` ask for, applied alike to both sides of a
/// comparison.
///
/// `[c]` folds case with Unicode case folding (`ß` and `SS`, `Σ` and `ς`
/// compare equal); `[d]` removes diacritics, so `é`, `e` and `e` followed by a
/// combining acute accent compare equal. Folded text is in canonical
/// composed form, so canonically equivalent strings compare equal under any
/// option. `[n]` promises already-normalized text and turns folding off; `[l]`
/// changes nothing (see docs/evaluation.md).
package struct StringFolding: Hashable, Sendable {
  /// `[c]`: fold case.
  package var caseInsensitive: Bool
  /// `[d]`: remove diacritics.
  package var diacriticInsensitive: Bool

  /// The folding for the options, or nil when strings compare literally.
  package init?(_ options: ComparisonSyntax.Options) {
    guard !options.contains(.normalized) else { return nil }
    caseInsensitive = options.contains(.caseInsensitive)
    diacriticInsensitive = options.contains(.diacriticInsensitive)
    guard caseInsensitive || diacriticInsensitive else { return nil }
  }

  /// Folds a string. ASCII text takes a fast path that never calls
  /// Foundation.
  package func fold(_ string: String) -> String {
    let asciiFolded: String? = TextComparison.withUTF8(string) { bytes in
      guard TextComparison.isASCII(bytes) else { return nil }
      guard caseInsensitive else { return string }
      // Already lower case (a typical `[c]` needle): the string itself,
      // without making a new one.
      guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return string }
      return String(unsafeUninitializedCapacity: bytes.count) { buffer in
        for index in bytes.indices { buffer[index] = TextComparison.lowercasedASCII(bytes[index]) }
        return bytes.count
      }
    }
    if let asciiFolded { return asciiFolded }
    var options: String.CompareOptions = []
    if caseInsensitive { options.insert(.caseInsensitive) }
    if diacriticInsensitive { options.insert(.diacriticInsensitive) }
    return string.folding(options: options, locale: nil).precomposedStringWithCanonicalMapping
  }
}
