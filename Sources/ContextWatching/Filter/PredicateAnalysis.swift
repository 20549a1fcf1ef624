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
  /// The attribute slots of the watched entity the predicate reads, as bits;
  /// nil when it also reads anything else (a relationship, the object
  /// whole, a slot past 63). An update that changes none of these
  /// attributes matches alike before and after.
  var attributeMask: UInt64? = 0

  /// A path of relationships from the watched entity, and the keys read on
  /// the entity at its end (nil: any attribute, as when the related object
  /// is read whole).
  struct Dependency: Hashable {
    /// Relationship names from the watched entity outwards.
    var path: [String]
    var keys: Set<String>?
  }

  /// Whether `readKeys` is wanted (only to subtract them from ignored
  /// keys); without it a plain attribute read records nothing.
  private let collectsReadKeys: Bool

  /// An analysis that has read nothing yet: `visit(_:entity:schema:)` and
  /// `noteRead(attribute:of:)` add what is read.
  init(collectsReadKeys: Bool) {
    self.collectsReadKeys = collectsReadKeys
  }

  /// Records what `predicate`, on `entity`, reads.
  mutating func visit(_ predicate: PredicateSyntax, entity: EntityLayout, schema: ObjectSchema) {
    visit(predicate, entity: entity, schema: schema, inSubquery: false)
  }

  /// Records a read of the attribute in `slot` made outside the analysed
  /// predicate (by an indexed conjunct).
  mutating func noteRead(attribute slot: Int, of entity: EntityLayout) {
    if collectsReadKeys { readKeys.insert(entity.attributes[slot].name) }
    attributeMask = slot < 64 ? attributeMask.map { $0 | 1 << UInt64(slot) } : nil
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
      if !inSubquery {
        readsWholeObject = true
        attributeMask = nil
      }
    case .keyPath(let path):
      // Inside a SUBQUERY's predicate, plain key paths read the element.
      guard !inSubquery else { break }
      if !path.utf8.contains(UInt8(ascii: ".")) {
        // One component: an attribute needs nothing unless read keys are
        // wanted; a relationship read whole is recorded below.
        if case .attribute(let slot)? = entity.slot(path) {
          if collectsReadKeys { readKeys.insert(path) }
          attributeMask = slot < 64 ? attributeMask.map { $0 | 1 << UInt64(slot) } : nil
          break
        }
        record([path], entity: entity, schema: schema)
      } else {
        record(path.keyPathComponents, entity: entity, schema: schema)
      }
    case .index(let base, let position):
      visit(base, entity: entity, schema: schema, inSubquery: inSubquery)
      // The subscript is read too: `{"a", "b"}[level]` depends on `level`.
      if case .at(let index) = position { visit(index, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .member(let base, _), .negation(let base), .cast(let base, _):
      visit(base, entity: entity, schema: schema, inSubquery: inSubquery)
    case .function(let function, let arguments):
      // `random()` and `now()` can differ between an update's two images
      // whatever changed: not a function of attributes alone.
      if !FunctionCall.isDeterministic(function) { attributeMask = nil }
      for argument in arguments { visit(argument, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .aggregate(let elements):
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
    attributeMask = nil  // paths that follow relationships, or read one: not attributes alone
    var layout = entity
    var path: [String] = []
    for (position, component) in components.enumerated() {
      let isLast = position == components.count - 1
      switch layout.slot(component) {
      case .attribute:
        if path.isEmpty {
          readKeys.insert(component)
        } else {
          dependencies.insert(Dependency(path: path, keys: [component]))
        }
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
