import TestSupport
import Testing

@testable import PredicateDSL

/// A direct comparison of a key with a constant is compiled by a fast path
/// that builds no operands (`PredicateCompiler.keyConstant`). With the fast
/// path turned off the same comparison goes through the general path; both
/// must give the same compile errors, the same results, the same evaluation
/// errors and the same probe answers.
@Suite("Key-constant fast path")
struct KeyConstantFastPathTests {
  /// What a compiled predicate does with each object.
  enum Outcome: Equatable {
    case compileError(PredicateCompileError)
    case constant(Bool)
    /// Per object: the probe's answer (nil when there is no probe or it
    /// declines) and the test's result.
    case tested([Bool?], [Result<Bool, PredicateEvaluationError>])
  }

  static func outcome<Resolver: KeyResolver>(
    _ syntax: PredicateSyntax, _ resolver: Resolver, fast: Bool, on objects: [Resolver.Object]
  ) -> Outcome {
    let compiler = PredicateCompiler<Resolver.Object>(source: nil, scope: [], keyConstantFastPath: fast)
    let condition: Condition<Resolver.Object>
    do {
      condition = try compiler.compile(syntax, resolver)
    } catch {
      return .compileError(error)
    }
    switch condition {
    case .constant(let value):
      return .constant(value)
    case .test(let test, let probe):
      let probes = objects.map { probe?($0) ?? nil }
      let results = objects.map { object in
        Result { () throws(PredicateEvaluationError) in try test(object, EvaluationScope()) }
      }
      return .tested(probes, results)
    }
  }

  @Test func randomPredicatesAnswerAsTheGeneralPath() throws {
    let seed = SeededGenerator.seed(default: 0xFA57)
    var random = RandomEvaluation(seed: seed)
    var fastComparisons = 0
    for index in 0..<2_000 {
      let predicate = random.predicate().substituting(random.variables())
      let records = (0..<8).map { _ in random.record() }
      fastComparisons += Self.keyConstantComparisons(in: predicate)
      // Keys read through closures (the compiler's own fused closures) and
      // through `KeyReader`s (the closures built by the reader's hook).
      for resolverIndex in 0..<2 {
        let (fast, general) =
          resolverIndex == 0
          ? (
            Self.outcome(predicate, RecordKeyResolver(), fast: true, on: records),
            Self.outcome(predicate, RecordKeyResolver(), fast: false, on: records)
          )
          : (
            Self.outcome(predicate, RecordReaderResolver(), fast: true, on: records),
            Self.outcome(predicate, RecordReaderResolver(), fast: false, on: records)
          )
        #expect(fast == general, "case \(index) (seed \(seed)), resolver \(resolverIndex): \(predicate)")
        if fast != general { return }
      }
    }
    // The random predicates exercise the fast path, not only the general one.
    #expect(fastComparisons > 500)
  }

  /// How many comparisons in the tree (outside `SUBQUERY`s) take the fast path.
  static func keyConstantComparisons(in predicate: PredicateSyntax) -> Int {
    switch predicate.kind {
    case .constant: 0
    case .comparison: predicate.keyConstantParts == nil ? 0 : 1
    case .not(let operand): keyConstantComparisons(in: operand)
    case .and(let operands), .or(let operands): operands.reduce(0) { $0 + keyConstantComparisons(in: $1) }
    }
  }

  /// The watcher's test (`keyConstantComparison`) and the compiler's
  /// (`keyConstantParts`) must take apart the same comparisons (the
  /// watcher's refusing options) into the same parts, on random predicates
  /// and on every form in the list below.
  @Test func theWatchersAndTheCompilersKeyConstantTestsAgree() throws {
    let seed = SeededGenerator.seed(default: 0xA6EE)
    var random = RandomEvaluation(seed: seed)
    var comparisons: [PredicateSyntax] = []
    func collect(_ predicate: PredicateSyntax) {
      switch predicate.kind {
      case .constant: break
      case .comparison: comparisons.append(predicate)
      case .not(let operand): collect(operand)
      case .and(let operands), .or(let operands): operands.forEach(collect)
      }
    }
    for _ in 0..<1_000 { collect(random.predicate().substituting(random.variables())) }
    for format in Self.typedForms + ["age > 30 AND 'x' == name", "age ==[c] 3", "30 IN ages", "name UTI-EQUALS 'x'"] {
      collect(try PredicateParser.parse(format))
    }
    var agreed = 0
    for predicate in comparisons {
      let compilers = predicate.keyConstantParts
      let watchers = predicate.keyConstantComparison
      guard let compilers, compilers.options.isEmpty else {
        #expect(watchers == nil, "\(predicate) (seed \(seed))")
        continue
      }
      let parts = try #require(watchers, "\(predicate) (seed \(seed))")
      // Compared as printed: a NaN constant is not equal to itself.
      #expect(parts.keyPath == compilers.keyPath && "\(parts.constant)" == "\(compilers.constant)", "\(predicate)")
      #expect(parts.operator == compilers.operator && parts.constantFirst == compilers.constantFirst, "\(predicate)")
      agreed += 1
    }
    #expect(agreed > 300 && comparisons.count > agreed)
  }

  static let typedForms = [
    "age > 30", "30 < age", "age >= 31.0", "31 <= age", "age == 31", "31 == age", "age != nil", "age BETWEEN {30, 40}",
    "age IN {31, 32}", "name BEGINSWITH[c] 'a'", "name ==[cd] 'ALICE'", "name LIKE 'A*e'", "name MATCHES 'A.*'",
    "name CONTAINS 'li'", "name ENDSWITH 'e'", "name IN {'Alice', 'Bob'}", "name IN 'Alice and Bob'", "name < 'B'",
    "'B' > name", "department.name == 'R&D'", "'R&D' == department.name", "department == 'R&D'", "tags == {'swift'}",
    "tags CONTAINS 'swift'", "tags CONTAINS 3",
    // Type errors.
    "age BEGINSWITH '3'", "name > 3", "3 < name", "age == '30'", "'30' == age", "age IN {1, 'x'}",
    "name BETWEEN {1, 2}",
    "age LIKE 'x*'", "department.name MATCHES 3", "tags > 'a'", "name BEGINSWITH 3", "name MATCHES '('",
    // Unknown keys, and operators the fast path leaves to the general path.
    "agee > 3", "department.nmae == 'x'", "'a' IN name", "'a' BEGINSWITH name", "ANY tags == 'swift'",
  ]

  /// Typed keys: type errors (either way round, messages, keys and
  /// entities), a resolver that covers only part of the path, unknown keys.
  @Test(arguments: typedForms)
  func typedKeysAnswerAsTheGeneralPath(format: String) throws {
    let syntax = try PredicateParser.parse(format)
    let people = [
      Person(name: "Alice", age: 31, tags: ["swift"], department: Department(name: "R&D")),
      Person(name: "Bob", age: nil),
      Person(name: 3, age: "x"),
    ]
    let fast = Self.outcome(syntax, PersonResolver(), fast: true, on: people)
    let general = Self.outcome(syntax, PersonResolver(), fast: false, on: people)
    #expect(fast == general, "\(format)")
  }
}
