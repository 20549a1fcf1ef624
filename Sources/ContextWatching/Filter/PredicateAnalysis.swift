import ObjectGraph
import PredicateDSL

/// What a watch's predicate reads, found once when the watch is added: the
/// keys of the watched entity it reads, the relationship paths whose far
/// ends it reads (so that changes there re-evaluate it), and the conjunct
/// the master filter can index.
struct PredicateAnalysis {
  /// Keys of the watched entity the predicate reads (attributes and the
  /// first relationship of each path). A change to one is never ignored.
  var readKeys: Set<String> = []
  /// Whether the predicate reads the object whole (`SELF`): then every key
  /// counts as read.
  var readsWholeObject = false
  /// Relationship paths whose far ends the predicate reads.
  var dependencies: Set<Dependency> = []

  /// A path of relationships from the watched entity, and the keys read on
  /// the entity at its end (nil: any attribute, as when the related object
  /// is read whole).
  struct Dependency: Hashable {
    /// Relationship names from the watched entity outwards.
    var path: [String]
    var keys: Set<String>?
  }

  init(_ predicate: PredicateSyntax, entity: EntityLayout, schema: ObjectSchema) {
    visit(predicate, entity: entity, schema: schema, inSubquery: false)
  }

  private mutating func visit(
    _ predicate: PredicateSyntax, entity: EntityLayout, schema: ObjectSchema, inSubquery: Bool
  ) {
    switch predicate.kind {
    case .constant: break
    case .not(let operand): visit(operand, entity: entity, schema: schema, inSubquery: inSubquery)
    case .and(let operands), .or(let operands):
      for operand in operands { visit(operand, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .comparison(let comparison):
      visit(comparison.lhs, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(comparison.rhs, entity: entity, schema: schema, inSubquery: inSubquery)
    }
  }

  private mutating func visit(
    _ expression: ExpressionSyntax, entity: EntityLayout, schema: ObjectSchema, inSubquery: Bool
  ) {
    switch expression.kind {
    case .constant, .variable: break
    case .evaluatedObject:
      // Inside a SUBQUERY, SELF is still the watched object only at the top.
      if !inSubquery { readsWholeObject = true }
    case .keyPath(let path):
      // Inside a SUBQUERY's predicate, plain key paths read the element.
      if !inSubquery { record(path.split(separator: ".").map(String.init), entity: entity, schema: schema) }
    case .member(let base, _), .index(let base, _), .negation(let base), .cast(let base, _):
      visit(base, entity: entity, schema: schema, inSubquery: inSubquery)
    case .aggregate(let elements), .function(_, let elements):
      for element in elements { visit(element, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .arithmetic(_, let lhs, let rhs):
      visit(lhs, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(rhs, entity: entity, schema: schema, inSubquery: inSubquery)
    case .subquery(let collection, _, let predicate):
      visit(collection, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(predicate, entity: entity, schema: schema, inSubquery: true)
    case .ternary(let condition, let then, let otherwise):
      visit(condition, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(then, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(otherwise, entity: entity, schema: schema, inSubquery: inSubquery)
    }
  }

  /// Records a key path from the watched entity.
  private mutating func record(_ components: [String], entity: EntityLayout, schema: ObjectSchema) {
    var layout = entity
    var path: [String] = []
    for (position, component) in components.enumerated() {
      let isLast = position == components.count - 1
      switch layout.slot(component) {
      case .attribute:
        if path.isEmpty { readKeys.insert(component) } else { dependencies.insert(Dependency(path: path, keys: [component])) }
        return
      case .relationship(let slot):
        if path.isEmpty {
          readKeys.insert(component)
        } else {
          // A change of this relationship on the object at `path` changes
          // what the rest of the path reaches.
          dependencies.insert(Dependency(path: path, keys: [component]))
        }
        path.append(component)
        layout = schema.layouts[layout.relationships[slot].destinationIndex]
        if isLast {
          // The related objects themselves are read (compared with nil, or
          // as records): any attribute of theirs may matter.
          dependencies.insert(Dependency(path: path, keys: nil))
        }
      case nil:
        // A collection operator: `@count` of the last relationship was
        // recorded as that relationship; the others read the destinations'
        // values.
        if component != "@count", !path.isEmpty { dependencies.insert(Dependency(path: path, keys: nil)) }
        return
      }
    }
  }
}

/// The conjunct of a predicate that a hash index can serve: `key == constant`
/// or `key IN {constants}` on an attribute of the watched entity, without
/// options, at the top level of the predicate (alone, or in an AND).
struct IndexedConjunct {
  var slot: Int
  var keys: [MembershipKey]
  /// The rest of the predicate, which candidates must still match.
  var residual: PredicateSyntax

  init?(_ predicate: PredicateSyntax, entity: EntityLayout) {
    let conjuncts: [PredicateSyntax] =
      if case .and(let operands) = predicate.kind { operands } else { [predicate] }
    for (position, conjunct) in conjuncts.enumerated() {
      guard let (slot, keys) = Self.indexable(conjunct, entity: entity) else { continue }
      var rest = conjuncts
      rest.remove(at: position)
      self.slot = slot
      self.keys = keys
      switch rest.count {
      case 0: residual = PredicateSyntax(.constant(true))
      case 1: residual = rest[0]
      default: residual = PredicateSyntax(.and(rest), range: predicate.range)
      }
      return
    }
    return nil
  }

  private static func indexable(_ predicate: PredicateSyntax, entity: EntityLayout) -> (Int, [MembershipKey])? {
    guard case .comparison(let comparison) = predicate.kind, comparison.quantifier == .direct,
      comparison.options.isEmpty
    else { return nil }
    var (key, constant) = (comparison.lhs, comparison.rhs)
    if comparison.operator == .equal, case .constant = key.kind { swap(&key, &constant) }
    guard case .keyPath(let path) = key.kind, case .attribute(let slot) = entity.slot(path),
      case .constant(let value) = constant.kind
    else { return nil }
    switch comparison.operator {
    case .equal:
      return (slot, [MembershipKey(value)])
    case .in:
      switch value {
      case .array(let elements): return (slot, elements.map(MembershipKey.init))
      case .set(let elements): return (slot, elements.map(MembershipKey.init))
      default: return nil  // `key IN "text"` is a substring test
      }
    default:
      return nil
    }
  }
}
