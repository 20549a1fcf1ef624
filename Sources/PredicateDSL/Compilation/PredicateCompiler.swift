/// Turns a predicate tree into nested closures over one kind of object.
///
/// Each node is compiled once: key paths through the resolver, constant
/// subexpressions folded (a failure there is a compile error), comparisons
/// with a constant right side prepared as a ``ValueTest`` and, for the common
/// shapes, fused with the key read into a single closure.
///
/// Generic over the object type only, not the resolver, which the methods
/// that resolve keys take as an argument: the compiler's layout then does
/// not depend on its type parameter, so the unspecialised code that makes
/// and calls one needs no run-time lookup of its metadata (a few hundred
/// instructions a compile).
struct PredicateCompiler<Object>: Sendable {
  let source: String?
  /// The variables bound by the enclosing `SUBQUERY`s, by slot.
  let scope: [String]
  /// Whether comparisons of a key with a constant take the fast path
  /// (``keyConstant(_:_:at:keys:)``); tests turn it off to compare it with the
  /// general path.
  var keyConstantFastPath = true
  /// The budget of each `MATCHES` pattern compiled here
  /// (``PredicateLimits/regexBudget``, clamped). An `Int32` beside the
  /// Boolean keeps the compiler at four words; stored as an `Int`, a fifth
  /// word, it made unspecialised code look up the compiler's metadata:
  /// `compile-two` (Scripts/instruction-baseline.txt) took about 10,000
  /// instructions instead of 8,955.
  var regexBudgetStorage = Int32(PredicateLimits.defaultRegexBudget)

  /// The budget of each `MATCHES` pattern compiled here.
  var regexBudget: Int { Int(regexBudgetStorage) }

  // MARK: Predicates

  func compile<Resolver: KeyResolver<Object>>(
    _ predicate: PredicateSyntax, _ resolver: Resolver
  ) throws(PredicateCompileError) -> Condition<Object> {
    var keys: [String] = []
    return try compile(predicate, resolver, keys: &keys)
  }

  /// Compiles a predicate, handing the resolver the components of each key
  /// compared with a constant in `keys`, one array that every such key of
  /// the predicate reuses (one allocation a compile rather than one a key;
  /// a resolver that keeps a ``KeyPathReference`` keeps its own copy).
  private func compile<Resolver: KeyResolver<Object>>(
    _ predicate: PredicateSyntax, _ resolver: Resolver, keys: inout [String]
  ) throws(PredicateCompileError) -> Condition<Object> {
    switch predicate.kind {
    case .constant(let value):
      return .constant(value)
    case .not(let operand):
      switch try compile(operand, resolver, keys: &keys) {
      case .constant(let value): return .constant(!value)
      case .test(let test, _):
        return .test { object, scope throws(PredicateEvaluationError) in try !test(object, scope) }
      }
    case .and(let operands):
      return try compound(operands, resolver, isConjunction: true, keys: &keys)
    case .or(let operands):
      return try compound(operands, resolver, isConjunction: false, keys: &keys)
    case .comparison:
      if keyConstantFastPath, let parts = predicate.keyConstantParts {
        return try keyConstant(parts, resolver, at: predicate.range, keys: &keys)
      }
      guard case .comparison(let comparison) = predicate.kind else { preconditionFailure("matched above") }
      return try compile(comparison, resolver, at: predicate.range)
    }
  }

  /// `AND` and `OR`, evaluated left to right with short circuits. A constant
  /// operand that decides the result ends the list, so operands before it
  /// still run (and may still throw), as they would in Apple's evaluation,
  /// and operands after it are not compiled.
  private func compound<Resolver: KeyResolver<Object>>(
    _ operands: [PredicateSyntax], _ resolver: Resolver, isConjunction: Bool, keys: inout [String]
  ) throws(PredicateCompileError) -> Condition<Object> {
    try compound(operands[...], resolver, isConjunction: isConjunction, keys: &keys).condition
      ?? .constant(isConjunction)
  }

  /// The operands as a balanced tree of closures over groups of up to five:
  /// no array to walk per evaluation, and none to build while compiling
  /// (appending to an array of a generic element type runs unspecialised
  /// code, hundreds of instructions an append). `condition`
  /// is nil when every operand was the neutral constant; `decided` says a
  /// constant ended the list.
  private func compound<Resolver: KeyResolver<Object>>(
    _ operands: ArraySlice<PredicateSyntax>, _ resolver: Resolver, isConjunction: Bool, keys: inout [String]
  ) throws(PredicateCompileError) -> (condition: Condition<Object>?, decided: Bool) {
    guard operands.count > 5 else { return try group(operands, resolver, isConjunction: isConjunction, keys: &keys) }
    let middle = operands.startIndex + operands.count / 2
    let left = try compound(operands[..<middle], resolver, isConjunction: isConjunction, keys: &keys)
    if left.decided { return left }
    let right = try compound(operands[middle...], resolver, isConjunction: isConjunction, keys: &keys)
    guard let first = left.condition else { return right }
    guard let second = right.condition else { return left }
    return (.test(Self.combine(first, second, isConjunction: isConjunction)), right.decided)
  }

  /// Up to five operands as one closure that calls each in turn: each
  /// closure a conjunction passes through costs a call and its frame on
  /// every evaluation, so ten clauses run through three closures rather
  /// than seven.
  private func group<Resolver: KeyResolver<Object>>(
    _ operands: ArraySlice<PredicateSyntax>, _ resolver: Resolver, isConjunction: Bool, keys: inout [String]
  ) throws(PredicateCompileError) -> (condition: Condition<Object>?, decided: Bool) {
    var first: Test<Object>?
    var second: Test<Object>?
    var third: Test<Object>?
    var fourth: Test<Object>?
    var fifth: Test<Object>?
    // The operands' probes (no tuples: in unspecialised code a tuple of
    // closures over the object type needs its metadata looked up).
    var probe1: Probe<Object>?
    var probe2: Probe<Object>?
    var probe3: Probe<Object>?
    var probe4: Probe<Object>?
    var probe5: Probe<Object>?
    var probed = true
    var count = 0
    var decider: Bool?
    // Through the buffer, and a comparison of a key with a constant read
    // in place for the fast path: passing the operand to `compile` would
    // copy it (retaining everything in it) and destroy the copy.
    try operands.withUnsafeBufferPointer { (operands) throws(PredicateCompileError) in
      for index in operands.indices {
        let compiled =
          if keyConstantFastPath, let parts = operands[index].keyConstantParts {
            try keyConstant(parts, resolver, at: operands[index].range, keys: &keys)
          } else {
            try compile(operands[index], resolver, keys: &keys)
          }
        switch compiled {
        case .constant(let value) where value == isConjunction:
          continue
        case .constant(let value):
          decider = value
        case .test(let test, let probe):
          probed = probed && probe != nil
          switch count {
          case 0:
            first = test
            probe1 = probe
          case 1:
            second = test
            probe2 = probe
          case 2:
            third = test
            probe3 = probe
          case 3:
            fourth = test
            probe4 = probe
          default:
            fifth = test
            probe5 = probe
          }
          count += 1
        }
        if decider != nil { break }
      }
    }
    let condition: Condition<Object>?
    if probed, let first, let probe1, let second, let probe2 {
      condition = .test(
        Self.probedGroup(
          first, probe1, second, probe2, third, probe3, fourth, probe4, fifth, probe5, isConjunction: isConjunction))
    } else if let first, let second, let third, let fourth, let fifth {
      if isConjunction {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          guard try first(object, scope) else { return false }
          guard try second(object, scope) else { return false }
          guard try third(object, scope) else { return false }
          guard try fourth(object, scope) else { return false }
          return try fifth(object, scope)
        }
      } else {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          if try first(object, scope) { return true }
          if try second(object, scope) { return true }
          if try third(object, scope) { return true }
          if try fourth(object, scope) { return true }
          return try fifth(object, scope)
        }
      }
    } else if let first, let second, let third, let fourth {
      if isConjunction {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          guard try first(object, scope) else { return false }
          guard try second(object, scope) else { return false }
          guard try third(object, scope) else { return false }
          return try fourth(object, scope)
        }
      } else {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          if try first(object, scope) { return true }
          if try second(object, scope) { return true }
          if try third(object, scope) { return true }
          return try fourth(object, scope)
        }
      }
    } else if let first, let second, let third {
      if isConjunction {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          guard try first(object, scope) else { return false }
          guard try second(object, scope) else { return false }
          return try third(object, scope)
        }
      } else {
        condition = .test { object, scope throws(PredicateEvaluationError) in
          if try first(object, scope) { return true }
          if try second(object, scope) { return true }
          return try third(object, scope)
        }
      }
    } else if let first, let second {
      condition = .test(Self.combine(.test(first), .test(second), isConjunction: isConjunction))
    } else if let first {
      condition = .test(first, probe: probe1)
    } else {
      condition = nil
    }
    guard let decider else { return (condition, false) }
    guard let condition else { return (.constant(decider), true) }
    return (.test(Self.combine(condition, .constant(decider), isConjunction: isConjunction)), true)
  }

  /// Two operands, the first a test (a constant first operand either
  /// decided the list or was dropped as neutral).
  private static func combine(
    _ first: Condition<Object>, _ second: Condition<Object>, isConjunction: Bool
  ) -> Test<Object> {
    guard case .test(let first, _) = first else { preconditionFailure("a constant first operand is folded away") }
    switch (second, isConjunction) {
    case (.constant(let value), true):
      return { object, scope throws(PredicateEvaluationError) in try first(object, scope) && value }
    case (.constant(let value), false):
      return { object, scope throws(PredicateEvaluationError) in try first(object, scope) || value }
    case (.test(let second, _), true):
      // `&&` and `||` take an untyped autoclosure, so spell out the branches.
      return { object, scope throws(PredicateEvaluationError) in
        guard try first(object, scope) else { return false }
        return try second(object, scope)
      }
    case (.test(let second, _), false):
      return { object, scope throws(PredicateEvaluationError) in
        if try first(object, scope) { return true }
        return try second(object, scope)
      }
    }
  }

  /// Two to five operands that all have probes, as one closure that runs
  /// each operand's probe and only when a probe cannot decide (a value
  /// outside its shortcut) that operand's test: the operands are called
  /// without a forwarding thunk or an error check each. A probe runs the
  /// same shortcut as its test, so the results, the short circuits and the
  /// errors thrown are the tests'.
  private static func probedGroup(
    _ t1: @escaping Test<Object>, _ p1: @escaping Probe<Object>, _ t2: @escaping Test<Object>,
    _ p2: @escaping Probe<Object>,
    _ t3: Test<Object>?, _ p3: Probe<Object>?, _ t4: Test<Object>?, _ p4: Probe<Object>?,
    _ t5: Test<Object>?, _ p5: Probe<Object>?, isConjunction: Bool
  ) -> Test<Object> {
    guard let t3, let p3 else {
      if isConjunction {
        return { object, scope throws(PredicateEvaluationError) in
          if let r1 = p1(object) {
            guard r1 else { return false }
          } else if try !t1(object, scope) {
            return false
          }
          if let r2 = p2(object) { return r2 }
          return try t2(object, scope)
        }
      }
      return { object, scope throws(PredicateEvaluationError) in
        if let r1 = p1(object) {
          if r1 { return true }
        } else if try t1(object, scope) {
          return true
        }
        if let r2 = p2(object) { return r2 }
        return try t2(object, scope)
      }
    }
    // Three or more: one captured struct, which the closure reads in place
    // as it needs each operand (captured one by one, the operands would all
    // be loaded, and spilled, on entry to every call). The unwrapped operands are there by construction:
    // the caller fills them in order, a test with its probe.
    assert((t4 == nil) == (p4 == nil) && (t5 == nil) == (p5 == nil), "a probed operand without its probe")
    assert(t4 != nil || t5 == nil, "operands filled out of order")
    let g = ProbedOperands(t1: t1, p1: p1, t2: t2, p2: p2, t3: t3, p3: p3, t4: t4, p4: p4, t5: t5, p5: p5)
    if t5 != nil, t4 != nil {
      if isConjunction {
        return { [g] object, scope throws(PredicateEvaluationError) in
          if let r1 = g.p1(object) {
            guard r1 else { return false }
          } else if try !g.t1(object, scope) {
            return false
          }
          if let r2 = g.p2(object) {
            guard r2 else { return false }
          } else if try !g.t2(object, scope) {
            return false
          }
          if let r3 = g.p3(object) {
            guard r3 else { return false }
          } else if try !g.t3(object, scope) {
            return false
          }
          if let r4 = g.p4!(object) {
            guard r4 else { return false }
          } else if try !g.t4!(object, scope) {
            return false
          }
          if let r5 = g.p5!(object) { return r5 }
          return try g.t5!(object, scope)
        }
      }
      return { [g] object, scope throws(PredicateEvaluationError) in
        if let r1 = g.p1(object) {
          if r1 { return true }
        } else if try g.t1(object, scope) {
          return true
        }
        if let r2 = g.p2(object) {
          if r2 { return true }
        } else if try g.t2(object, scope) {
          return true
        }
        if let r3 = g.p3(object) {
          if r3 { return true }
        } else if try g.t3(object, scope) {
          return true
        }
        if let r4 = g.p4!(object) {
          if r4 { return true }
        } else if try g.t4!(object, scope) {
          return true
        }
        if let r5 = g.p5!(object) { return r5 }
        return try g.t5!(object, scope)
      }
    }
    if t4 != nil {
      if isConjunction {
        return { [g] object, scope throws(PredicateEvaluationError) in
          if let r1 = g.p1(object) {
            guard r1 else { return false }
          } else if try !g.t1(object, scope) {
            return false
          }
          if let r2 = g.p2(object) {
            guard r2 else { return false }
          } else if try !g.t2(object, scope) {
            return false
          }
          if let r3 = g.p3(object) {
            guard r3 else { return false }
          } else if try !g.t3(object, scope) {
            return false
          }
          if let r4 = g.p4!(object) { return r4 }
          return try g.t4!(object, scope)
        }
      }
      return { [g] object, scope throws(PredicateEvaluationError) in
        if let r1 = g.p1(object) {
          if r1 { return true }
        } else if try g.t1(object, scope) {
          return true
        }
        if let r2 = g.p2(object) {
          if r2 { return true }
        } else if try g.t2(object, scope) {
          return true
        }
        if let r3 = g.p3(object) {
          if r3 { return true }
        } else if try g.t3(object, scope) {
          return true
        }
        if let r4 = g.p4!(object) { return r4 }
        return try g.t4!(object, scope)
      }
    }
    if isConjunction {
      return { [g] object, scope throws(PredicateEvaluationError) in
        if let r1 = g.p1(object) {
          guard r1 else { return false }
        } else if try !g.t1(object, scope) {
          return false
        }
        if let r2 = g.p2(object) {
          guard r2 else { return false }
        } else if try !g.t2(object, scope) {
          return false
        }
        if let r3 = g.p3(object) { return r3 }
        return try g.t3(object, scope)
      }
    }
    return { [g] object, scope throws(PredicateEvaluationError) in
      if let r1 = g.p1(object) {
        if r1 { return true }
      } else if try g.t1(object, scope) {
        return true
      }
      if let r2 = g.p2(object) {
        if r2 { return true }
      } else if try g.t2(object, scope) {
        return true
      }
      if let r3 = g.p3(object) { return r3 }
      return try g.t3(object, scope)
    }
  }

  // MARK: Comparisons

  private func compile<Resolver: KeyResolver<Object>>(
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
  private func compare(
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
  private func keyConstant<Resolver: KeyResolver<Object>>(
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
  private static func fused(
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
  private func direct(
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
  private static func computedMembership(
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
  private func quantified(
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

  // MARK: Expressions

  func compile<Resolver: KeyResolver<Object>>(
    _ expression: ExpressionSyntax, _ resolver: Resolver
  ) throws(PredicateCompileError) -> Operand<Object> {
    let site = Site(range: expression.range, source: source)
    switch expression.kind {
    case .constant(let value):
      return Operand(form: .constant(value))

    case .evaluatedObject:
      let resolved = try resolver.resolveSelf(at: expression.range)
      return Operand(
        form: .read(resolved.read), type: resolved.type, key: "SELF", entity: resolved.entity, fuse: resolved.fuse)

    case .keyPath(let path):
      let components = path.keyPathComponents
      let reference = KeyPathReference(components: components, range: expression.range)
      return keyOperand(path, components, try resolver.resolve(reference), site: site)

    case .variable(let name):
      guard let slot = scope.lastIndex(of: name) else {
        throw PredicateCompileError(.unboundVariable, "no value for variable $\(name)", at: expression.range)
      }
      return Operand(form: .computed { _, scope in scope.bindings[slot] })

    case .member(let base, let path):
      let components = path.keyPathComponents[...]
      return try unary(compile(base, resolver), site: site) { value throws(ValueFault) in try value.applying(components)
      }

    case .index(let base, .at(let index)):
      return try binary(compile(base, resolver), compile(index, resolver), site: site) {
        base, index throws(ValueFault) in
        try Indexing.element(of: base, at: index)
      }

    case .index(let base, let position):
      let type: KeyValueType = position == .size ? .attribute(.integer) : .unknown
      var operand = try unary(compile(base, resolver), site: site) { value throws(ValueFault) in
        try Indexing.apply(position, to: value)
      }
      operand.type = operand.constant == nil ? type : .unknown
      return operand

    case .aggregate(let elements):
      var operands: [Operand<Object>] = []
      for element in elements { operands.append(try compile(element, resolver)) }
      return try nary(operands, site: site) { values throws(ValueFault) in .array(values) }

    case .negation(let operand):
      return try unary(compile(operand, resolver), site: site) { value throws(ValueFault) in
        try Arithmetic.negate(value)
      }

    case .arithmetic(let operation, let lhs, let rhs):
      return try binary(compile(lhs, resolver), compile(rhs, resolver), site: site) { a, b throws(ValueFault) in
        try Arithmetic.apply(operation, a, b)
      }

    case .function(let function, let arguments):
      var operands: [Operand<Object>] = []
      for argument in arguments { operands.append(try compile(argument, resolver)) }
      return try nary(operands, site: site, foldable: FunctionCall.isDeterministic(function)) {
        values throws(ValueFault) in try FunctionCall.apply(function, values)
      }

    case .cast(let operand, let type):
      guard Casting.supportedClasses.contains(type) else {
        throw PredicateCompileError(
          .unsupported,
          "CAST to \"\(type)\" is not supported (supported: \(Casting.supportedClasses.sorted().joined(separator: ", ")))",
          at: expression.range)
      }
      return try unary(compile(operand, resolver), site: site) { value throws(ValueFault) in
        try Casting.cast(value, to: type)
      }

    case .ternary(let condition, let then, let otherwise):
      let (a, b) = (try compile(then, resolver), try compile(otherwise, resolver))
      switch try compile(condition, resolver) {
      case .constant(let value):
        return value ? a : b
      case .test(let test, _):
        let (first, second) = (a.evaluator, b.evaluator)
        return Operand(
          form: .computed { object, scope throws(PredicateEvaluationError) in
            try test(object, scope) ? first(object, scope) : second(object, scope)
          })
      }

    case .subquery(let collection, let variable, let predicate):
      return try subquery(compile(collection, resolver), variable: variable, predicate: predicate, site: site)
    }
  }

  /// A key path's operand, from what the resolver gave for it: its read,
  /// followed by the components the resolver left.
  private func keyOperand(
    _ path: String, _ components: [String], _ resolved: ResolvedKey<Object>, site: Site
  ) -> Operand<Object> {
    let rest = components[resolved.componentCount...]
    if rest.isEmpty {
      return Operand(
        form: .read(resolved.read), type: resolved.type, key: path, entity: resolved.entity, fuse: resolved.fuse)
    }
    let read = resolved.read
    let type: KeyValueType = rest == ["@count"] ? .attribute(.integer) : .unknown
    return Operand(
      form: .computed { object, _ throws(PredicateEvaluationError) in
        let value = read(object)
        return try site.run { () throws(ValueFault) in try value.applying(rest) }
      }, type: type, key: path, entity: resolved.entity)
  }

  /// `SUBQUERY(collection, $x, predicate)`: the predicate runs on each
  /// element (key paths in it read the element; `$x` is the element too), and
  /// the elements for which it holds form the result.
  private func subquery(
    _ collection: Operand<Object>, variable: String, predicate: PredicateSyntax, site: Site
  ) throws(PredicateCompileError) -> Operand<Object> {
    let inner = PredicateCompiler<FilterValue>(
      source: source, scope: scope + [variable], keyConstantFastPath: keyConstantFastPath,
      regexBudgetStorage: regexBudgetStorage)
    let condition = try inner.compile(predicate, RecordKeyResolver())
    let slot = scope.count
    let elementsOf = collection.evaluator
    return Operand(
      form: .computed { object, scope throws(PredicateEvaluationError) in
        let value = try elementsOf(object, scope)
        guard let elements = value.collectionElements else {
          throw site.evaluationError(
            ValueFault(
              .notACollection, "SUBQUERY needs a collection, found \(value.typeName) \(value.shortDescription)"))
        }
        switch condition {
        case .constant(let keep):
          return .array(keep ? elements : [])
        case .test(let test, _):
          var local = scope
          local.bindings.append(.null)
          var kept: [FilterValue] = []
          for element in elements {
            local.bindings[slot] = element
            if try test(element, local) { kept.append(element) }
          }
          return .array(kept)
        }
      })
  }

  // MARK: Folding

  private func unary(
    _ operand: Operand<Object>, site: Site,
    _ operation: @escaping @Sendable (FilterValue) throws(ValueFault) -> FilterValue
  ) throws(PredicateCompileError) -> Operand<Object> {
    if let value = operand.constant {
      return Operand(form: .constant(try site.fold { () throws(ValueFault) in try operation(value) }))
    }
    let evaluate = operand.evaluator
    return Operand(
      form: .computed { object, scope throws(PredicateEvaluationError) in
        let value = try evaluate(object, scope)
        return try site.run { () throws(ValueFault) in try operation(value) }
      })
  }

  private func binary(
    _ lhs: Operand<Object>, _ rhs: Operand<Object>, site: Site,
    _ operation: @escaping @Sendable (FilterValue, FilterValue) throws(ValueFault) -> FilterValue
  ) throws(PredicateCompileError) -> Operand<Object> {
    if let a = lhs.constant, let b = rhs.constant {
      return Operand(form: .constant(try site.fold { () throws(ValueFault) in try operation(a, b) }))
    }
    let (left, right) = (lhs.evaluator, rhs.evaluator)
    return Operand(
      form: .computed { object, scope throws(PredicateEvaluationError) in
        let a = try left(object, scope)
        let b = try right(object, scope)
        return try site.run { () throws(ValueFault) in try operation(a, b) }
      })
  }

  private func nary(
    _ operands: [Operand<Object>], site: Site, foldable: Bool = true,
    _ operation: @escaping @Sendable ([FilterValue]) throws(ValueFault) -> FilterValue
  ) throws(PredicateCompileError) -> Operand<Object> {
    let constants = operands.compactMap(\.constant)
    if foldable, constants.count == operands.count {
      return Operand(form: .constant(try site.fold { () throws(ValueFault) in try operation(constants) }))
    }
    let evaluators = operands.map(\.evaluator)
    return Operand(
      form: .computed { object, scope throws(PredicateEvaluationError) in
        var values: [FilterValue] = []
        values.reserveCapacity(evaluators.count)
        for evaluate in evaluators { values.append(try evaluate(object, scope)) }
        return try site.run { () throws(ValueFault) in try operation(values) }
      })
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

/// The operands of a probed group of three to five, captured as one value.
struct ProbedOperands<Object>: Sendable {
  let t1: Test<Object>
  let p1: Probe<Object>
  let t2: Test<Object>
  let p2: Probe<Object>
  let t3: Test<Object>
  let p3: Probe<Object>
  let t4: Test<Object>?
  let p4: Probe<Object>?
  let t5: Test<Object>?
  let p5: Probe<Object>?
}
