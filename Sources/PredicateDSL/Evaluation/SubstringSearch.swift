/// Substring search in linear time, for needles long enough that a naive
/// scan could take time in proportion to the product of the lengths.
///
/// Knuth–Morris–Pratt over any buffer of code units: O(*n* + *m*) for a
/// haystack of *n* units and a needle of *m*, with a table of *m* integers.
/// Callers scan naively first and switch here once the scan has done more
/// work than a few needle lengths, so short needles never pay for the table.
enum SubstringSearch {
  /// The first position at or after `start` where `needle` occurs in
  /// `haystack`, each haystack unit passed through `transform` first (the
  /// needle is already transformed), or nil.
  ///
  /// - Complexity: O(*n* + *m*).
  static func firstOccurrence<Unit: Equatable>(
    of needle: UnsafeBufferPointer<Unit>, in haystack: UnsafeBufferPointer<Unit>, from start: Int = 0,
    transform: (Unit) -> Unit = { $0 }
  ) -> Int? {
    let m = needle.count
    guard m > 0 else { return start <= haystack.count ? start : nil }
    guard haystack.count - start >= m else { return nil }
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: m) { failure -> Int? in
      // failure[i]: the length of the longest proper border of needle[0...i].
      failure[0] = 0
      var border = 0
      for index in 1..<m {
        while border > 0, needle[index] != needle[border] { border = failure[border - 1] }
        if needle[index] == needle[border] { border += 1 }
        failure[index] = border
      }
      var matched = 0
      for index in start..<haystack.count {
        let unit = transform(haystack[index])
        while matched > 0, unit != needle[matched] { matched = failure[matched - 1] }
        if unit == needle[matched] { matched += 1 }
        if matched == m { return index - m + 1 }
      }
      return nil
    }
  }
}
