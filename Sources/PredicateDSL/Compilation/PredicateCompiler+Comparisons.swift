// The compiler's comparisons: key against constant (fused when it can be),
// direct, and quantified.

extension PredicateCompiler {
  func compile<Resolver: KeyResolver<Object>>(
    _ comparison: ComparisonSyntax, _ resolver: Resolver, at range: SyntaxRange
  ) throws(PredicateCompileError) -> Condition<Object> {
    let site = Site(range: range, source: source)
    let operation = comparison.operator
    let options = comparison.options
    if operation == .utiConformsTo || operation == .utiEquals {
      throw PredicateCompileError(.unsupported, "\(operation.text) is only available on Apple platforms", at: range)
    }
    let lhs = try compile(comparison.lhs, resolver)
    let rhs = try compile(comparison.rhs, resolver)
    return try compare(lhs, operation, options: options, quantifier: comparison.quantifier, rhs, site: site)
  }

  /// A comparison of compiled operands, in the order written: type-checked,
  /// then quantified or direct.
  func compare(
    _ lhs: Operand<Object>, _ operation: ComparisonSyntax.Operator, options: ComparisonSyntax.Options,
    quantifier: ComparisonSyntax.Quantifier, _ rhs: Operand<Object>, site: Site
  ) throws(PredicateCompileError) -> Condition<Object> {
    try TypeCheck.check(operation, quantifier, lhs.side, rhs.side, at: site.range)
    guard quantifier == .direct else {
      return try quantified(operation, options: options, quantifier: quantifier, lhs, rhs, site: site)
    }
    if lhs.constant != nil, rhs.constant == nil, let mirror = operation.mirrored {
      // `30 < age` runs as `age > 30`, so it takes the fast paths. The
      // operands are passed in the other order rather than swapped: `swap`
      // on them is an unspecialised generic call that needs `Operand<…>`'s
      // metadata, a run-time lookup of a few hundred instructions.
      return try direct(mirror, options: options, rhs, lhs, site: site)
    }
    return try direct(operation, options: options, lhs, rhs, site: site)
  }

  /// A direct comparison of a key path with a constant, the shape of most
  /// comparisons, without building an ``Operand`` for either side: the key
  /// is resolved, type-checked against the constant and fused with its
  /// prepared test here. In unspecialised code every `Operand<Object>`
  /// needs its metadata looked up (a few hundred instructions) and goes
  /// through value witnesses to be copied and destroyed. A resolver that
  /// covers only part of the path goes on through the general path, with
  /// the key it resolved. The results, and the errors and their order, are
  /// those of the general path.
  func keyConstant<Resolver: KeyResolver<Object>>(
    _ parts: consuming PredicateSyntax.KeyConstantComparison, _ resolver: Resolver, at range: SyntaxRange,
    keys: inout [String]
  ) throws(PredicateCompileError) -> Condition<Object> {
    let site = Site(range: range, source: source)
    parts.keyPath.storeKeyPathComponents(in: &keys)
    let resolved = try resolver.resolve(KeyPathReference(components: keys, range: parts.keyRange))
    guard resolved.componentCount == keys.count else {
      let key = keyOperand(parts.keyPath, keys, resolved, site: Site(range: parts.keyRange, source: source))
      let constant = Operand<Object>(form: .constant(parts.constant))
      return parts.constantFirst
        ? try compare(constant, parts.operator, options: parts.options, quantifier: .direct, key, site: site)
        : try compare(key, parts.operator, options: parts.options, quantifier: .direct, constant, site: site)
    }
    if case .unknown = resolved.type {
      // Nothing to check: the constant alone has no type to disagree with.
    } else {
      let key = TypeCheck.Side(type: resolved.type, key: parts.keyPath, entity: resolved.entity)
      let constant = TypeCheck.Side(constant: parts.constant)
      if parts.constantFirst {
        try TypeCheck.check(parts.operator, .direct, constant, key, at: range)
      } else {
        try TypeCheck.check(parts.operator, .direct, key, constant, at: range)
      }
    }
    // `30 < age` runs as `age > 30`.
    let operation = parts.keyFirstOperator
    // The closures capture the budget, not `self`: capturing the generic
    // compiler costs unspecialised code a run-time metadata lookup.
    let budget = regexBudget
    let test = try site.fold { () throws(ValueFault) in
      try ValueTest.make(operation, options: parts.options, constant: parts.constant, regexBudget: budget)
    }
    return Self.fused(resolved.reader, resolved.fuse, test, site: site)
  }

  /// A key's read fused with its test, by the key's fuse hook (built in the
  /// resolver's module, around its ``KeyReader``, with a probe) or else
  /// around the read closure: both are ``FusedComparison``, the one
  /// definition of the fused shortcuts. A closure key keeps no probe: its
  /// read is a call either way, and groups of its comparisons call their
  /// tests alone, which the differential tests hold the probed groups to.
  static func fused(
    _ read: @escaping @Sendable (Object) -> FilterValue, _ fuse: FuseHook<Object>?, _ test: ValueTest, site: Site
  ) -> Condition<Object> {
    var probe: Probe<Object>?
    if let fuse {
      let fused = fuse(test.fast, test.general, site, &probe)
      return .test(fused, probe: probe)
    }
    return .test(FusedComparison.make(ClosureKeyReader(read), test.fast, test.general, site, probe: &probe))
  }

  /// A comparison without a quantifier, its operands in the order compared.
  func direct(
    _ direct: ComparisonSyntax.Operator, options: ComparisonSyntax.Options,
    _ lhs: Operand<Object>, _ rhs: Operand<Object>, site: Site
  ) throws(PredicateCompileError) -> Condition<Object> {
    let budget = regexBudget  // captured instead of `self`, as in keyConstant
    switch (lhs.form, rhs.form) {
    case (.constant(let left), .constant(let right)):
      return .constant(
        try site.fold { () throws(ValueFault) in
          try ValueTest.apply(direct, options: options, left, right, regexBudget: budget)
        })
    case (.read(let read), .constant(let right)):
      let test = try site.fold { () throws(ValueFault) in
        try ValueTest.make(direct, options: options, constant: right, regexBudget: budget)
      }
      return Self.fused(read, lhs.fuse, test, site: site)
    case (_, .constant(let right)):
      let test = try site.fold { () throws(ValueFault) in
        try ValueTest.make(direct, options: options, constant: right, regexBudget: budget)
      }
      let general = GeneralTest(test.general, site: site)
      let evaluate = lhs.evaluator
      return .test { object, scope throws(PredicateEvaluationError) in try general(evaluate(object, scope)) }
    default:
      let (left, right) = (lhs.evaluator, rhs.evaluator)
      return .test { object, scope throws(PredicateEvaluationError) in
        let a = try left(object, scope)
        let b = try right(object, scope)
        return try site.run { () throws(ValueFault) in
          try ValueTest.apply(direct, options: options, a, b, regexBudget: budget)
        }
      }
    }
  }

  /// `element IN collection` for each of `count` elements against a
  /// collection computed for this object, as a hashed set when both are
  /// longer than a scan is cheap; nil when scanning is as good, or the
  /// right side is not a collection (the scan then reports it).
  static func computedMembership(
    _ operation: ComparisonSyntax.Operator, options: ComparisonSyntax.Options, _ count: Int, _ other: FilterValue
  ) -> ValueTest? {
    guard operation == .in, count > 4, let candidates = other.collectionElements, candidates.count > 8 else {
      return nil
    }
    let set = MembershipSet(candidates, folding: StringFolding(options))
    return ValueTest { element in !element.isNull && set.contains(element) }
  }

  /// `ANY`, `ALL` and `NONE`: the comparison applied to each element of the
  /// left side, which must be a collection (nil counts as empty).
  func quantified(
    _ operation: ComparisonSyntax.Operator, options: ComparisonSyntax.Options, quantifier: ComparisonSyntax.Quantifier,
    _ lhs: Operand<Object>, _ rhs: Operand<Object>, site: Site
  ) throws(PredicateCompileError) -> Condition<Object> {
    let collection = lhs.evaluator
    let budget = regexBudget  // captured instead of `self`, as in keyConstant
    let prepared: ValueTest? =
      if let constant = rhs.constant {
        try site.fold { () throws(ValueFault) in
          try ValueTest.make(operation, options: options, constant: constant, regexBudget: budget)
        }
      } else { nil }
    let right = rhs.evaluator
    return .test { object, scope throws(PredicateEvaluationError) in
      let value = try collection(object, scope)
      let other = prepared == nil ? try right(object, scope) : .null
      return try site.run { () throws(ValueFault) in
        guard let elements = value.collectionElements else {
          throw ValueFault(
            .notACollection,
            "\(quantifier.keyword) needs a collection, found \(value.typeName) \(value.shortDescription)")
        }
        // A computed right side is applied element by element, so that a nil
        // element is false before the right side's type is looked at. A
        // computed collection on the right of `IN` is hashed once when both
        // sides are long: O(n + m), not O(n·m).
        let test =
          prepared
          ?? Self.computedMembership(operation, options: options, elements.count, other)
          ?? ValueTest { element throws(ValueFault) in
            try ValueTest.apply(operation, options: options, element, other, regexBudget: budget)
          }
        switch quantifier {
        case .all:
          for element in elements where try !test.run(element) { return false }
          return true
        case .none:
          for element in elements where try test.run(element) { return false }
          return true
        default:
          for element in elements where try test.run(element) { return true }
          return false
        }
      }
    }
  }
}

extension ComparisonSyntax.Quantifier {
  /// The keyword as printed: `ANY`, `ALL`, `NONE`; empty for a direct comparison.
  var keyword: String {
    switch self {
    case .direct: ""
    case .any: "ANY"
    case .all: "ALL"
    case .none: "NONE"
    }
  }
}
