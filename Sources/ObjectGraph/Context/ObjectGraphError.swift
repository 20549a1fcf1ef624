/// An operation on a context or an object that was refused at once: an
/// unknown entity or key, a value of the wrong type, a deleted object.
///
/// Nothing changes when one is thrown.
///
/// ```swift
/// do {
///   try ann.setValue("thirty", forKey: "age")
/// } catch {
///   print(error)  // Person.age takes integer values, not string "thirty"
/// }
/// ```
public struct ObjectGraphError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of error.
  public var code: Code
  /// What went wrong, naming the entity, the key and the value.
  public var message: String

  /// Creates an error.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The message.
  public var description: String { message }

  /// The kinds of error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The schema has no entity of that name.
    public static let unknownEntity = Code("unknownEntity")
    /// The entity has no key of that name, or not of that kind (an
    /// attribute where a relationship was expected, or the reverse).
    public static let unknownKey = Code("unknownKey")
    /// A value that the attribute's type does not take, or a destination of
    /// the wrong entity.
    public static let typeMismatch = Code("typeMismatch")
    /// The object was deleted, or belongs to another context.
    public static let invalidObject = Code("invalidObject")
    /// A fetch request that does not fit the context's schema.
    public static let invalidRequest = Code("invalidRequest")

    /// The code's name: `"typeMismatch"`.
    public var description: String { name }
  }
}
