public import PredicateDSL

/// A watch that was refused when it was added: it could never work as
/// written, so it fails now rather than silently never matching or matching
/// everything.
///
/// The message names the watch, the entity, the key and, for predicate
/// errors, the position; ``detailedDescription()`` draws the caret.
///
/// ```
/// watch 'seniors' on Person: Person has no key 'agee' (did you mean 'age'?)
/// ```
public struct WatchError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of error.
  public var code: Code
  /// The watch's label.
  public var watch: String
  /// The entity the watch names.
  public var entity: String
  /// The key at fault, when there is one.
  public var key: String?
  /// What is wrong.
  public var message: String
  /// Where in the predicate text, when the error is the predicate's.
  public var location: PredicateParseError.Location?
  /// The predicate error's own rendering with the caret, when there is one.
  private var rendering: String?

  /// Creates an error.
  public init(
    _ code: Code, watch: String, entity: String, key: String? = nil, message: String,
    location: PredicateParseError.Location? = nil
  ) {
    self.code = code
    self.watch = watch
    self.entity = entity
    self.key = key
    self.message = message
    self.location = location
  }

  init(watch: String, entity: String, parse error: PredicateParseError) {
    self.init(.invalidPredicate, watch: watch, entity: entity, message: error.message, location: error.location)
    rendering = error.detailedDescription()
  }

  init(watch: String, entity: String, compile error: PredicateCompileError) {
    let code: Code = error.code == .unknownKey ? .unknownKey : .invalidPredicate
    self.init(
      code, watch: watch, entity: entity, key: error.key, message: error.message, location: error.location)
    rendering = error.detailedDescription()
  }

  /// `watch 'seniors' on Person: Person has no key 'agee' (did you mean 'age'?) at 1:1`;
  /// without ` on …` when the refusal is of no one entity.
  public var description: String {
    let place = location.map { " at \($0.line):\($0.column)" } ?? ""
    return "\(subject): \(message)\(place)"
  }

  /// The description, then the predicate with a caret under the spot when
  /// the error is the predicate's.
  public func detailedDescription() -> String {
    guard let rendering else { return description }
    return "\(subject):\n" + rendering
  }

  /// `watch 'seniors' on Person`, or `watch 'seniors'` without an entity.
  private var subject: String { entity.isEmpty ? "watch '\(watch)'" : "watch '\(watch)' on \(entity)" }

  /// The kinds of error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The schema has no such entity.
    public static let unknownEntity = Code("unknownEntity")
    /// The predicate, or a key option, names a key the entity does not have.
    public static let unknownKey = Code("unknownKey")
    /// The predicate does not parse, or cannot apply to the entity's types.
    public static let invalidPredicate = Code("invalidPredicate")
    /// The options contradict each other (watched and ignored keys together).
    public static let invalidOptions = Code("invalidOptions")
    /// The watcher already holds ``WatchID/maximumWatchCount`` watches, or
    /// has handed out every watch number (2⁴⁰ registrations in its life).
    public static let tooManyWatches = Code("tooManyWatches")
    /// A typed list's request lists an entity whose objects are not
    /// objects of the record type's entity.
    public static let entityMismatch = Code("entityMismatch")

    /// The code's name.
    public var description: String { name }
  }
}
