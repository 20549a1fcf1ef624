/// A compiled expression: a constant, a direct read through the resolver
/// (which comparisons fuse with their test), or a computation.
struct Operand<Object>: Sendable {
  enum Form: Sendable {
    case constant(FilterValue)
    case read(@Sendable (Object) -> FilterValue)
    case computed(Evaluator<Object>)
  }

  var form: Form
  /// What is known of the value before evaluation.
  var type: KeyValueType = .unknown
  /// The key path read, for error messages, when the operand is a key.
  var key: String?
  /// The entity the key belongs to.
  var entity: String?
  /// Builds the key's fused comparisons, for a `.read` whose resolver gave
  /// a ``KeyReader``. A field of its own rather than a payload of `.read`:
  /// a payload of two closures made looking the form's metadata up cost
  /// more when compiling.
  var fuse: FuseHook<Object>?

  var constant: FilterValue? {
    if case .constant(let value) = form { value } else { nil }
  }

  /// What a type check knows of the operand.
  var side: TypeCheck.Side {
    TypeCheck.Side(type: type, constant: constant, key: key, entity: entity)
  }

  var evaluator: Evaluator<Object> {
    switch form {
    case .constant(let value): { _, _ in value }
    case .read(let read): { object, _ in read(object) }
    case .computed(let evaluator): evaluator
    }
  }
}
