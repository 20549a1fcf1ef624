import Testing

@testable import PredicateDSL

/// The segment matcher and the backtracking one agree with a plain
/// dynamic-programming matcher on every pattern and subject of a short
/// alphabet.
@Suite("LIKE segments")
struct LikeSegmentTests {
  @Test func agreesWithTheBacktrackingMatcherExhaustively() throws {
    let patternAlphabet: [Character] = ["a", "b", "?", "*"]
    let subjectAlphabet: [Character] = ["a", "b"]
    func strings(_ alphabet: [Character], upTo length: Int) -> [String] {
      var all = [""]
      var layer = [""]
      for _ in 0..<length {
        layer = layer.flatMap { prefix in alphabet.map { prefix + String($0) } }
        all += layer
      }
      return all
    }
    let subjects = strings(subjectAlphabet, upTo: 5)
    for pattern in strings(patternAlphabet, upTo: 4) {
      let filter = try CompiledFilter("s LIKE %@", arguments: [.string(pattern)], resolver: RecordKeyResolver())
      let segments = LikeSegments(
        pattern.unicodeScalars.map { $0 == "*" ? nil : ($0 == "?" ? .anyOne : .scalar($0.value)) })
      for subject in subjects {
        let expected = Self.globMatches(Array(pattern), Array(subject))
        #expect(try filter.evaluate(["s": .string(subject)]) == expected, "\(pattern) on \(subject)")
        let scalars = subject.unicodeScalars.map(\.value)
        #expect(scalars.withUnsafeBufferPointer { segments.matches($0) } == expected, "\(pattern) on \(subject)")
      }
    }
  }

  /// Glob matching by dynamic programming over (pattern, subject) prefixes:
  /// slow and obviously right.
  static func globMatches(_ pattern: [Character], _ subject: [Character]) -> Bool {
    var row = [Bool](repeating: false, count: subject.count + 1)
    row[0] = true
    for unit in pattern {
      var next = [Bool](repeating: false, count: subject.count + 1)
      for index in 0...subject.count {
        switch unit {
        case "*": next[index] = row[index] || (index > 0 && next[index - 1])
        case "?": next[index] = index > 0 && row[index - 1]
        default: next[index] = index > 0 && row[index - 1] && subject[index - 1] == unit
        }
      }
      row = next
    }
    return row[subject.count]
  }
}

extension LikeSegmentTests {
  /// Segments longer than a word of the bit-parallel search.
  @Test func longSegmentsWithWildcards() throws {
    let segment = String(repeating: "ab?", count: 50)
    let units: [LikeSegments.Unit?] =
      [nil] + segment.unicodeScalars.map { $0 == "?" ? .anyOne : .scalar($0.value) } + [nil]
    let segments = LikeSegments(units)
    let hit = String(repeating: "b", count: 77) + String(repeating: "abé", count: 50) + "x"
    let miss = String(repeating: "abé", count: 49) + "aéé" + String(repeating: "abc", count: 3)
    for (subject, expected) in [(hit, true), (miss, false)] {
      let scalars = subject.unicodeScalars.map(\.value)
      #expect(scalars.withUnsafeBufferPointer { segments.matches($0) } == expected)
      #expect(Self.globMatches(Array("*" + segment + "*"), Array(subject)) == expected)
    }
  }
}
