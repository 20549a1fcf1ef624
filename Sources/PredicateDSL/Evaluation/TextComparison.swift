internal import Foundation

/// String comparison with predicate semantics.
///
/// Without options strings compare *literally*, by code units, as
/// `-[NSString isEqual:]` does: a precomposed `é` and `e` followed by a
/// combining accent are different strings. Ordering is by Unicode scalar
/// value (`"B" < "a"`, `"10" < "9"`). `[c]` and `[d]` fold both sides first
/// (see ``StringFolding``).
@usableFromInline
enum TextComparison {
  /// Calls `body` with the string's UTF-8 code units, without copying a
  /// native string.
  @inline(__always)
  static func withUTF8<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    if let result = try string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return try copy.withUTF8(body)
  }

  /// Equality of code units.
  static func literalEqual(_ lhs: String, _ rhs: String) -> Bool {
    withUTF8(lhs) { a in
      withUTF8(rhs) { b in
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
      }
    }
  }

  /// The sign of the comparison by Unicode scalar values, which UTF-8
  /// byte order preserves.
  static func literalOrder(_ lhs: String, _ rhs: String) -> Int {
    withUTF8(lhs) { a in
      withUTF8(rhs) { b in
        let common = Swift.min(a.count, b.count)
        if common > 0 {
          let result = memcmp(a.baseAddress!, b.baseAddress!, common)
          if result != 0 { return result < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
      }
    }
  }

  static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var union: UInt8 = 0
    for byte in bytes { union |= byte }
    return union < 0x80
  }

  @inline(__always)
  static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
  }

  /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and equality on two strings already
  /// folded alike. An empty needle is never a prefix, suffix or substring,
  /// as `-hasPrefix:@""` is false.
  static func test(_ operation: SubstringOperation, _ subject: String, _ needle: String) -> Bool {
    withUTF8(subject) { s in withUTF8(needle) { n in test(operation, s, n, lowercasing: false) } }
  }

  /// The byte-level substring tests. With `lowercasing`, subject bytes are
  /// lowercased as they are read (the caller has checked they are ASCII).
  static func test(
    _ operation: SubstringOperation, _ subject: UnsafeBufferPointer<UInt8>,
    _ needle: UnsafeBufferPointer<UInt8>, lowercasing: Bool
  ) -> Bool {
    let n = needle.count
    let count = subject.count
    if operation == .equal, n == 0 { return count == 0 }
    guard n > 0, n <= count else { return false }
    @inline(__always) func matches(at start: Int) -> Bool {
      if lowercasing {
        for index in 0..<n where lowercasedASCII(subject[start + index]) != needle[index] { return false }
        return true
      }
      // A short needle is compared in place: cheaper than calling memcmp.
      if n <= 16 {
        for index in 0..<n where subject[start + index] != needle[index] { return false }
        return true
      }
      return memcmp(subject.baseAddress! + start, needle.baseAddress!, n) == 0
    }
    switch operation {
    case .equal: return n == count && matches(at: 0)
    case .prefix: return matches(at: 0)
    case .suffix: return matches(at: count - n)
    case .contains:
      let first = needle[0]
      var start = 0
      // A naive scan, cheap for the usual needle whose first byte is rare.
      // Each candidate can cost a whole needle length: past a few of them a
      // long needle switches to a linear search, so a needle of 100 KB in
      // 2 MB of near-matches takes milliseconds, not minutes.
      var candidates = 0
      while start <= count - n {
        let byte = lowercasing ? lowercasedASCII(subject[start]) : subject[start]
        if byte == first {
          if matches(at: start) { return true }
          candidates += 1
          if candidates > 16, n > 16 {
            let found =
              lowercasing
              ? SubstringSearch.firstOccurrence(of: needle, in: subject, from: start + 1, transform: lowercasedASCII)
              : SubstringSearch.firstOccurrence(of: needle, in: subject, from: start + 1)
            return found != nil
          }
        }
        start += 1
      }
      return false
    }
  }

  enum SubstringOperation: Sendable {
    case equal, prefix, suffix, contains
  }
}
