import PredicateDSL
import TestSupport
import Testing

/// A deterministic mutation fuzzer inside `swift test`: tens of thousands of
/// inputs derived from the valid corpus. No input may crash or hang the
/// parser; every error must point inside its input and render; every input
/// that parses must round-trip through its printout.
@Suite("Mutation fuzzing")
struct MutationFuzzTests {
  static let fragments: [String] = [
    "(", ")", "[", "]", "{", "}", ",", ".", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>",
    "&&", "||", "!", "+", "-", "*", "/", "**", "&", "|", "^", "<<", ">>", ":", ":=", "'", "\"", "\\",
    "%@", "%K", "%d", "%", "$", "$x", "@", "@count", "#", "#size", "?", " ", "\n", "\t", "AND", "OR",
    "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "LIKE", "BETWEEN", "CONTAINS", "BEGINSWITH", "MATCHES",
    "[c]", "[cd]", "SELF", "nil", "TRUE", "FIRST", "LAST", "SIZE", "SUBQUERY(", "CAST(", "TERNARY(",
    "0x", "0b1", "1e", "9223372036854775808", "-", "1.5", "é", "🏳️‍🌈", "\u{301}", "\u{0}", "sum(",
    "modulus:by:(", "TRUEPREDICATE",
  ]

  @Test func mutatedInputsNeverBreakTheParser() throws {
    let seed = SeededGenerator.seed(default: 0xF022_0001)
    var generator = SeededGenerator(seed: seed)
    let corpus = PredicateCorpus.canonical.map { Array($0.input.utf8) }
    let arguments: [[FilterValue]] = [[], ["name"], ["a.b", 42], [1.5, ["x", "y"], "k"]]
    var parsed = 0
    var rejected = 0
    for iteration in 0..<40_000 {
      var bytes = generator.pick(corpus)
      for _ in 0..<(generator.chance(0.6) ? 1 : Int.random(in: 2...4, using: &generator)) {
        mutate(&bytes, using: &generator)
      }
      let text = String(decoding: bytes, as: UTF8.self)
      // Arguments only where the text may use them; else most inputs would
      // fail on the argument count alone.
      let chosen = text.contains("%") ? generator.pick(arguments) : []
      do {
        let syntax = try PredicateParser.parse(text, arguments: chosen)
        parsed += 1
        let printed = syntax.description
        // An AND inside an OR gains parentheses in the printout; near the
        // depth limit that text needs a larger limit (see LimitsTests).
        let again =
          (try? PredicateParser.parse(printed))
          ?? (try? PredicateParser.parse(
            printed, limits: PredicateLimits(maximumDepth: 2 * PredicateParser.defaultMaximumDepth)))
        guard let again, again == syntax, again.description == printed else {
          Issue.record(
            "seed \(seed), iteration \(iteration): \(text.debugDescription) printed as \(printed.debugDescription) does not round-trip"
          )
          return
        }
      } catch {
        rejected += 1
        let count = text.utf8.count
        guard (0...count).contains(error.location.utf8Offset), error.location.line >= 1,
          error.location.column >= 1, error.length >= 1, !error.message.isEmpty
        else {
          Issue.record(
            "seed \(seed), iteration \(iteration): bad error position for \(text.debugDescription): \(error)")
          return
        }
        _ = error.detailedDescription()
      }
    }
    // Both outcomes must be well represented, or the fuzzer tests little.
    #expect(parsed > 2_000)
    #expect(rejected > 10_000)
  }

  func mutate(_ bytes: inout [UInt8], using generator: inout SeededGenerator) {
    let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &generator)
    switch Int.random(in: 0..<6, using: &generator) {
    case 0:  // insert a fragment of the language
      bytes.insert(contentsOf: Array(generator.pick(Self.fragments).utf8), at: position)
    case 1:  // delete a run
      guard !bytes.isEmpty else { return }
      let start = Swift.min(position, bytes.count - 1)
      let end = Swift.min(bytes.count, start + Int.random(in: 1...6, using: &generator))
      bytes.removeSubrange(start..<end)
    case 2:  // replace one byte with a random one
      guard !bytes.isEmpty else { return }
      bytes[Swift.min(position, bytes.count - 1)] = UInt8.random(in: 0...255, using: &generator)
    case 3:  // duplicate a run
      guard !bytes.isEmpty else { return }
      let start = Swift.min(position, bytes.count - 1)
      let end = Swift.min(bytes.count, start + Int.random(in: 1...12, using: &generator))
      bytes.insert(contentsOf: bytes[start..<end], at: start)
    case 4:  // splice in part of another corpus entry
      let other = Array(generator.pick(PredicateCorpus.canonical).input.utf8)
      guard !other.isEmpty else { return }
      let start = Int.random(in: 0..<other.count, using: &generator)
      bytes.insert(contentsOf: other[start...], at: position)
    default:  // truncate
      bytes.removeSubrange(position...)
    }
  }
}
