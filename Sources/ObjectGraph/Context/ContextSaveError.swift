/// A save that was refused, with every problem found. The context is exactly
/// as it was before the save: every pending change is still there, to fix or
/// to roll back.
///
/// ```swift
/// do {
///   try context.save()
/// } catch {
///   for problem in error.problems { print(problem) }
///   // Person #3: 'name' is required
/// }
/// ```
public struct ContextSaveError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Every problem, in a stable order: by object identifier, then key.
  public var problems: [Problem]

  /// Creates an error.
  public init(problems: [Problem]) { self.problems = problems }

  /// `save failed: 2 problems: …; …`.
  public var description: String {
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    return "save failed: \(count): " + problems.map(\.description).joined(separator: "; ")
  }

  /// One reason a save was refused.
  public struct Problem: Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public var code: Code
    /// The object at fault.
    public var objectID: ObjectID
    /// Its entity.
    public var entity: String
    /// The key at fault.
    public var key: String
    /// `Person #3: 'name' is required`.
    public var message: String

    /// Creates a problem.
    public init(_ code: Code, objectID: ObjectID, entity: String, key: String, message: String) {
      self.code = code
      self.objectID = objectID
      self.entity = entity
      self.key = key
      self.message = message
    }

    /// The message.
    public var description: String { message }
  }

  /// The kinds of problem. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// A required attribute has no value.
    public static let missingValue = Code("missingValue")
    /// A required relationship is empty.
    public static let missingRelationship = Code("missingRelationship")
    /// A deleted object's relationship with the deny rule still holds an
    /// object that is not deleted.
    public static let deleteDenied = Code("deleteDenied")

    /// The code's name: `"missingValue"`.
    public var description: String { name }
  }
}
