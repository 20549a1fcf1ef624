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
