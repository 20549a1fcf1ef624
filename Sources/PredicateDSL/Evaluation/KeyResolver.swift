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
///
/// Give the read as a closure, or, for the fastest evaluation, as a
/// ``KeyReader``: comparisons of the key with a constant are then built in
/// the resolver's module, specialised for its object type, with the read
/// inlined into the test.
public struct ResolvedKey<Object>: Sendable {
  /// How many leading components of the key path the reader covers.
  public var componentCount: Int
  /// What is known of the value before evaluation.
  public var type: KeyValueType
  /// The entity the key belongs to, for error messages: `"Person"`.
  public var entity: String?
  @usableFromInline var reader: @Sendable (Object) -> FilterValue
  /// Builds the key's fused comparisons in the resolver's module; nil when
  /// the read was given as a closure.
  @usableFromInline var fuse: FuseHook<Object>?

  /// Reads the value from an object. A missing value is `.null`.
  ///
  /// Setting it replaces the reader given to ``init(consuming:type:entity:reader:)``.
  public var read: @Sendable (Object) -> FilterValue {
    get { reader }
    set {
      reader = newValue
      fuse = nil
    }
  }

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
    self.reader = read
    self.fuse = nil
  }

  /// Creates a reader of the first `componentCount` components from a
  /// ``KeyReader``: evaluates as the closure form does, faster.
  ///
  /// Inlined into the resolver, so that the comparisons the compiler fuses
  /// with this key are built where `Reader` and `Object` are concrete types:
  /// `age > 30` then reads the value and compares it in one closure, without
  /// a call through a reader closure.
  ///
  /// ```swift
  /// struct SlotReader: KeyReader {
  ///   let slot: Int
  ///   func read(_ object: StoredPerson) -> FilterValue { object.values[slot] }
  /// }
  /// ResolvedKey(consuming: 1, type: .attribute(.integer), reader: SlotReader(slot: 1))
  /// ```
  @inlinable
  public init<Reader: KeyReader<Object>>(
    consuming componentCount: Int, type: KeyValueType = .unknown, entity: String? = nil, reader: Reader
  ) {
    // One allocation that both closures capture (and use as their
    // context), instead of a context each.
    let box = ReaderBox(reader)
    self.init(consuming: componentCount, type: type, entity: entity) { box.reader.read($0) }
    fuse = { fast, general, site, probe in FusedComparison.make(box.reader, fast, general, site, probe: &probe) }
  }
}

/// A ``KeyReader`` behind one reference, which a key's read closure and its
/// fuse hook share.
@usableFromInline
final class ReaderBox<Reader: KeyReader>: Sendable {
  @usableFromInline let reader: Reader

  @inlinable init(_ reader: Reader) { self.reader = reader }
}

/// Reads one key's value from an object: the fast form of a
/// ``ResolvedKey``'s reader.
///
/// A resolver that returns `ResolvedKey(consuming:type:entity:reader:)` with
/// a `KeyReader` lets the compiler build the direct comparisons of the whole
/// key path with a constant (`age > 30`, `name BEGINSWITH "A"`; not `ANY`,
/// `ALL` or `NONE`, and not a reader that covers only part of the path) in
/// the resolver's module, where `read(_:)` is inlined into the test. Other
/// uses of the key call the reader like a closure. Keep `read(_:)` small (a
/// slot or a stored property) and free of side effects (a comparison whose
/// value falls outside its shortcut reads it up to three times: its probe,
/// its test's fast path and its general test each read it), and make the
/// reader a struct of plain values.
public protocol KeyReader<Object>: Sendable {
  /// The type of the objects read.
  associatedtype Object

  /// The key's value in `object`; a missing value is `.null`.
  func read(_ object: Object) -> FilterValue
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
