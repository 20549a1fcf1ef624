import PredicateDSL
import Testing

/// Inputs on which a naive algorithm takes time in proportion to the
/// product of two lengths: each of these runs for minutes that way, and in
/// milliseconds with the linear algorithms. Nothing here is timed; a
/// regression shows as a suite that hangs.
@Suite("Linear-time string and collection operators")
struct LinearTimeTests {
  private func evaluate(_ format: String, _ arguments: [FilterValue] = [], on record: FilterValue) throws -> Bool {
    try CompiledFilter(format, arguments: arguments, resolver: RecordKeyResolver()).evaluate(record)
  }

  /// 2 MB of `a`, and a 100 KB needle of `a`s that ends differently: every
  /// position of the subject starts a near-match.
  static let subject = String(repeating: "a", count: 2_000_000)
  static let needle = String(repeating: "a", count: 100_000) + "b"

  @Test(arguments: ["CONTAINS", "CONTAINS[c]", "CONTAINS[d]", "CONTAINS[cd]"])
  func longNeedleInNearMatches(operation: String) throws {
    let absent = try evaluate("s \(operation) %@", [.string(Self.needle)], on: ["s": .string(Self.subject)])
    #expect(absent == false)
    let present = try evaluate(
      "s \(operation) %@", [.string(Self.needle)], on: ["s": .string(Self.subject + "b")])
    #expect(present == true)
  }

  @Test func caseFoldedNeedleInUpperCaseText() throws {
    let subject = String(repeating: "A", count: 2_000_000) + "B"
    #expect(try evaluate("s CONTAINS[c] %@", [.string(Self.needle)], on: ["s": .string(subject)]))
    #expect(try evaluate("s CONTAINS %@", [.string(Self.needle)], on: ["s": .string(subject)]) == false)
    // Non-ASCII text takes the folding path, then the same search.
    let accented = String(repeating: "É", count: 500_000) + "Éb"
    let foldedNeedle = String(repeating: "e", count: 50_000) + "b"
    #expect(try evaluate("s CONTAINS[cd] %@", [.string(foldedNeedle)], on: ["s": .string(accented)]))
    #expect(try evaluate("s CONTAINS[c] %@", [.string(foldedNeedle)], on: ["s": .string(accented)]) == false)
  }

  @Test func likeWithSingleWildcardsInNearMatches() throws {
    // The backtracking matcher retries the segment at each of 300,000
    // places, 1,000 steps each: 3·10⁸ steps.
    let subject = String(repeating: "a", count: 300_000)
    let segment = String(repeating: "a", count: 1_000)
    #expect(try evaluate("s LIKE %@", [.string("*" + segment + "?b*")], on: ["s": .string(subject)]) == false)
    #expect(try evaluate("s LIKE %@", [.string("*" + segment + "?b*")], on: ["s": .string(subject + "xb")]))
    #expect(try evaluate("s LIKE %@", [.string("*" + segment + "?b")], on: ["s": .string(subject + "éb")]))
    #expect(try evaluate("s LIKE[c] %@", [.string("*" + segment + "?B*a")], on: ["s": .string(subject + "xbA")]))
    // Without `?`, a long literal segment between stars.
    #expect(try evaluate("s LIKE %@", [.string("*" + segment + "b*")], on: ["s": .string(subject)]) == false)
  }

  @Test func anyInAComputedCollection() throws {
    let count = 200_000
    let left = FilterValue.array((0..<count).map { .int(Int64($0 * 2 + 1)) })
    let right = FilterValue.array((0..<count).map { .int(Int64($0 * 2)) })
    #expect(try evaluate("ANY a IN b", on: ["a": left, "b": right]) == false)
    #expect(try evaluate("NONE a IN b", on: ["a": left, "b": right]))
    #expect(try evaluate("ALL a IN b", on: ["a": right, "b": right]))
    let withMatch = FilterValue.array((0..<count).map { .int(Int64($0 * 2 + 1)) } + [.double(0)])
    #expect(try evaluate("ANY a IN b", on: ["a": withMatch, "b": right]))
    let words = FilterValue.array((0..<count).map { .string("W\($0)") })
    let lower = FilterValue.array((0..<count).map { .string("w\($0)") } + [nil])
    #expect(try evaluate("ALL a IN[c] b", on: ["a": words, "b": lower]))
    #expect(try evaluate("ANY a IN b", on: ["a": lower, "b": words]) == false)
  }
}
