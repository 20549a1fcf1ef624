import PredicateDSL
import TestSupport
import Testing

@Suite("Canonical form")
struct CanonicalFormTests {
  @Test("parses and prints canonically", arguments: PredicateCorpus.canonical)
  func printsCanonically(input: String, canonical: String) throws {
    let syntax = try PredicateParser.parse(input)
    #expect(syntax.description == canonical, "input: \(input)")
  }

  @Test("the printout is a fixed point", arguments: PredicateCorpus.canonical)
  func printoutIsFixedPoint(input: String, canonical: String) throws {
    let syntax = try PredicateParser.parse(input)
    let reparsed = try PredicateParser.parse(syntax.description)
    #expect(reparsed == syntax)
    #expect(reparsed.description == syntax.description)
  }

  @Test func theCorpusIsLarge() {
    #expect(PredicateCorpus.canonical.count >= 250)
  }
}
