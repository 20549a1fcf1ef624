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

/// A compiled `LIKE` pattern: `*` matches any run of characters, `?` exactly
/// one (one Unicode scalar), a backslash makes the next character literal,
/// and everything else matches itself. The match is anchored at both ends.
@usableFromInline
struct LikePattern: Sendable {
  /// A pattern byte, or one of the two wildcards.
  private enum Element: Equatable, Sendable {
    case byte(UInt8)
    case anyOne
    case anyRun
  }

  private enum Shortcut: Sendable {
    case none
    case text(ConstantTextTest)
  }

  private let elements: [Element]
  private let folding: StringFolding?
  private let shortcut: Shortcut
  /// The pattern by scalars, for subjects on which the backtracking
  /// matcher would take more than linear time.
  private let segments: LikeSegments

  init(_ pattern: String, folding: StringFolding?) {
    self.folding = folding
    let folded = folding?.fold(pattern) ?? pattern
    var elements: [Element] = []
    var units: [LikeSegments.Unit?] = []
    var literal = ""
    var escaped = false
    for scalar in folded.unicodeScalars {
      if escaped {
        elements += String(scalar).utf8.map(Element.byte)
        units.append(.scalar(scalar.value))
        literal.unicodeScalars.append(scalar)
        escaped = false
        continue
      }
      switch scalar {
      case "\\": escaped = true
      case "*":
        elements.append(.anyRun)
        units.append(nil)
      case "?":
        elements.append(.anyOne)
        units.append(.anyOne)
      default:
        elements += String(scalar).utf8.map(Element.byte)
        units.append(.scalar(scalar.value))
        literal.unicodeScalars.append(scalar)
      }
    }
    if escaped {
      elements.append(.byte(UInt8(ascii: "\\")))
      units.append(.scalar(UInt32(UInt8(ascii: "\\"))))
      literal += "\\"
    }
    self.elements = elements
    segments = LikeSegments(units)
    // The common shapes need no matcher: `abc`, `abc*`, `*abc`, `*abc*`.
    let inner = elements.drop(while: { $0 == .anyRun }).reversed().drop(while: { $0 == .anyRun })
    let leadingRun = elements.first == .anyRun
    let trailingRun = elements.last == .anyRun && elements.count > 1
    if !inner.isEmpty, inner.allSatisfy({ if case .byte = $0 { true } else { false } }) {
      let operation: TextComparison.SubstringOperation =
        switch (leadingRun, trailingRun) {
        case (false, false): .equal
        case (false, true): .prefix
        case (true, false): .suffix
        case (true, true): .contains
        }
      // The literal is already folded; folding it again changes nothing.
      shortcut = .text(ConstantTextTest(operation, needle: literal, folding: folding))
    } else {
      shortcut = .none
    }
  }

  @usableFromInline
  func matches(_ subject: String) -> Bool {
    if case .text(let test) = shortcut { return test.matches(subject) }
    guard let folding else {
      return TextComparison.withUTF8(subject) { match($0, lowercasing: false) }
    }
    let fast: Bool? = TextComparison.withUTF8(subject) { bytes in
      guard TextComparison.isASCII(bytes) else { return nil }
      return match(bytes, lowercasing: folding.caseInsensitive)
    }
    if let fast { return fast }
    return TextComparison.withUTF8(folding.fold(subject)) { match($0, lowercasing: false) }
  }

  /// Wildcard matching that remembers the last `*` and retries from it,
  /// no recursion. Fast on usual text, but O(n·m) at worst: past a number
  /// of steps linear in the lengths it hands over to ``LikeSegments``.
  private func match(_ subject: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
    var steps = 0
    let stepLimit = subject.count + elements.count + 1_024
    @inline(__always) func scalarEnd(after start: Int) -> Int {
      var end = start + 1
      while end < subject.count, subject[end] & 0xC0 == 0x80 { end += 1 }
      return end
    }
    var p = 0
    var s = 0
    var starPattern = -1
    var starSubject = 0
    while s < subject.count {
      if p < elements.count {
        switch elements[p] {
        case .anyRun:
          starPattern = p
          starSubject = s
          p += 1
          continue
        case .anyOne:
          s = scalarEnd(after: s)
          p += 1
          continue
        case .byte(let byte):
          let actual = lowercasing ? TextComparison.lowercasedASCII(subject[s]) : subject[s]
          if actual == byte {
            s += 1
            p += 1
            continue
          }
        }
      }
      guard starPattern >= 0 else { return false }
      steps += p - starPattern
      if steps > stepLimit { return matchBySegments(subject, lowercasing: lowercasing) }
      p = starPattern + 1
      starSubject = scalarEnd(after: starSubject)
      s = starSubject
    }
    while p < elements.count, elements[p] == .anyRun { p += 1 }
    return p == elements.count
  }

  /// The match by segments, on the subject's scalars (ASCII lowercased
  /// when asked).
  private func matchBySegments(_ subject: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
    var scalars: [UInt32] = []
    scalars.reserveCapacity(subject.count)
    for scalar in String(decoding: subject, as: UTF8.self).unicodeScalars {
      let value = scalar.value
      scalars.append(lowercasing && value < 0x80 ? UInt32(TextComparison.lowercasedASCII(UInt8(value))) : value)
    }
    return scalars.withUnsafeBufferPointer { segments.matches($0) }
  }
}
