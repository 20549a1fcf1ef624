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
  func compile<Resolver: KeyResolver<Object>>(
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
  func compound<Resolver: KeyResolver<Object>>(
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
  func compound<Resolver: KeyResolver<Object>>(
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
  func group<Resolver: KeyResolver<Object>>(
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
  static func combine(
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
  static func probedGroup(
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
}
