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
