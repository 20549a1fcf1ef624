/// A predicate compiled for one kind of object: parse once, compile once,
/// evaluate many times.
///
/// Compiling resolves every key path through a ``KeyResolver``, checks types
/// where the resolver knows them, folds constant expressions, folds `[cd]`
/// needles, compiles `LIKE` and `MATCHES` patterns and hashes constant `IN`
/// lists. Evaluation follows Apple's `NSPredicate` semantics (see
/// docs/evaluation.md) and throws ``PredicateEvaluationError`` where Apple
/// raises an exception.
///
/// ```swift
/// let filter = try CompiledFilter("age > 30 AND name BEGINSWITH[c] %@", arguments: ["a"],
///                                 resolver: RecordKeyResolver())
/// try filter.evaluate(["name": "Alice", "age": 31])  // true
/// ```
///
/// A compiled filter is an immutable value: share it between threads freely.
public struct CompiledFilter<Object>: Sendable {
  /// The predicate, with its arguments and variables substituted.
  public let syntax: PredicateSyntax
  /// The predicate text it was parsed from, if it was compiled from text.
  public let source: String?
  /// The compiled test; for a constant predicate, one that returns the constant.
  @usableFromInline let test: Test<Object>
  /// For a single fused comparison, its shortcut, which ``evaluate(_:)``
  /// tries first.
  @usableFromInline let probe: Probe<Object>?
  /// The result when it does not depend on the object: `true` for
  /// `TRUEPREDICATE` or `1 < 2`, nil for a predicate that reads the object.
  public let constantResult: Bool?

  /// Compiles a parsed predicate.
  ///
  /// - Parameters:
  ///   - syntax: The predicate.
  ///   - variables: Values for its `$VARIABLES`, by name without `$`.
  ///   - source: The text `syntax` was parsed from, so that errors can show
  ///     their position in it.
  ///   - limits: Where compiling is concerned, the budget of each `MATCHES`
  ///     pattern (``PredicateLimits/regexBudget``).
  ///   - resolver: How to read key paths from the objects.
  /// - Throws: ``PredicateCompileError`` for an unknown key, a type that an
  ///   operator cannot take, an unbound variable, an invalid pattern, or a
  ///   constant expression that always fails.
  public init<Resolver: KeyResolver<Object>>(
    _ syntax: PredicateSyntax, variables: [String: FilterValue] = [:], source: String? = nil,
    limits: PredicateLimits = .default, resolver: Resolver
  ) throws(PredicateCompileError) {
    try self.init(
      substituted: syntax.substituting(variables), source: source, regexBudget: limits.regexBudget,
      resolver: resolver)
  }

  /// Compiles a predicate whose variables are substituted, and keeps it:
  /// taken owned, so that text compiled here moves its parsed tree into the
  /// filter instead of copying it and destroying the original.
  private init<Resolver: KeyResolver<Object>>(
    substituted: consuming PredicateSyntax, source: String?, regexBudget: Int, resolver: Resolver
  ) throws(PredicateCompileError) {
    let compiler = PredicateCompiler<Object>(
      source: source, scope: [], regexBudgetStorage: Int32(clamping: regexBudget))
    do {
      switch try compiler.compile(substituted, resolver) {
      case .constant(let result):
        test = { _, _ in result }
        probe = nil
        constantResult = result
      case .test(let compiled, let shortcut):
        test = compiled
        probe = shortcut
        constantResult = nil
      }
    } catch {
      var located = error
      located.source = source
      throw located
    }
    self.syntax = substituted
    self.source = source
  }

  /// Parses and compiles predicate text.
  ///
  /// - Parameters:
  ///   - format: The predicate text.
  ///   - arguments: The values for the `%` specifiers, in order.
  ///   - variables: Values for its `$VARIABLES`, by name without `$`.
  ///   - limits: The longest text and the deepest nesting accepted, and
  ///     the budget of each `MATCHES` pattern.
  ///   - resolver: How to read key paths from the objects.
  /// - Throws: ``PredicateParseError`` when the text is not a predicate or
  ///   exceeds `limits`, ``PredicateCompileError`` when it cannot be
  ///   compiled.
  public init<Resolver: KeyResolver<Object>>(
    _ format: String, arguments: [FilterValue] = [], variables: [String: FilterValue] = [:],
    limits: PredicateLimits = .default, resolver: Resolver
  ) throws {
    let syntax = try PredicateParser.parse(format, arguments: arguments, limits: limits)
    if variables.isEmpty {
      try self.init(substituted: consume syntax, source: format, regexBudget: limits.regexBudget, resolver: resolver)
    } else {
      try self.init(
        substituted: syntax.substituting(variables), source: format, regexBudget: limits.regexBudget,
        resolver: resolver)
    }
  }

  /// Whether `object` matches.
  ///
  /// - Throws: ``PredicateEvaluationError`` where Apple's `NSPredicate` would
  ///   raise: ordering a number against a string, `ANY` over a value that is
  ///   not a collection, an index out of range, arithmetic on a string.
  @inlinable
  public func evaluate(_ object: Object) throws(PredicateEvaluationError) -> Bool {
    // Inlined into the caller: one closure call, no switch on a generic enum.
    // Optional chaining calls the probe in place; `if let` copied it, a
    // retain and a release per evaluation.
    if let result = probe?(object) ?? nil { return result }
    return try test(object, EvaluationScope())
  }
}

extension CompiledFilter {
  /// The elements of `objects` that match, in order.
  ///
  /// - Throws: The first ``PredicateEvaluationError``.
  public func filter<Objects: Sequence<Object>>(_ objects: Objects) throws(PredicateEvaluationError) -> [Object] {
    var matches: [Object] = []
    for object in objects where try evaluate(object) { matches.append(object) }
    return matches
  }
}

typealias Evaluator<Object> = @Sendable (Object, EvaluationScope) throws(PredicateEvaluationError) -> FilterValue
@usableFromInline
typealias Test<Object> = @Sendable (Object, EvaluationScope) throws(PredicateEvaluationError) -> Bool
/// A fused comparison's shortcut alone: its result, or nil when the value
/// is outside the shortcut and the comparison's ``Test`` decides. Not
/// throwing, so that a closure capturing one reference is called without a
/// forwarding thunk, and the shortcut needs no stack frame.
@usableFromInline
typealias Probe<Object> = @Sendable (Object) -> Bool?

extension CompiledFilter {
  /// The compiled test alone, without the syntax and the source text: its
  /// closure and, for a single fused comparison, its probe; cheap to store
  /// by the thousand and to copy out of an array on a hot path.
  package var evaluator: FilterEvaluator<Object> { FilterEvaluator(test: test, probe: probe) }
}
