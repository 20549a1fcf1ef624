import PredicateDSL
import TestSupport
import Testing

/// The compiled evaluator against the reference interpreter, on random
/// predicates and random records (seeded; `CONTEXTWATCHER_SEED` replays).
@Suite("Compiled evaluation agrees with the reference interpreter")
struct DifferentialTests {
  enum Outcome: Equatable, CustomStringConvertible {
    case value(Bool)
    case failure

    var description: String {
      switch self {
      case .value(let value): "\(value)"
      case .failure: "failure"
      }
    }
  }

  @Test func randomPredicatesOnRandomRecords() throws {
    let seed = SeededGenerator.seed(default: 0xC0FFEE)
    var random = RandomEvaluation(seed: seed)
    var compared = 0
    var compileFailures = 0
    var evaluationFailures = 0
    var matches = 0
    for index in 0..<4_000 {
      let predicate = random.predicate()
      let variables = random.variables()
      let records = (0..<8).map { _ in random.record() }
      let filter: CompiledFilter<FilterValue>
      do {
        filter = try CompiledFilter(predicate, variables: variables, resolver: RecordKeyResolver())
      } catch {
        // A constant part that fails whenever it is evaluated is rejected at
        // compile time; the interpreter may never reach it (short circuits).
        compileFailures += 1
        continue
      }
      for record in records {
        let compiled: Outcome
        do { compiled = .value(try filter.evaluate(record)) } catch { compiled = .failure }
        let expected: Outcome
        do {
          expected = .value(try ReferenceInterpreter.evaluate(predicate, on: record, variables: variables))
        } catch {
          expected = .failure
        }
        #expect(
          compiled == expected,
          "case \(index) (seed \(seed)): \(predicate) with \(variables) on \(record)")
        if compiled != expected { return }
        compared += 1
        if compiled == .failure { evaluationFailures += 1 }
        if compiled == .value(true) { matches += 1 }
      }
    }
    // The comparison means something only if most cases compile, and the
    // answers are mixed.
    #expect(compileFailures < 4_000 / 3, "compile failures: \(compileFailures)")
    #expect(matches > compared / 10, "matches: \(matches) of \(compared)")
    #expect(compared - matches - evaluationFailures > compared / 10)
  }
}
