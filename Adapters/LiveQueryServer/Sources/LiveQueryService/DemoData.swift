public import ObjectGraph
import PredicateDSL

/// The demo's data: tasks with an owner, a priority, a status, a secret
/// only admins read and the time of their last write, and the policy that
/// lets each user read their own tasks and an admin every task.
public enum DemoData {
  /// The owners the demo's tasks are spread over, for `count` owners:
  /// `u1`, `u2`, …
  public static func owners(_ count: Int) -> [String] { (1...max(1, count)).map { "u\($0)" } }

  /// The statuses, in the order the page sections them.
  public static let statuses = ["todo", "doing", "done"]

  /// The schema: one entity, `Task`, indexed by owner (the read
  /// predicate's key), so that a user's first fetch reads their tasks
  /// alone.
  public static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Task",
          attributes: [
            .init("title", .string), .init("owner", .string, isIndexed: true), .init("priority", .integer),
            .init("status", .string), .init("secret", .string, isOptional: true),
            .init("updatedAt", .date),
          ])
      ])
    } catch {
      fatalError("the demo schema is invalid: \(error)")
    }
  }()

  /// The read policy, as its JSON file would hold it.
  public static let policyText = """
    {"roleClaim": "role",
     "entities": {"Task": {"read": "owner == $sub OR $role == 'admin'",
       "attributes": {"admin": ["title", "owner", "priority", "status", "secret", "updatedAt"],
                      "*": ["title", "owner", "priority", "status", "updatedAt"]}}}}
    """
}
