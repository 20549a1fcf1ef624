import PredicateDSL
import Synchronization
import Testing

/// The compiler hands every key compared with a constant the same component
/// array, replacing its contents from key to key: a resolver that keeps the
/// ``KeyPathReference`` it was given must still see the components of that
/// key, and a reader of part of a path must still apply the rest of it.
@Suite("Key path references")
struct KeyPathReferenceTests {
  /// Keeps every reference it resolves; reads the first component from a
  /// record and leaves the rest to the compiler.
  final class KeepingResolver: KeyResolver {
    let kept = Mutex<[KeyPathReference]>([])

    func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
      kept.withLock { $0.append(path) }
      let key = path.components[0]
      return ResolvedKey(consuming: 1) { $0.value(forKey: key) }
    }
  }

  @Test func keptReferencesKeepTheirComponents() throws {
    let resolver = KeepingResolver()
    let filter = try CompiledFilter(
      "a == 1 AND b == 2 AND c.d == 3 AND e == 4 AND (f == 5 OR NOT g.h.i == 6) AND j == 7", resolver: resolver)
    let kept = resolver.kept.withLock { $0.map(\.components) }
    #expect(kept == [["a"], ["b"], ["c", "d"], ["e"], ["f"], ["g", "h", "i"], ["j"]])
    let record: FilterValue = [
      "a": 1, "b": 2, "c": ["d": 3], "e": 4, "f": 0, "g": ["h": ["i": 7]], "j": 7,
    ]
    #expect(try filter.evaluate(record))
    // One key at a time, so that each comparison, and each component of a
    // path read in part by the resolver, is shown to count.
    let failing: [(String, FilterValue)] = [
      ("a", ["a": 0, "b": 2, "c": ["d": 3], "e": 4, "f": 0, "g": ["h": ["i": 7]], "j": 7]),
      ("b", ["a": 1, "b": 0, "c": ["d": 3], "e": 4, "f": 0, "g": ["h": ["i": 7]], "j": 7]),
      ("c.d", ["a": 1, "b": 2, "c": ["d": 4], "e": 4, "f": 0, "g": ["h": ["i": 7]], "j": 7]),
      ("e", ["a": 1, "b": 2, "c": ["d": 3], "e": 0, "f": 0, "g": ["h": ["i": 7]], "j": 7]),
      ("g.h.i", ["a": 1, "b": 2, "c": ["d": 3], "e": 4, "f": 0, "g": ["h": ["i": 6]], "j": 7]),
      ("j", ["a": 1, "b": 2, "c": ["d": 3], "e": 4, "f": 0, "g": ["h": ["i": 7]], "j": 0]),
    ]
    for (key, other) in failing {
      #expect(try !filter.evaluate(other), "changing \(key) should fail the filter")
    }
    // `f == 5` rescues the `g.h.i` that failed alone.
    let rescued: FilterValue = ["a": 1, "b": 2, "c": ["d": 3], "e": 4, "f": 5, "g": ["h": ["i": 6]], "j": 7]
    #expect(try filter.evaluate(rescued))
  }
}
