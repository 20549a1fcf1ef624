import PredicateDSL

/// Each kind's payload, nil for the other kinds, so that a test states the
/// shape it expects with `try #require(syntax.kind.andOperands)` and fails,
/// rather than passes unchecked, when the parse has another shape.
extension PredicateSyntax.Kind {
  /// The operands of `a AND b AND …`.
  var andOperands: [PredicateSyntax]? {
    if case .and(let operands) = self { operands } else { nil }
  }

  /// The operands of `a OR b OR …`.
  var orOperands: [PredicateSyntax]? {
    if case .or(let operands) = self { operands } else { nil }
  }

  /// The comparison of a comparison node.
  var comparison: ComparisonSyntax? {
    if case .comparison(let comparison) = self { comparison } else { nil }
  }
}
