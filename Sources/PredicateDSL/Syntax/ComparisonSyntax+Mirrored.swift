extension ComparisonSyntax.Operator {
  /// The operator with its operands swapped: `<` for `>`, `==` for `==`;
  /// nil when the operator has no mirror image among the operators.
  ///
  /// The one table of mirror images: the key-constant parts accept a
  /// constant first only before an operator that has one, and turn such a
  /// comparison round through it
  /// (`PredicateSyntax.KeyConstantComparison.keyFirstOperator`) for the
  /// compiler, the watcher's range indexes and indexed fetches.
  @inlinable
  package var mirrored: ComparisonSyntax.Operator? {
    switch self {
    case .equal: .equal
    case .notEqual: .notEqual
    case .less: .greater
    case .lessOrEqual: .greaterOrEqual
    case .greater: .less
    case .greaterOrEqual: .lessOrEqual
    default: nil
    }
  }
}
