import ObjectGraph
import PredicateDSL

/// The conjunct of a predicate that an index can serve, at the top level of
/// the predicate (alone, or in an AND), without options, on an attribute
/// of the watched entity: `key == constant` or `key IN {constants}` (a hash
/// index), else `key > c`, `>=`, `<`, `<=` or `key BETWEEN {a, b}` on a
/// number or date attribute (sorted bounds), or the same and
/// `key BEGINSWITH 'prefix'` on a string attribute with string constants
/// (sorted bounds in Unicode scalar order). Range conjuncts on one
/// attribute are one range: `age >= 18 AND age < 65`, in any order and
/// among other conjuncts, is filed as [18, 65), alone or (numbers and
/// dates) under an equality.
enum IndexedConjunct {
  enum Kind {
    /// The object's value must be one of these keys.
    case equal(IndexKeys)
    /// The object's value must lie within these bounds.
    case range(RangeBounds)
    /// The object's value must be a string within these bounds.
    case textRange(TextBounds)

    /// Whether `value` satisfies the conjunct.
    func admits(_ value: FilterValue) -> Bool {
      switch self {
      case .equal(let keys): keys.contains(IndexKey(value))
      case .range(let bounds): bounds.contains(value)
      case .textRange(let bounds): bounds.contains(value)
      }
    }
  }

  /// A predicate split around its indexed conjunct: the attribute slot and
  /// the conjunct (nil and 0 when none can be indexed), a range on another
  /// attribute served under each key of an equality, and the rest of the
  /// predicate, which candidates must still match (nil when that is
  /// `TRUEPREDICATE`: the common `key == constant` needs no node, whose
  /// copies and checks cost more than the nil). A tuple, so that the
  /// caller takes it apart by moving its parts: a struct's fields would be
  /// copied out, and a copy of keys or bounds copies their values.
  typealias Split = (slot: Int, kind: Kind?, secondary: (slot: Int, bounds: RangeBounds)?, residual: PredicateSyntax?)

  /// Finds the conjunct an index can serve in a watch's predicate on
  /// `entity`, and what is left of the predicate without it.
  static func split(_ predicate: PredicateSyntax, entity: EntityLayout) -> Split {
    if case .comparison = predicate.kind {
      // The common case, without building a list of one.
      guard let parts = predicate.keyConstantComparison else { return (0, nil, nil, predicate) }
      if let (slot, keys) = equality(parts, entity: entity) {
        return (slot, .equal(keys), nil, nil)
      }
      if let (slot, bounds) = range(parts, entity: entity) {
        return (slot, bounds, nil, nil)
      }
      return (0, nil, nil, predicate)
    }
    guard case .and = predicate.kind else {
      if case .constant(true) = predicate.kind { return (0, nil, nil, nil) }
      return (0, nil, nil, predicate)
    }
    // The conjuncts are read in place, by position: taking one out of the
    // AND here would copy it whole. An equality is the most selective:
    // prefer it to a range. (Plain loops: a lazy `compactMap(...).first`
    // runs each test twice.)
    let count = predicate.conjunctCount
    var found: (position: Int, slot: Int, kind: Kind)?
    for position in 0..<count {
      if let parts = predicate.keyConstantComparison(ofConjunct: position),
        let (slot, keys) = equality(parts, entity: entity)
      {
        found = (position, slot, .equal(keys))
        break
      }
    }
    if found == nil {
      for position in 0..<count {
        if let parts = predicate.keyConstantComparison(ofConjunct: position),
          let (slot, bounds) = range(parts, entity: entity)
        {
          found = (position, slot, bounds)
          break
        }
      }
    }
    guard let (position, slot, foundKind) = found else { return (0, nil, nil, predicate) }
    // The conjuncts taken out of the predicate, in the order they appear;
    // room for all, so that taking a second (`age >= 18 AND age < 65`)
    // does not grow the array.
    var taken: [Int] = []
    taken.reserveCapacity(count)
    taken.append(position)
    var kind = foundKind
    // Every other range conjunct on the same attribute narrows the same
    // range: `age >= 18 AND age < 65` is one watch on [18, 65).
    if case .range = kind {
      kind = merged(kind, on: slot, from: position + 1, of: predicate, entity: entity, taking: &taken)
    } else if case .textRange = kind {
      kind = merged(kind, on: slot, from: position + 1, of: predicate, entity: entity, taking: &taken)
    }
    // Under an equality, range conjuncts on another number or date
    // attribute narrow the watches filed under each key (a composite
    // index). String ranges there stay in the residual.
    var secondary: (slot: Int, bounds: RangeBounds)?
    if case .equal = kind {
      for other in 0..<count where other != position {
        if let parts = predicate.keyConstantComparison(ofConjunct: other),
          let (rangeSlot, bounds) = range(parts, entity: entity), case .range = bounds
        {
          taken.append(other)
          let all = merged(bounds, on: rangeSlot, from: other + 1, of: predicate, entity: entity, taking: &taken)
          if case .range(let all) = all { secondary = (rangeSlot, all) }
          break
        }
      }
    }
    let restCount = count - taken.count
    guard restCount > 0, case .and(let conjuncts) = predicate.kind else { return (slot, kind, secondary, nil) }
    let residual: PredicateSyntax?
    if restCount == 1 {
      let only = conjuncts.indices.first { !taken.contains($0) }!
      // `city == 'Oslo' AND TRUEPREDICATE` has nothing left either.
      if case .constant(true) = conjuncts[only].kind { residual = nil } else { residual = conjuncts[only] }
    } else {
      var rest: [PredicateSyntax] = []
      rest.reserveCapacity(restCount)
      for other in conjuncts.indices where !taken.contains(other) { rest.append(conjuncts[other]) }
      residual = PredicateSyntax(.and(rest), range: predicate.range)
    }
    return (slot, kind, secondary, residual)
  }
}

extension IndexedConjunct {
  /// Whether a constant has a type the attribute's values can equal, so
  /// that the comparison needs no compiling to be valid. An equality whose
  /// constants do not fit is not indexed: it stays in the residual, whose
  /// compiling reports the error with its position. (Ranges are only
  /// formed from constants of the attribute's kind: numbers and dates, or
  /// strings on a string attribute.)
  private static func fits(_ value: FilterValue, _ type: AttributeType) -> Bool {
    switch value {
    case .null: true
    case .bool, .int, .double: type.isNumeric
    case .string: type == .string
    case .date: type == .date
    case .uuid: type == .uuid
    case .data: type == .data
    case .array, .set, .record: false
    }
  }
}

extension IndexedConjunct {
  /// `bounds` (a range or a string range) narrowed by every range
  /// conjunct on attribute `slot` from conjunct `start` on (their
  /// conjunction is the intersection); their positions are added to
  /// `taken`. An attribute's ranges are all of one kind: its type decides.
  private static func merged(
    _ bounds: Kind, on slot: Int, from start: Int, of predicate: PredicateSyntax, entity: EntityLayout,
    taking taken: inout [Int]
  ) -> Kind {
    var bounds = bounds
    for other in start..<predicate.conjunctCount where !taken.contains(other) {
      if let parts = predicate.keyConstantComparison(ofConjunct: other),
        let (otherSlot, more) = range(parts, entity: entity), otherSlot == slot
      {
        switch (bounds, more) {
        case (.range(let these), .range(let those)): bounds = .range(these.intersection(those))
        case (.textRange(let these), .textRange(let those)): bounds = .textRange(these.intersection(those))
        default: continue
        }
        taken.append(other)
      }
    }
    return bounds
  }

  /// The equality an index serves, from a conjunct's parts.
  private static func equality(
    _ parts: PredicateSyntax.KeyConstantComparison, entity: EntityLayout
  ) -> (Int, IndexKeys)? {
    // `30 == age` is `age == 30` (`IN` takes its constant on the right).
    guard !parts.constantFirst || parts.operator == .equal else { return nil }
    let (path, value, operation) = (parts.keyPath, parts.constant, parts.operator)
    guard case .attribute(let slot) = entity.slot(path) else { return nil }
    let type = entity.attributes[slot].type
    switch operation {
    case .equal:
      guard fits(value, type) else { return nil }
      return (slot, IndexKeys(IndexKey(value)))
    case .in:
      switch value {
      // Each key once: a watch is filed once under each of its keys. A nil
      // element never matches (`IN` is false for a nil value), so it is no key.
      case .array(let elements):
        guard elements.allSatisfy({ fits($0, type) }) else { return nil }
        return IndexKeys(unique(elements.filter { !$0.isNull }.map { IndexKey($0) })).map { (slot, $0) }
      case .set(let elements):
        guard elements.allSatisfy({ fits($0, type) }) else { return nil }
        return IndexKeys(unique(elements.filter { !$0.isNull }.map { IndexKey($0) })).map { (slot, $0) }
      default: return nil  // `key IN "text"` is a substring test
      }
    default:
      return nil
    }
  }

  private static func unique(_ keys: [IndexKey]) -> [IndexKey] {
    var seen: Set<IndexKey> = []
    return keys.filter { seen.insert($0).inserted }
  }

  /// The range an index serves, from a conjunct's parts: `.range` on a
  /// number or date attribute, `.textRange` on a string attribute.
  private static func range(
    _ parts: PredicateSyntax.KeyConstantComparison, entity: EntityLayout
  ) -> (Int, Kind)? {
    let (path, value, operation) = (parts.keyPath, parts.constant, parts.keyFirstOperator)
    guard case .attribute(let slot) = entity.slot(path) else { return nil }
    let type = entity.attributes[slot].type
    if type == .string { return textRange(operation, value).map { (slot, .textRange($0)) } }
    func fits(_ bound: FilterValue) -> Bool {
      switch bound {
      case .int, .bool: type.isNumeric
      case .double(let number): type.isNumeric && !number.isNaN  // NaN has no place in an order
      case .date(let seconds): type == .date && !seconds.isNaN
      default: false
      }
    }
    switch operation {
    case .greater, .greaterOrEqual:
      guard fits(value) else { return nil }
      return RangeBounds(lower: (value, operation == .greaterOrEqual), upper: nil).map { (slot, .range($0)) }
    case .less, .lessOrEqual:
      guard fits(value) else { return nil }
      return RangeBounds(lower: nil, upper: (value, operation == .lessOrEqual)).map { (slot, .range($0)) }
    case .between:
      guard case .array(let bounds) = value, bounds.count == 2, fits(bounds[0]), fits(bounds[1]) else { return nil }
      return RangeBounds(lower: (bounds[0], true), upper: (bounds[1], true)).map { (slot, .range($0)) }
    default:
      return nil
    }
  }

  /// The string range of `key <operation> value` on a string attribute:
  /// string constants only (against anything else the evaluator reports a
  /// type mismatch, so those stay in the residual), and `BEGINSWITH` with
  /// a prefix that is not empty (the empty one is never a prefix).
  private static func textRange(_ operation: ComparisonSyntax.Operator, _ value: FilterValue) -> TextBounds? {
    switch (operation, value) {
    case (.greater, .string(let text)), (.greaterOrEqual, .string(let text)):
      return TextBounds(lower: (text, operation == .greaterOrEqual), upper: nil)
    case (.less, .string(let text)), (.lessOrEqual, .string(let text)):
      return TextBounds(lower: nil, upper: (text, operation == .lessOrEqual))
    case (.between, .array(let bounds)):
      guard bounds.count == 2, case .string(let low) = bounds[0], case .string(let high) = bounds[1] else {
        return nil
      }
      return TextBounds(lower: (low, true), upper: (high, true))
    case (.beginsWith, .string(let prefix)):
      return TextBounds(prefix: prefix)
    default:
      return nil
    }
  }
}
