import PredicateDSL

/// Conjuncts of the form `attribute <operator> constant`, evaluated on an
/// object's values directly, without compiling a predicate: what an indexed
/// fetch runs on each candidate when every conjunct after the indexed one
/// has this form (`city == %@ AND age > %@`).
///
/// A comparison qualifies when it has no options, compares an attribute of
/// the entity (not a key path through a relationship) with a constant,
/// either way round, by `==`, `!=`, `<`, `<=`, `>` or `>=`, and the constant
/// is not nil and has the attribute's type (an integer for a double); an
/// ordering also needs an ordered type (integer, double, date, string).
/// Such a comparison always compiles, and is evaluated here with the
/// functions the compiled predicate uses for it (`isEqual:` and `compare:`
/// semantics, `FilterValue.predicateEqual` and `FilterValue.predicateOrder`),
/// so the outcome is the compiled predicate's. Stored values have their
/// attribute's type or are nil, so an ordering never meets the type error a
/// compiled predicate would raise.
struct AttributeComparisons {
  /// One comparison: the attribute's slot, the test, the constant as
  /// written.
  struct Comparison {
    let slot: Int
    let test: Test
    let constant: FilterValue
  }

  /// What a comparison accepts.
  enum Test {
    case equal
    case notEqual
    /// An ordering: which signs of `compare(value, constant)` it accepts.
    case order(less: Bool, same: Bool, greater: Bool)
  }

  let comparisons: [Comparison]

  /// The conjuncts of `predicate` from `first` on, or nil when one of them
  /// does not qualify.
  init?(_ predicate: PredicateSyntax, from first: Int, layout: EntityLayout) {
    var comparisons: [Comparison] = []
    for position in first..<predicate.conjunctCount {
      guard let comparison = predicate.keyConstantComparison(ofConjunct: position),
        case .attribute(let slot)? = layout.slot(comparison.keyPath),
        let test = Self.test(
          comparison.keyFirstOperator, comparing: layout.attributes[slot].type, with: comparison.constant)
      else { return nil }
      comparisons.append(Comparison(slot: slot, test: test, constant: comparison.constant))
    }
    self.comparisons = comparisons
  }

  /// The test for `value <operation> constant` on an attribute of `type`,
  /// or nil when the comparison does not qualify.
  private static func test(
    _ operation: ComparisonSyntax.Operator, comparing type: AttributeType, with constant: FilterValue
  ) -> Test? {
    switch (type, constant) {
    case (.string, .string), (.integer, .int), (.double, .double), (.double, .int), (.date, .date),
      (.boolean, .bool), (.uuid, .uuid), (.data, .data):
      break
    default:
      return nil
    }
    switch operation {
    case .equal: return .equal
    case .notEqual: return .notEqual
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      guard type.isOrdered else { return nil }
      return .order(
        less: operation == .less || operation == .lessOrEqual,
        same: operation == .lessOrEqual || operation == .greaterOrEqual,
        greater: operation == .greater || operation == .greaterOrEqual)
    default: return nil
    }
  }

  /// Whether `object` passes every comparison of `comparisons`, tried in
  /// order. (A buffer, not the array: iterating an array held in a value
  /// retains its storage, an atomic operation per candidate.)
  @inline(__always)
  static func evaluate(_ comparisons: UnsafeBufferPointer<Comparison>, on object: ManagedObject) -> Bool {
    for index in comparisons.indices {
      // An unchecked read (the buffer checks bounds in debug builds
      // only): an object's values hold one value per attribute of its
      // entity, and the compared slots are attributes of the fetched
      // entity, whose sub-entities keep its attributes at its slots. Not
      // reading the count spares its cache line; copying the value out
      // before comparing spares a retain of the array.
      let value = object.values.withUnsafeBufferPointer { $0[comparisons[index].slot] }
      switch comparisons[index].test {
      case .equal:
        guard FilterValue.predicateEqual(value, comparisons[index].constant) else { return false }
      case .notEqual:
        guard !FilterValue.predicateEqual(value, comparisons[index].constant) else { return false }
      case .order(let less, let same, let greater):
        let sign: Int?
        if case .int(let a) = value, case .int(let b) = comparisons[index].constant {
          sign = a < b ? -1 : (a == b ? 0 : 1)
        } else {
          // Nil for a nil value or a NaN: no ordering accepts it. A type
          // error cannot occur (see the type's comment); were it to, the
          // value would not match.
          sign = (try? FilterValue.predicateOrder(value, comparisons[index].constant)) ?? nil
        }
        guard let sign, sign < 0 ? less : (sign == 0 ? same : greater) else { return false }
      }
    }
    return true
  }

  /// Reads the first and last byte of each compared value of `object`:
  /// the cache lines ``evaluate(_:on:)`` reads, and no other. The sum,
  /// only so that the loads are kept.
  @inline(__always)
  static func touch(_ comparisons: UnsafeBufferPointer<Comparison>, _ object: ManagedObject) -> Int {
    object.values.withUnsafeBufferPointer { values in
      var sum = 0
      for index in comparisons.indices {
        let value = UnsafeRawPointer(values.baseAddress! + comparisons[index].slot)
        sum &+=
          Int(value.load(as: UInt8.self))
          &+ Int(value.load(fromByteOffset: MemoryLayout<FilterValue>.size - 1, as: UInt8.self))
      }
      return sum
    }
  }
}
