import PredicateDSL

/// What an indexed first conjunct selects.
enum IndexSelection {
  /// The objects holding one of these values (coerced to the attribute's
  /// type): `==` and `IN`.
  case values([FilterValue])
  /// The objects whose value `v` makes `v <operator> constant` true, the
  /// operator one of `<`, `<=`, `>`, `>=` with the key first.
  case range(ComparisonSyntax.Operator, FilterValue)
}
