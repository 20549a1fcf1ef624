/// Tells the predicate compiler how to read key paths from the objects it
/// will evaluate.
///
/// The compiler serves any kind of object: a resolver turns each key path of
/// a predicate into a reader once, at compile time, so evaluation never looks
/// a name up. The object graph supplies a resolver built from its schema
/// (keys become storage slots; unknown keys are compile errors);
/// ``RecordKeyResolver`` reads schema-less key-value records such as JSON.
///
/// ```swift
/// struct PersonResolver: KeyResolver {
///   func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<Person> {
///     switch path.components[0] {
///     case "age": ResolvedKey(consuming: 1, type: .attribute(.integer)) { .int($0.age) }
///     case "name": ResolvedKey(consuming: 1, type: .attribute(.string)) { .string($0.name) }
///     default: throw .unknownKey(path, entity: "Person")
///     }
///   }
/// }
/// let adults = try CompiledFilter("age >= 18", resolver: PersonResolver())
/// ```
public protocol KeyResolver<Object>: Sendable {
  /// The type of the objects that compiled predicates evaluate.
  associatedtype Object

  /// Resolves a key path read from the evaluated object, or a leading part
  /// of it.
  ///
  /// A resolver may stop early: it reports how many components it consumed,
  /// and the compiler applies the remaining ones to the value read, with
  /// key-value semantics (a record's key, mapped over collections; `@count`,
  /// `@sum`, `@avg`, `@min`, `@max`).
  ///
  /// - Throws: ``PredicateCompileError`` when a key does not exist, naming the
  ///   key, the entity and the position.
  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<Object>

  /// Resolves `SELF`, the evaluated object as a value.
  ///
  /// The default implementation throws ``PredicateCompileError/Code-swift.struct/unsupported``.
  func resolveSelf(at range: SyntaxRange) throws(PredicateCompileError) -> ResolvedKey<Object>
}

extension KeyResolver {
  /// Throws: `SELF` is not supported unless a resolver says how to read it.
  public func resolveSelf(at range: SyntaxRange) throws(PredicateCompileError) -> ResolvedKey<Object> {
    throw PredicateCompileError(
      .unsupported, "SELF cannot be read from \(Object.self) objects", at: range)
  }
}
