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
