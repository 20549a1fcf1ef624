import PredicateDSL
import TestSupport
import Testing

@Suite("Round trip")
struct RoundTripTests {
  /// Printing a random canonical tree and parsing the text gives the tree
  /// back, and printing that gives the same text.
  @Test func randomTreesRoundTrip() throws {
    let seed = SeededGenerator.seed(default: 0x5EED_0001)
    var random = RandomSyntax(seed: seed, maximumDepth: 5)
    for iteration in 0..<3_000 {
      let tree = random.predicate()
      let printed = tree.description
      let reparsed: PredicateSyntax
      do {
        reparsed = try PredicateParser.parse(printed)
      } catch {
        Issue.record(
          "seed \(seed), iteration \(iteration): printout does not parse:\n\(printed)\n\(error.detailedDescription())")
        return
      }
      guard reparsed == tree, reparsed.description == printed else {
        Issue.record(
          "seed \(seed), iteration \(iteration): round trip changed the tree\nprinted:   \(printed)\nreprinted: \(reparsed.description)"
        )
        return
      }
    }
  }

  /// Substituting random values for variables keeps the printout parsable
  /// to the same tree.
  @Test func substitutedTreesRoundTrip() throws {
    let seed = SeededGenerator.seed(default: 0x5EED_0002)
    var random = RandomSyntax(seed: seed, maximumDepth: 4)
    for iteration in 0..<1_000 {
      let tree = random.predicate()
      var values: [String: FilterValue] = [:]
      for name in tree.variables { values[name] = random.constant(depth: 2) }
      let bound = tree.substituting(values)
      let printed = bound.description
      guard let reparsed = try? PredicateParser.parse(printed), reparsed == bound,
        reparsed.description == printed
      else {
        Issue.record("seed \(seed), iteration \(iteration): substituted tree does not round-trip:\n\(printed)")
        return
      }
    }
  }

  @Test func randomTreesAreVaried() {
    var random = RandomSyntax(seed: 7, maximumDepth: 5)
    let printed = (0..<500).map { _ in random.predicate().description }.joined(separator: "\n")
    for construct in [
      "SUBQUERY(", "TERNARY(", "CAST(", "ANY ", "ALL ", "NONE ", " BETWEEN ", "[FIRST]", "[SIZE]", "$",
      "@", "#", " ** ", " << ", "NOT ", " OR ", " AND ", "TRUEPREDICATE", "\"NSSet\")",
      "\"NSDictionary\")", "\"NSUUID\")", "\"NSData\")", "\"NSDate\")", "[cd",
    ] {
      #expect(printed.contains(construct), "no \(construct) in 500 random trees")
    }
  }
}
