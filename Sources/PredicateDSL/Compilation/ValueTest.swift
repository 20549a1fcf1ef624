/// A comparison with its right side fixed: the test a compiled predicate runs
/// on the left side's value.
///
/// The compiler builds one per comparison whose right side is constant, doing
/// the expensive work once: folding `[cd]` needles, compiling `LIKE` and
/// `MATCHES` patterns, hashing `IN` lists. Comparisons whose right side is
/// computed build one per evaluation, so both paths share their semantics.
@usableFromInline
struct ValueTest: Sendable {
  /// A general test: whether a left value passes.
  @usableFromInline
  typealias Run = @Sendable (FilterValue) throws(ValueFault) -> Bool

  /// The general test, for any left value.
  let general: General
  /// A shortcut the compiler fuses with the key read, for the common shapes.
  let fast: Fast

  @usableFromInline
  enum Fast: Sendable {
    case none
    /// An integer left side against an integer constant.
    case integer(ComparisonSyntax.Operator, Int64)
    /// An integer left side within inclusive integer bounds.
    case integerRange(Int64, Int64)
    /// A string left side against a prepared text test, possibly negated.
    case text(ConstantTextTest, negated: Bool)
    /// A string left side against a `LIKE` pattern.
    case like(LikePattern)
    /// A Boolean left side against a Boolean constant, possibly negated.
    case boolean(Bool, negated: Bool)
    /// A double left side against a double constant.
    case real(ComparisonSyntax.Operator, Double)
    /// A string left side in a short list of strings, compared literally.
    case textList(TextList)
  }

  /// The general test: the common shapes as values, so that preparing
  /// them allocates nothing (a closure's context is an allocation, and
  /// freeing it another), any other as a closure.
  @usableFromInline
  enum General: Sendable {
    /// `==` (or `!=`, negated) against a constant: `isEqual:`.
    case equal(FilterValue, negated: Bool)
    /// An ordering against a constant that is not a folded string.
    case order(Ordering, FilterValue)
    /// `==` (or `!=`) against a string: a string left side compared with
    /// the prepared needle, any other value unequal.
    case textEqual(ConstantTextTest, negated: Bool)
    /// `BEGINSWITH` or `ENDSWITH` against a string: nil is false, any
    /// other value but a string a type error.
    case substring(ConstantTextTest, ComparisonSyntax.Operator)
    /// Any other test.
    case closure(Run)

    /// Whether `value` passes.
    func run(_ value: FilterValue) throws(ValueFault) -> Bool {
      switch self {
      case .equal(let constant, let negated):
        return FilterValue.predicateEqual(value, constant) != negated
      case .order(let accept, let constant):
        return try FilterValue.predicateOrder(value, constant).map { accept($0) } ?? false
      case .textEqual(let text, let negated):
        if case .string(let subject) = value { return text.matches(subject) != negated }
        return negated
      case .substring(let text, let operation):
        switch value {
        case .string(let subject): return text.matches(subject)
        case .null: return false
        default:
          throw .typeMismatch("\(operation.text) needs a string, found \(value.typeName) \(value.shortDescription)")
        }
      case .closure(let run):
        return try run(value)
      }
    }
  }

  init(fast: Fast = .none, _ run: @escaping @Sendable (FilterValue) throws(ValueFault) -> Bool) {
    self.general = .closure(run)
    self.fast = fast
  }

  init(fast: Fast, general: General) {
    self.general = general
    self.fast = fast
  }

  /// Whether `value` passes the general test.
  func run(_ value: FilterValue) throws(ValueFault) -> Bool {
    try general.run(value)
  }

  static let alwaysFalse = ValueTest { _ in false }

  /// Prepares `value <operator> constant`.
  ///
  /// - Throws: ``ValueFault`` when the constant cannot take part in the
  ///   comparison at all: a `BEGINSWITH` needle that is a number, an invalid
  ///   regular expression, `BETWEEN` bounds that are not two values.
  static func make(
    _ operation: ComparisonSyntax.Operator, options: ComparisonSyntax.Options, constant: FilterValue,
    regexBudget: Int
  ) throws(ValueFault) -> ValueTest {
    let folding = StringFolding(options)
    switch operation {
    case .equal, .notEqual:
      let negated = operation == .notEqual
      switch constant {
      case .string(let needle):
        let text = ConstantTextTest(.equal, needle: needle, folding: folding)
        return ValueTest(fast: .text(text, negated: negated), general: .textEqual(text, negated: negated))
      case .int(let int):
        return ValueTest(fast: .integer(operation, int), general: .equal(constant, negated: negated))
      case .double(let double):
        return ValueTest(fast: .real(operation, double), general: .equal(constant, negated: negated))
      case .bool(let bool):
        return ValueTest(fast: .boolean(bool, negated: negated), general: .equal(constant, negated: negated))
      default:
        return ValueTest { value in
          equal(value, constant, folding: folding) != negated
        }
      }

    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      if constant.isNull { return .alwaysFalse }
      let accept = Ordering(operation)
      if case .string(let text) = constant, let folding {
        let folded = folding.fold(text)
        return ValueTest { value throws(ValueFault) in
          if case .string(let subject) = value {
            return accept(TextComparison.literalOrder(folding.fold(subject), folded))
          }
          return try FilterValue.predicateOrder(value, constant).map { accept($0) } ?? false
        }
      }
      let fast: Fast =
        switch constant {
        case .int(let int): .integer(operation, int)
        case .double(let double): .real(operation, double)
        default: .none
        }
      return ValueTest(fast: fast, general: .order(accept, constant))

    case .beginsWith, .endsWith, .contains:
      if constant.isNull { return .alwaysFalse }
      guard case .string(let needle) = constant else {
        guard operation == .contains else {
          throw .typeMismatch(
            "\(operation.text) needs a string, found \(constant.typeName) \(constant.shortDescription)")
        }
        return membershipTest(constant, folding: folding)
      }
      let kind: TextComparison.SubstringOperation =
        switch operation {
        case .beginsWith: .prefix
        case .endsWith: .suffix
        default: .contains
        }
      let text = ConstantTextTest(kind, needle: needle, folding: folding)
      if operation != .contains {
        return ValueTest(fast: .text(text, negated: false), general: .substring(text, operation))
      }
      let membership = membershipTest(constant, folding: folding)
      return ValueTest(fast: .text(text, negated: false)) { value throws(ValueFault) in
        switch value {
        case .string(let subject): return text.matches(subject)
        case .null: return false
        default:
          return try membership.run(value)
        }
      }

    case .like, .matches:
      if constant.isNull { return .alwaysFalse }
      guard case .string(let pattern) = constant else {
        throw .typeMismatch(
          "\(operation.text) needs a string pattern, found \(constant.typeName) \(constant.shortDescription)")
      }
      let name = operation.text
      if operation == .like {
        let like = LikePattern(pattern, folding: folding)
        return ValueTest(fast: .like(like)) { value throws(ValueFault) in
          try stringOperand(value, for: name).map(like.matches) ?? false
        }
      }
      let regex = try RegexPattern(pattern, options: options, budget: regexBudget)
      return ValueTest { value throws(ValueFault) in
        guard let subject = try stringOperand(value, for: name) else { return false }
        return try regex.matches(subject)
      }

    case .in:
      switch constant {
      case .null:
        return .alwaysFalse
      case .string(let haystack):
        let folded = folding?.fold(haystack) ?? haystack
        return ValueTest { value throws(ValueFault) in
          guard let needle = try stringOperand(value, for: "IN") else { return false }
          return TextComparison.test(.contains, folded, folding?.fold(needle) ?? needle)
        }
      default:
        guard let elements = constant.collectionElements else {
          throw ValueFault(
            .notACollection,
            "IN needs a collection or a string on the right, found \(constant.typeName) \(constant.shortDescription)")
        }
        let set = MembershipSet(elements, folding: folding)
        // A short list of strings is faster to scan than to hash.
        let strings = elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
        let fast: Fast =
          folding == nil && strings.count == elements.count && strings.count <= 8 ? .textList(TextList(strings)) : .none
        return ValueTest(fast: fast) { value in !value.isNull && set.contains(value) }
      }

    case .between:
      guard case .array(let bounds) = constant, bounds.count == 2 else {
        throw ValueFault(
          .invalidBounds, "BETWEEN needs two bounds, found \(constant.typeName) \(constant.shortDescription)")
      }
      let (low, high) = (bounds[0], bounds[1])
      let fast: Fast =
        if case .int(let lower) = low, case .int(let upper) = high { .integerRange(lower, upper) } else { .none }
      return ValueTest(fast: fast) { value throws(ValueFault) in
        // Both bounds are compared, so that a bound of the wrong type is
        // reported whichever side of the range the value falls.
        let lower = try FilterValue.predicateOrder(value, low)
        let upper = try FilterValue.predicateOrder(value, high)
        guard let lower, let upper else { return false }
        return lower >= 0 && upper <= 0
      }

    case .utiConformsTo, .utiEquals:
      throw ValueFault(.typeMismatch, "\(operation.text) is not supported")
    }
  }

  /// `collection CONTAINS element`: membership in the left value.
  private static func membershipTest(_ element: FilterValue, folding: StringFolding?) -> ValueTest {
    ValueTest { value throws(ValueFault) in
      if value.isNull { return false }
      guard let elements = value.collectionElements else {
        throw ValueFault(
          .notACollection,
          "CONTAINS needs a string or a collection on the left, found \(value.typeName) \(value.shortDescription)")
      }
      return elements.contains { equal($0, element, folding: folding) }
    }
  }

  /// The string a string operator reads, nil for nil, or a type error.
  static func stringOperand(_ value: FilterValue, for name: String) throws(ValueFault) -> String? {
    switch value {
    case .string(let string): return string
    case .null: return nil
    default: throw .typeMismatch("\(name) needs a string, found \(value.typeName) \(value.shortDescription)")
    }
  }

  /// Equality with the options: folded strings, otherwise `isEqual:`.
  static func equal(_ lhs: FilterValue, _ rhs: FilterValue, folding: StringFolding?) -> Bool {
    if let folding, case .string(let a) = lhs, case .string(let b) = rhs {
      return TextComparison.literalEqual(folding.fold(a), folding.fold(b))
    }
    return FilterValue.predicateEqual(lhs, rhs)
  }

  /// `lhs <operator> rhs` for two computed values.
  static func apply(
    _ operation: ComparisonSyntax.Operator, options: ComparisonSyntax.Options,
    _ lhs: FilterValue, _ rhs: FilterValue, regexBudget: Int
  ) throws(ValueFault) -> Bool {
    switch operation {
    case .beginsWith, .endsWith, .like, .matches:
      // Apple checks the left side first: a nil subject is false whatever
      // the pattern.
      if lhs.isNull { return false }
    case .in:
      if lhs.isNull { return false }
      // A computed collection (nil counts as empty) is scanned once; hashing
      // it first would cost more.
      if let elements = rhs.collectionElements {
        let folding = StringFolding(options)
        return elements.contains { ValueTest.equal(lhs, $0, folding: folding) }
      }
    default: break
    }
    return try make(operation, options: options, constant: rhs, regexBudget: regexBudget).run(lhs)
  }
}
