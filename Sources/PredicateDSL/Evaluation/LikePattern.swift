internal import Foundation

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
