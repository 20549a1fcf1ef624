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
      // The same keys given as `KeyReader`s, whose fused comparisons are
      // built through the reader hook in the resolver's module, with
      // probes, not around the read closure in the compiler: both must
      // answer alike, errors included.
      let readerFilter: CompiledFilter<FilterValue>
      let compiled = Result { () throws(PredicateCompileError) in
        try CompiledFilter(predicate, variables: variables, resolver: RecordKeyResolver())
      }
      let compiledWithReaders = Result { () throws(PredicateCompileError) in
        try CompiledFilter(predicate, variables: variables, resolver: RecordReaderResolver())
      }
      switch (compiled, compiledWithReaders) {
      case (.success(let closures), .success(let readers)):
        (filter, readerFilter) = (closures, readers)
      case (.failure(let closures), .failure(let readers)):
        // A constant part that fails whenever it is evaluated is rejected at
        // compile time; the interpreter may never reach it (short circuits).
        #expect(closures == readers, "case \(index) (seed \(seed)): \(predicate) fails to compile differently")
        compileFailures += 1
        continue
      default:
        Issue.record(
          "case \(index) (seed \(seed)): \(predicate) compiles one way only: \(compiled), \(compiledWithReaders)")
        continue
      }
      for record in records {
        let compiled: Outcome
        do { compiled = .value(try filter.evaluate(record)) } catch { compiled = .failure }
        let viaReader: Result<Bool, PredicateEvaluationError> = Result { () throws(PredicateEvaluationError) in
          try readerFilter.evaluate(record)
        }
        let viaClosure: Result<Bool, PredicateEvaluationError> = Result { () throws(PredicateEvaluationError) in
          try filter.evaluate(record)
        }
        #expect(viaReader == viaClosure, "case \(index) (seed \(seed)), through KeyReader: \(predicate) on \(record)")
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

extension DifferentialTests {
  /// Long `AND`/`OR` chains (1 to 12 operands, some of them constants), which
  /// the compiler groups by up to five and splits into a tree beyond that:
  /// the random predicates above have at most four operands per compound.
  @Test func longCompoundsOnRandomRecords() throws {
    let seed = SeededGenerator.seed(default: 0xC0FFEE)
    var random = RandomEvaluation(seed: seed)
    for index in 0..<1_200 {
      let count = 1 + index % 12
      let operands = (0..<count).map { _ in
        random.generator.chance(0.15)
          ? PredicateSyntax(.constant(random.generator.chance(0.5))) : random.predicate(depth: 2)
      }
      let predicate = PredicateSyntax(random.generator.chance(0.5) ? .and(operands) : .or(operands))
      let variables = random.variables()
      let filters: [CompiledFilter<FilterValue>]
      do {
        filters = [
          try CompiledFilter(predicate, variables: variables, resolver: RecordKeyResolver()),
          try CompiledFilter(predicate, variables: variables, resolver: RecordReaderResolver()),
        ]
      } catch {
        continue
      }
      for _ in 0..<8 {
        let record = random.record()
        let expected: Outcome
        do {
          expected = .value(try ReferenceInterpreter.evaluate(predicate, on: record, variables: variables))
        } catch {
          expected = .failure
        }
        for filter in filters {
          let compiled: Outcome
          do { compiled = .value(try filter.evaluate(record)) } catch { compiled = .failure }
          #expect(compiled == expected, "case \(index) (seed \(seed)): \(predicate) with \(variables) on \(record)")
          if compiled != expected { return }
        }
      }
    }
  }
}

/// ``RecordKeyResolver`` with its keys given as ``KeyReader``s: the resolver
/// form whose comparisons are built by the reader hook.
struct RecordReaderResolver: KeyResolver {
  struct EntryReader: KeyReader {
    let key: String
    func read(_ object: FilterValue) -> FilterValue { object.value(forKey: key) }
  }

  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
    let key = path.components[0]
    if key.hasPrefix("@") { return try RecordKeyResolver().resolve(path) }
    return ResolvedKey(consuming: 1, reader: EntryReader(key: key))
  }

  func resolveSelf(at range: SyntaxRange) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
    try RecordKeyResolver().resolveSelf(at: range)
  }
}

@Suite("Keys given as KeyReaders")
struct KeyReaderTests {
  /// Reads a fixed value whatever the object, so that a test can tell which
  /// reader ran.
  struct ConstantReader: KeyReader {
    let value: FilterValue
    func read(_ object: FilterValue) -> FilterValue { value }
  }

  struct Resolver: KeyResolver {
    var replaceRead = false
    func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
      var key = ResolvedKey(consuming: 1, type: .attribute(.integer), reader: ConstantReader(value: .int(40)))
      if replaceRead { key.read = { _ in .int(20) } }
      return key
    }
  }

  @Test func fusedComparisonsReadThroughTheReader() throws {
    for (format, expected) in [
      ("age > 30", true), ("age == 40", true), ("age != 40", false), ("age BETWEEN {41, 50}", false),
      ("30 < age", true), ("age < 40.5", true),
    ] {
      #expect(try CompiledFilter(format, resolver: Resolver()).evaluate(.null) == expected, "\(format)")
    }
  }

  @Test func replacingTheReadReplacesTheReader() throws {
    let filter = try CompiledFilter("age > 30", resolver: Resolver(replaceRead: true))
    #expect(try filter.evaluate(.null) == false)
  }

  @Test func otherValuesTakeTheGeneralTest() throws {
    struct TextResolver: KeyResolver {
      func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
        ResolvedKey(consuming: 1, reader: ConstantReader(value: .string("abc")))
      }
    }
    #expect(throws: PredicateEvaluationError.self) {
      try CompiledFilter("age > 30", resolver: TextResolver()).evaluate(.null)
    }
    #expect(try CompiledFilter("age == 30", resolver: TextResolver()).evaluate(.null) == false)
    #expect(try CompiledFilter("age BEGINSWITH 'ab'", resolver: TextResolver()).evaluate(.null) == true)
    #expect(try CompiledFilter("age LIKE[c] 'A*'", resolver: TextResolver()).evaluate(.null) == true)
  }
}
