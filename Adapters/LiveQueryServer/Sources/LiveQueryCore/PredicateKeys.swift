import PredicateDSL

/// The key paths a predicate reads from the evaluated object, wherever they
/// appear (`SELF` itself as `SELF`), for the security check of client
/// predicates.
enum PredicateKeys {
  static func keyPaths(_ syntax: PredicateSyntax) -> [String] {
    var paths: [String] = []
    collect(syntax, into: &paths)
    return paths
  }

  private static func collect(_ syntax: PredicateSyntax, into paths: inout [String]) {
    switch syntax.kind {
    case .constant: break
    case .comparison(let comparison):
      collect(comparison.lhs, into: &paths)
      collect(comparison.rhs, into: &paths)
    case .not(let inner): collect(inner, into: &paths)
    case .and(let parts), .or(let parts): for part in parts { collect(part, into: &paths) }
    }
  }

  private static func collect(_ expression: ExpressionSyntax, into paths: inout [String]) {
    switch expression.kind {
    case .constant, .variable: break
    case .evaluatedObject: paths.append("SELF")
    case .keyPath(let path): paths.append(path)
    case .member(let base, _): collect(base, into: &paths)
    case .index(let base, let position):
      collect(base, into: &paths)
      if case .at(let index) = position { collect(index, into: &paths) }
    case .aggregate(let elements), .function(_, let elements):
      for element in elements { collect(element, into: &paths) }
    case .negation(let operand): collect(operand, into: &paths)
    case .arithmetic(_, let lhs, let rhs):
      collect(lhs, into: &paths)
      collect(rhs, into: &paths)
    case .cast(let operand, _): collect(operand, into: &paths)
    case .subquery(let collection, _, let predicate):
      collect(collection, into: &paths)
      collect(predicate, into: &paths)
    case .ternary(let condition, let then, let otherwise):
      collect(condition, into: &paths)
      collect(then, into: &paths)
      collect(otherwise, into: &paths)
    }
  }
}
