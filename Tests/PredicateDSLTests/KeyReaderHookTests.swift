@testable import PredicateDSL
import Testing

/// Which read a compiled comparison runs: a key given as a `KeyReader` whose
/// closure has been swapped (below the public `read` setter, which would
/// drop the reader) for one that reads another value. Fused comparisons go
/// through the reader's hook; every other use of the key calls the closure.
@Suite("KeyReader hook")
struct KeyReaderHookTests {
  struct Forty: KeyReader {
    func read(_ object: FilterValue) -> FilterValue { .int(40) }
  }

  struct Resolver: KeyResolver {
    func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
      var key = ResolvedKey(consuming: 1, type: .attribute(.integer), reader: Forty())
      key.reader = { _ in .int(20) }
      return key
    }
  }

  @Test(arguments: [
    // Direct comparisons with a constant: built by the hook, reading 40.
    ("age > 30", true), ("30 < age", true), ("age == 40", true), ("age BETWEEN {35, 45}", true),
    // Anything else reads through the closure, 20.
    ("age + 0 > 30", false), ("age > age - 1 AND age == 40", true), ("age == 20 OR age > age - 1", true), ("ANY {age} > 30", false),
  ])
  func fusedComparisonsRunTheReaderOthersTheClosure(format: String, expected: Bool) throws {
    #expect(try CompiledFilter(format, resolver: Resolver()).evaluate(.null) == expected)
  }
}
