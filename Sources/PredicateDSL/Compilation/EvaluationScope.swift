/// The values bound while a `SUBQUERY` runs, by slot.
@usableFromInline
struct EvaluationScope: Sendable {
  @usableFromInline var bindings: [FilterValue]

  /// No bindings: the scope of a top-level evaluation.
  @inlinable init() { bindings = [] }
}
