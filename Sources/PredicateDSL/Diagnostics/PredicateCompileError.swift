/// An error thrown when a parsed predicate cannot be compiled: a key that the
/// resolver does not know, an operator that cannot apply to a key's type, an
/// invalid `MATCHES` pattern, an unbound `$VARIABLE`, or a constant
/// expression that would fail on every evaluation.
///
/// The error names the key and the entity where they matter, and the
/// position of the offending expression in the predicate text.
///
/// ```swift
/// do {
///   _ = try CompiledFilter("agee > 30", resolver: personResolver)
/// } catch {
///   print(error)  // predicate:1:1: error: Person has no key 'agee'
/// }
/// ```
public struct PredicateCompileError: PredicateDiagnostic, Hashable, Sendable {
  /// The broad kind of problem.
  public var code: Code
  /// What is wrong, in one sentence without the position.
  public var message: String
  /// The UTF-8 range of the offending expression in the predicate text;
  /// ``SyntaxRange/synthesized`` for a tree built in code.
  public var range: SyntaxRange
  /// The key path involved, if any, as written: `"department.name"`.
  public var key: String?
  /// The entity whose key was looked up, if any.
  public var entity: String?
  /// The predicate text, when the predicate was compiled from text; it gives
  /// ``location`` and the caret rendering.
  public var source: String?

  /// Creates an error.
  public init(
    _ code: Code, _ message: String, at range: SyntaxRange, key: String? = nil,
    entity: String? = nil
  ) {
    self.code = code
    self.message = message
    self.range = range
    self.key = key
    self.entity = entity
  }

  /// The error for a key that an entity does not have, with a
  /// did-you-mean among `candidates`.
  public static func unknownKey(
    _ path: KeyPathReference, component: Int = 0, entity: String, candidates: [String] = []
  ) -> PredicateCompileError {
    let key = path.components[component]
    var message = "\(entity) has no key '\(key)'"
    if let closest = Parser.closest(to: key, among: candidates) {
      message += " (did you mean '\(closest)'?)"
    }
    return PredicateCompileError(
      .unknownKey, message, at: path.range, key: path.description, entity: entity)
  }

  /// The kinds of compile error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// A key path that the resolver cannot read.
    public static let unknownKey = Code("unknownKey")
    /// An operator or function applied to a value of a type it cannot take,
    /// known from the schema or from constants.
    public static let typeMismatch = Code("typeMismatch")
    /// A `$VARIABLE` with no value.
    public static let unboundVariable = Code("unboundVariable")
    /// A `MATCHES` pattern that is not a valid regular expression.
    public static let invalidPattern = Code("invalidPattern")
    /// A constant expression that fails whenever it is evaluated, such as
    /// `1 / 0` or `{1, 2}[5]`.
    public static let invalidConstant = Code("invalidConstant")
    /// Something the compiler does not support, such as `CAST` to an unknown
    /// class or the `UTI-CONFORMS-TO` operator.
    public static let unsupported = Code("unsupported")

    /// The code's name, such as `unknownKey`.
    public var description: String { name }
  }
}
