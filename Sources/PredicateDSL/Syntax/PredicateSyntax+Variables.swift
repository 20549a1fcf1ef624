extension PredicateSyntax {
  /// The names of the `$VARIABLES` the predicate uses and does not bind
  /// itself (a `SUBQUERY` binds its own variable), without the `$`.
  ///
  /// ```swift
  /// let syntax = try PredicateSyntax(parsing: "age > $minimum AND name == $name")
  /// syntax.variables  // ["minimum", "name"]
  /// ```
  public var variables: Set<String> {
    var names: Set<String> = []
    collectVariables(into: &names, bound: [])
    return names
  }

  /// A copy with the given variables replaced by constants, as Apple's
  /// `withSubstitutionVariables(_:)` does.
  ///
  /// Variables without a value stay as they are; evaluation reports them.
  /// Variables bound by a `SUBQUERY` inside the predicate are never
  /// replaced. The result is in canonical form, so an aggregate whose
  /// elements all became constants is a constant array, and it prints and
  /// parses back like any parsed predicate.
  ///
  /// ```swift
  /// let template = try PredicateSyntax(parsing: "age BETWEEN {$low, $high}")
  /// let adults = template.substituting(["low": 18, "high": 65])
  /// print(adults)  // age BETWEEN {18, 65}
  /// ```
  ///
  /// - Parameter values: The value of each variable, by name without `$`.
  /// - Returns: The predicate with the variables replaced.
  /// - Complexity: O(*n*) in the size of the tree.
  public func substituting(_ values: [String: FilterValue]) -> PredicateSyntax {
    guard !values.isEmpty else { return self }
    return substituting(values, bound: [])
  }

  func substituting(_ values: [String: FilterValue], bound: Set<String>) -> PredicateSyntax {
    var copy = self
    switch kind {
    case .constant:
      return self
    case .comparison(var comparison):
      comparison.lhs = comparison.lhs.substituting(values, bound: bound)
      comparison.rhs = comparison.rhs.substituting(values, bound: bound)
      copy.kind = .comparison(comparison)
    case .not(let operand):
      copy.kind = .not(operand.substituting(values, bound: bound))
    case .and(let operands):
      copy.kind = .and(operands.map { $0.substituting(values, bound: bound) })
    case .or(let operands):
      copy.kind = .or(operands.map { $0.substituting(values, bound: bound) })
    }
    return copy
  }

  func collectVariables(into names: inout Set<String>, bound: Set<String>) {
    switch kind {
    case .constant:
      break
    case .comparison(let comparison):
      comparison.lhs.collectVariables(into: &names, bound: bound)
      comparison.rhs.collectVariables(into: &names, bound: bound)
    case .not(let operand):
      operand.collectVariables(into: &names, bound: bound)
    case .and(let operands), .or(let operands):
      for operand in operands { operand.collectVariables(into: &names, bound: bound) }
    }
  }
}

extension ExpressionSyntax {
  func substituting(_ values: [String: FilterValue], bound: Set<String>) -> ExpressionSyntax {
    let range = self.range
    switch kind {
    case .constant, .evaluatedObject, .keyPath:
      return self
    case .variable(let name):
      guard !bound.contains(name), let value = values[name] else { return self }
      return ExpressionSyntax(.constant(value), range: range)
    case .member(let base, let path):
      return .member(base.substituting(values, bound: bound), path, range: range)
    case .index(let base, let subscriptValue):
      let newSubscript: Subscript =
        if case .at(let index) = subscriptValue {
          .at(index.substituting(values, bound: bound))
        } else {
          subscriptValue
        }
      return ExpressionSyntax(
        .index(base: base.substituting(values, bound: bound), newSubscript), range: range)
    case .aggregate(let elements):
      return .aggregate(elements.map { $0.substituting(values, bound: bound) }, range: range)
    case .negation(let operand):
      return ExpressionSyntax(.negation(operand.substituting(values, bound: bound)), range: range)
    case .arithmetic(let op, let lhs, let rhs):
      return ExpressionSyntax(
        .arithmetic(op, lhs.substituting(values, bound: bound), rhs.substituting(values, bound: bound)),
        range: range)
    case .function(let function, let arguments):
      return ExpressionSyntax(
        .function(function, arguments.map { $0.substituting(values, bound: bound) }), range: range)
    case .cast(let value, let type):
      return .cast(value.substituting(values, bound: bound), to: type, range: range)
    case .subquery(let collection, let variable, let predicate):
      return ExpressionSyntax(
        .subquery(
          collection.substituting(values, bound: bound), variable: variable,
          predicate.substituting(values, bound: bound.union([variable]))),
        range: range)
    case .ternary(let condition, let whenTrue, let whenFalse):
      return ExpressionSyntax(
        .ternary(
          condition.substituting(values, bound: bound), whenTrue.substituting(values, bound: bound),
          whenFalse.substituting(values, bound: bound)),
        range: range)
    }
  }

  func collectVariables(into names: inout Set<String>, bound: Set<String>) {
    switch kind {
    case .constant, .evaluatedObject, .keyPath:
      break
    case .variable(let name):
      if !bound.contains(name) { names.insert(name) }
    case .member(let base, _):
      base.collectVariables(into: &names, bound: bound)
    case .index(let base, let subscriptValue):
      base.collectVariables(into: &names, bound: bound)
      if case .at(let index) = subscriptValue { index.collectVariables(into: &names, bound: bound) }
    case .aggregate(let elements), .function(_, let elements):
      for element in elements { element.collectVariables(into: &names, bound: bound) }
    case .negation(let operand), .cast(let operand, _):
      operand.collectVariables(into: &names, bound: bound)
    case .arithmetic(_, let lhs, let rhs):
      lhs.collectVariables(into: &names, bound: bound)
      rhs.collectVariables(into: &names, bound: bound)
    case .subquery(let collection, let variable, let predicate):
      collection.collectVariables(into: &names, bound: bound)
      predicate.collectVariables(into: &names, bound: bound.union([variable]))
    case .ternary(let condition, let whenTrue, let whenFalse):
      condition.collectVariables(into: &names, bound: bound)
      whenTrue.collectVariables(into: &names, bound: bound)
      whenFalse.collectVariables(into: &names, bound: bound)
    }
  }
}
