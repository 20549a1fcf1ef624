/// A compiled predicate's test, without its syntax: what
/// `CompiledFilter.evaluator` returns, for the watcher's table of residual
/// predicates. Package-level: clients keep the ``CompiledFilter``, which
/// evaluates as fast.
package struct FilterEvaluator<Object>: Sendable {
  @usableFromInline let test: Test<Object>
  @usableFromInline let probe: Probe<Object>?

  init(test: @escaping Test<Object>, probe: Probe<Object>?) {
    self.test = test
    self.probe = probe
  }

  /// Whether `object` matches; see ``CompiledFilter/evaluate(_:)``.
  ///
  /// - Throws: ``PredicateEvaluationError`` where Apple's `NSPredicate`
  ///   would raise.
  @inlinable
  package func evaluate(_ object: Object) throws(PredicateEvaluationError) -> Bool {
    // Optional chaining calls the probe in place; `if let` copied it, a
    // retain and a release per evaluation.
    if let result = probe?(object) ?? nil { return result }
    return try test(object, EvaluationScope())
  }
}
