extension PredicateSyntax {
  /// A direct comparison of a whole key path with a constant, taken apart:
  /// the shape of most comparisons, which the compiler fuses with the key's
  /// read and the watcher and fetches serve from their indexes.
  /// (A struct, not a tuple: an optional tuple is destroyed through its
  /// type's metadata.)
  @usableFromInline
  package struct KeyConstantComparison {
    /// The key path, its components joined by dots.
    @usableFromInline package var keyPath: String
    /// Where the key path is in the text.
    @usableFromInline package var keyRange: SyntaxRange
    /// The constant compared with the key path.
    @usableFromInline package var constant: FilterValue
    /// The operator as written.
    @usableFromInline package var `operator`: ComparisonSyntax.Operator
    /// The comparison's options, as written.
    @usableFromInline package var options: ComparisonSyntax.Options
    /// Whether the constant is written first (`30 < age`); the operator
    /// then has a mirror image (``ComparisonSyntax/Operator/mirrored``).
    @usableFromInline package var constantFirst: Bool

    /// The operator read with the key first: `30 < age` is `age > 30`. The
    /// one place a comparison written constant first is turned round, for
    /// the compiler, the watcher's range indexes and the object graph's
    /// indexed fetches and filters.
    @inlinable
    package var keyFirstOperator: ComparisonSyntax.Operator {
      // A constant comes first only before an operator with a mirror image.
      constantFirst ? `operator`.mirrored.unsafelyUnwrapped : `operator`
    }

    /// The parts, as ``PredicateSyntax/keyConstantParts`` finds them.
    @usableFromInline
    package init(
      keyPath: String, keyRange: SyntaxRange, constant: FilterValue, operator: ComparisonSyntax.Operator,
      options: ComparisonSyntax.Options, constantFirst: Bool
    ) {
      self.keyPath = keyPath
      self.keyRange = keyRange
      self.constant = constant
      self.operator = `operator`
      self.options = options
      self.constantFirst = constantFirst
    }
  }

  /// The parts of a direct comparison of a key path with a constant (either
  /// way round; a constant first only before an operator with a mirror
  /// image, so not `'a' IN names`), read in place: matching
  /// `case .comparison(let comparison) = kind` from another module copies
  /// the whole comparison and its operands. Nil for any other predicate,
  /// and for the UTI operators. The one test of this shape: the compiler's
  /// fast path, the watcher's indexes and indexed fetches all go through it.
  @inlinable @inline(__always)
  package var keyConstantParts: KeyConstantComparison? {
    // Nested switches whose cases use what they bind in place: `guard
    // case` bindings copied the operands.
    switch kind {
    case .comparison(let comparison):
      guard comparison.quantifier == .direct else { return nil }
      let operation = comparison.operator
      if operation == .utiConformsTo || operation == .utiEquals { return nil }
      switch comparison.lhs.kind {
      case .keyPath(let key):
        switch comparison.rhs.kind {
        case .constant(let value):
          return KeyConstantComparison(
            keyPath: key, keyRange: comparison.lhs.range, constant: value, operator: operation,
            options: comparison.options, constantFirst: false)
        default: return nil
        }
      case .constant(let value):
        guard operation.mirrored != nil else { return nil }
        switch comparison.rhs.kind {
        case .keyPath(let key):
          return KeyConstantComparison(
            keyPath: key, keyRange: comparison.rhs.range, constant: value, operator: operation,
            options: comparison.options, constantFirst: true)
        default: return nil
        }
      default:
        return nil
      }
    default:
      return nil
    }
  }

  /// ``keyConstantParts`` of a comparison without options: the comparisons
  /// an index of exact values or ranges can serve.
  @inlinable
  package var keyConstantComparison: KeyConstantComparison? {
    guard let parts = keyConstantParts, parts.options.isEmpty else { return nil }
    return parts
  }

  /// How many conjuncts the predicate has at its top: an AND's operands,
  /// else one, the predicate itself.
  @inlinable
  package var conjunctCount: Int {
    switch kind {
    case .and(let operands): operands.count
    default: 1
    }
  }

  /// ``keyConstantComparison`` of the top conjunct at `position` (below
  /// ``conjunctCount``), read in place: an operand taken out of the AND by
  /// another module is copied whole.
  @inlinable
  package func keyConstantComparison(ofConjunct position: Int) -> KeyConstantComparison? {
    switch kind {
    case .and(let operands): operands[position].keyConstantComparison
    default: keyConstantComparison
    }
  }
}
