/// The checks a compiler can make before evaluation when a resolver knows a
/// key's type: an operator that cannot apply to it, or a comparison with a
/// constant of another type that could never be true, is a compile error
/// naming the key, the entity and the position.
///
/// Keys of unknown type (schema-less records) are never checked: their
/// comparisons keep Apple's run-time semantics.
enum TypeCheck {
  enum Category: String {
    case number, string, date, uuid, data, collection, record, object

    var isOrdered: Bool { self == .number || self == .string || self == .date }
  }

  static func category(_ type: KeyValueType) -> Category? {
    switch type {
    case .unknown: nil
    case .attribute(let attribute):
      switch attribute {
      case .integer, .double, .boolean: .number
      case .string: .string
      case .date: .date
      case .uuid: .uuid
      case .data: .data
      }
    case .collection: .collection
    case .object: .object
    }
  }

  static func category(_ value: FilterValue) -> Category? {
    switch value {
    case .null: nil
    case .bool, .int, .double: .number
    case .string: .string
    case .date: .date
    case .uuid: .uuid
    case .data: .data
    case .array, .set: .collection
    case .record: .record
    }
  }

  /// What the check knows of one side of a comparison: not generic, so
  /// that the compiler's unspecialised code checks a key against a constant
  /// without building an ``Operand`` (whose metadata is a run-time lookup).
  struct Side {
    /// What is known of the value before evaluation.
    var type: KeyValueType = .unknown
    /// The value, when the side is constant.
    var constant: FilterValue?
    /// The key path read, when the side is a key.
    var key: String?
    /// The entity the key belongs to.
    var entity: String?

    var isUnknown: Bool {
      if case .unknown = type { true } else { false }
    }
  }

  static func check(
    _ operation: ComparisonSyntax.Operator, _ quantifier: ComparisonSyntax.Quantifier, _ lhs: Side, _ rhs: Side,
    at range: SyntaxRange
  ) throws(PredicateCompileError) {
    guard !lhs.isUnknown || !rhs.isUnknown else { return }
    func fail(_ message: String, _ operand: Side) -> PredicateCompileError {
      PredicateCompileError(.typeMismatch, message, at: range, key: operand.key, entity: operand.entity)
    }

    var leftType = lhs.type
    if quantifier != .direct {
      switch lhs.type {
      case .collection(let element): leftType = element
      case .unknown: leftType = .unknown
      default:
        throw fail("\(quantifier.keyword) needs a collection, but \(describe(lhs)) is not one", lhs)
      }
    } else if case .collection(let element) = lhs.type {
      switch operation {
      case .equal, .notEqual, .in:
        return
      case .contains:
        try compatible(
          .equal, left: (category(element), "an element of \(describe(lhs))"), right: side(rhs), fail: { fail($0, lhs) }
        )
        return
      default:
        throw fail(
          "\(operation.text) cannot apply to \(describe(lhs)) as a whole; use ANY, ALL or NONE to compare its elements",
          lhs)
      }
    }
    let left = (category(leftType) ?? lhs.constant.flatMap(category), describe(lhs, as: leftType))

    if case .collection(let element) = rhs.type {
      if operation == .in {
        try compatible(
          .equal, left: left, right: (category(element), "the elements of \(describe(rhs))"), fail: { fail($0, rhs) })
      }
      return
    }
    let typed = !lhs.isUnknown ? lhs : rhs
    switch operation {
    case .in:
      guard let constant = rhs.constant else {
        try compatible(.in, left: left, right: side(rhs), fail: { fail($0, typed) })
        return
      }
      if case .string = constant {
        try compatible(.contains, left: left, right: side(rhs), fail: { fail($0, typed) })
      } else if let elements = constant.collectionElements {
        for element in elements where !element.isNull {
          try compatible(
            .equal, left: left, right: (category(element), describe(constant: element)), fail: { fail($0, typed) })
        }
      }
    case .between:
      if let constant = rhs.constant, case .array(let bounds) = constant {
        for bound in bounds where !bound.isNull {
          try compatible(
            .between, left: left, right: (category(bound), describe(constant: bound)), fail: { fail($0, typed) })
        }
      }
    default:
      try compatible(operation, left: left, right: side(rhs), fail: { fail($0, typed) })
    }
  }

  private static func side(_ operand: Side) -> (Category?, String) {
    (category(operand.type) ?? operand.constant.flatMap(category), describe(operand))
  }

  private static func compatible(
    _ operation: ComparisonSyntax.Operator, left: (Category?, String), right: (Category?, String),
    fail: (String) -> PredicateCompileError
  ) throws(PredicateCompileError) {
    guard let a = left.0, let b = right.0 else { return }
    switch operation {
    case .equal, .notEqual, .in:
      if a != b {
        throw fail("\(left.1) is never equal to \(right.1): no coercion between \(a.rawValue) and \(b.rawValue)")
      }
    case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
      guard a.isOrdered else { throw fail("\(operation.text) cannot apply to \(left.1): a \(a.rawValue) has no order") }
      if a != b { throw fail("\(left.1) cannot be ordered against \(right.1)") }
    case .beginsWith, .endsWith, .contains, .like, .matches:
      guard a == .string else { throw fail("\(operation.text) cannot apply to \(left.1): it needs a string") }
      guard b == .string else { throw fail("\(operation.text) needs a string, found \(right.1)") }
    case .utiConformsTo, .utiEquals:
      break
    }
  }

  static func describe(_ operand: Side, as type: KeyValueType? = nil) -> String {
    if let constant = operand.constant { return describe(constant: constant) }
    let type = type ?? operand.type
    guard let key = operand.key else { return "a \(type) expression" }
    let owner = operand.entity.map { " of \($0)" } ?? ""
    return type == .unknown ? "key '\(key)'\(owner)" : "\(type) key '\(key)'\(owner)"
  }

  static func describe(constant: FilterValue) -> String {
    "\(constant.typeName) \(constant.shortDescription)"
  }
}
