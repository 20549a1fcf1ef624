/// A monitor that could not be created, or a request it refused: what it
/// was given cannot be monitored. The one error of both monitors and of
/// their record views.
///
/// ```swift
/// do {
///   let monitor = try ObjectMonitor(context: context, objectID: id, scheduler: .queue(.main))
/// } catch {
///   print(error)   // ObjectMonitor: no object #42 in context 'main' (never inserted, deleted, or rolled back)
/// }
/// ```
public struct MonitorError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of error.
  public var code: Code
  /// What is wrong, naming the monitor's kind and what it was given.
  public var message: String
  /// For a list request the watcher refused, its refusal: the key, the
  /// entity and the position in the predicate, and the caret rendering of
  /// its `detailedDescription()`.
  public var watchError: WatchError?

  /// Creates an error.
  public init(_ code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// A list monitor's refusal of a request: the watch's error, with its
  /// message and a code of this type.
  init(refusing error: WatchError) {
    let code: Code =
      switch error.code {
      case .unknownEntity: .unknownEntity
      case .entityMismatch: .entityMismatch
      default: .invalidRequest
      }
    self.init(code, message: error.description)
    watchError = error
  }

  /// The message.
  public var description: String { message }

  /// The kinds of error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The context has no live object with the identifier given.
    public static let unknownObject = Code("unknownObject")
    /// A list request names an entity the schema does not have.
    public static let unknownEntity = Code("unknownEntity")
    /// A list request cannot be listed: its predicate, sort keys or
    /// section key do not apply to the entity (``MonitorError/watchError``
    /// says which and where).
    public static let invalidRequest = Code("invalidRequest")
    /// The watcher the monitor rides on refused its watch (it holds as
    /// many watches as it can).
    public static let watchRefused = Code("watchRefused")
    /// A typed monitor's object is not an object of the record type's
    /// entity (nor of one below it), or the record type names an entity
    /// the schema does not have.
    public static let entityMismatch = Code("entityMismatch")

    /// The code's name.
    public var description: String { name }
  }
}
