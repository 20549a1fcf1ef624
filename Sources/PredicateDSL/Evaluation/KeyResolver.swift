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

/// A key path as the compiler hands it to a ``KeyResolver``.
public struct KeyPathReference: Hashable, Sendable, CustomStringConvertible {
  /// The components, without the `#` that escapes a reserved word:
  /// `["address", "city"]`, `["tags", "@count"]`.
  public var components: [String]
  /// Where the key path is in the predicate text.
  public var range: SyntaxRange

  /// Creates a reference.
  public init(components: [String], range: SyntaxRange = .synthesized) {
    self.components = components
    self.range = range
  }

  /// The components joined by dots: `address.city`.
  public var description: String { components.joined(separator: ".") }
}

/// How to read one key path: what a ``KeyResolver`` returns.
public struct ResolvedKey<Object>: Sendable {
  /// How many leading components of the key path the reader covers.
  public var componentCount: Int
  /// What is known of the value before evaluation.
  public var type: KeyValueType
  /// Reads the value from an object. A missing value is `.null`.
  public var read: @Sendable (Object) -> FilterValue
  /// The entity the key belongs to, for error messages: `"Person"`.
  public var entity: String?

  /// Creates a reader of the first `componentCount` components. A count of
  /// zero reads the object itself and leaves every component to the compiler.
  public init(
    consuming componentCount: Int, type: KeyValueType = .unknown, entity: String? = nil,
    read: @escaping @Sendable (Object) -> FilterValue
  ) {
    precondition(componentCount >= 0, "a resolved key cannot consume a negative count")
    self.componentCount = componentCount
    self.type = type
    self.entity = entity
    self.read = read
  }
}

/// Resolves key paths on schema-less values: a key reads a ``FilterValue/record(_:)``'s
/// entry (a missing key is nil), and a key applied to a collection maps over
/// its elements, as key-value coding does on arrays of dictionaries.
///
/// This is the resolver for JSON-like data, and the one the compiler uses
/// inside `SUBQUERY`, whose elements are values.
///
/// ```swift
/// let filter = try CompiledFilter("address.city == 'Oslo'", resolver: RecordKeyResolver())
/// try filter.evaluate(["address": ["city": "Oslo"]])  // true
/// ```
public struct RecordKeyResolver: KeyResolver {
  /// Creates the resolver.
  public init() {}

  /// Reads the first component, and leaves the rest to the compiler.
  public func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
    let key = path.components[0]
    if key.hasPrefix("@") {
      // A collection operator applies to the value itself: the compiler does it.
      return ResolvedKey(consuming: 0) { $0 }
    }
    return ResolvedKey(consuming: 1) { $0.value(forKey: key) }
  }

  /// `SELF` is the value itself.
  public func resolveSelf(at range: SyntaxRange) throws(PredicateCompileError) -> ResolvedKey<FilterValue> {
    ResolvedKey(consuming: 1) { $0 }
  }
}
