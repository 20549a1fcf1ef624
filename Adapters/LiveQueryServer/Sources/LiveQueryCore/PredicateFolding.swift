import PredicateDSL

/// Folds the comparisons of a substituted read predicate whose outcome is
/// constant (`'user' == 'admin'`), then the ANDs, ORs and NOTs over them,
/// so that `owner == 'u1' OR 'user' == 'admin'` becomes `owner == 'u1'`:
/// a top-level equality the master filter indexes, instead of an OR that
/// every object of the entity is tested against.
enum PredicateFolding {
  static func fold(_ syntax: PredicateSyntax) -> PredicateSyntax {
    switch syntax.kind {
    case .constant:
      return syntax
    case .comparison:
      let constant = try? CompiledFilter<FilterValue>(syntax, resolver: RecordKeyResolver()).constantResult
      return constant.flatMap { $0 }.map { PredicateSyntax(.constant($0), range: syntax.range) } ?? syntax
    case .not(let inner):
      let folded = fold(inner)
      if case .constant(let value) = folded.kind { return PredicateSyntax(.constant(!value), range: syntax.range) }
      return PredicateSyntax(.not(folded), range: syntax.range)
    case .and(let parts):
      var kept: [PredicateSyntax] = []
      for part in parts.map(fold) {
        switch part.kind {
        case .constant(true): continue
        case .constant(false): return PredicateSyntax(.constant(false), range: syntax.range)
        case .and(let inner): kept += inner
        default: kept.append(part)
        }
      }
      return kept.isEmpty
        ? PredicateSyntax(.constant(true), range: syntax.range)
        : kept.count == 1 ? kept[0] : PredicateSyntax(.and(kept), range: syntax.range)
    case .or(let parts):
      var kept: [PredicateSyntax] = []
      for part in parts.map(fold) {
        switch part.kind {
        case .constant(false): continue
        case .constant(true): return PredicateSyntax(.constant(true), range: syntax.range)
        case .or(let inner): kept += inner
        default: kept.append(part)
        }
      }
      return kept.isEmpty
        ? PredicateSyntax(.constant(false), range: syntax.range)
        : kept.count == 1 ? kept[0] : PredicateSyntax(.or(kept), range: syntax.range)
    }
  }
}
