// The compiler's expressions: operands, key paths, subqueries, and the
// folding of constant operations.

extension PredicateCompiler {
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
  func keyOperand(
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
  func subquery(
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

  func unary(
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

  func binary(
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

  func nary(
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
