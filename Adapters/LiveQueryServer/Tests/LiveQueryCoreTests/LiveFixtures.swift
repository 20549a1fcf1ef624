// Two types: the fixtures (schema, policy, refs) and the rig that saves through them, used together.

import ContextWatching
import Dispatch
import LiveQueryCore
import ObjectGraph
import PredicateDSL

/// Tasks with an owner, a priority, a status and a secret only admins read.
enum LiveFixtures {
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Task",
          attributes: [
            .init("title", .string), .init("owner", .string), .init("priority", .integer),
            .init("status", .string), .init("secret", .string, isOptional: true),
          ]),
        EntityDescription("Audit", attributes: [.init("note", .string)]),
      ])
    } catch {
      fatalError("the live fixture schema is invalid: \(error)")
    }
  }()

  static let policyText = """
    {"entities": {"Task": {"read": "owner == $sub OR $role == 'admin'",
      "attributes": {"admin": ["title", "owner", "priority", "status", "secret"],
                     "*": ["title", "owner", "priority", "status"]}}}}
    """

  static let policy: ReadPolicy = {
    do {
      return try ReadPolicy.parse(policyText, schema: schema)
    } catch {
      fatalError("the live fixture policy is invalid: \(error)")
    }
  }()

  static let refs = ObjectRefs(key0: 1, key1: 2)
}

/// A context, the shared watcher and a way to make sessions.
final class LiveRig: Sendable {
  let context = ObjectContext(schema: LiveFixtures.schema, name: "live", notificationCenter: nil)
  let watcher: ContextWatcher

  init() {
    watcher = ContextWatcher(context: context, target: .watchHandlers(on: .queue(DispatchQueue(label: "watches"))))
  }

  func session(sub: String, role: String? = nil, limits: LiveLimits = LiveLimits()) -> LiveSession {
    var claims: [String: FilterValue] = ["sub": .string(sub)]
    if let role { claims["role"] = .string(role) }
    return LiveSession(
      context: context, watcher: watcher, policy: LiveFixtures.policy, claims: claims, refs: LiveFixtures.refs,
      limits: limits)
  }

  /// Inserts a task and saves; returns its identifier.
  @discardableResult
  func insert(title: String, owner: String, priority: Int, status: String = "open", secret: String? = nil) -> ObjectID {
    context.performAndWait { context in
      let task = try! context.insert(
        "Task",
        values: [
          "title": .string(title), "owner": .string(owner), "priority": .int(Int64(priority)),
          "status": .string(status), "secret": secret.map(FilterValue.string) ?? .null,
        ])
      _ = try! context.save()
      return task.objectID
    }
  }

  func change(_ id: ObjectID, _ key: String, _ value: FilterValue) {
    context.performAndWait { context in
      try! context.object(with: id)!.setValue(value, forKey: key)
      _ = try! context.save()
    }
  }
}

extension LiveSession {
  /// Sends a frame, waits, and returns what the outbox holds, parsed.
  func send(_ text: String) -> [String] {
    receive(text)
    flush()
    return outbox.drain()
  }
}

extension LiveRig {
  func delete(_ id: ObjectID) {
    context.performAndWait { context in
      try! context.delete(context.object(with: id)!)
      _ = try! context.save()
    }
  }

  /// Changes several keys of several objects in one save.
  func change(_ edits: [(ObjectID, String, FilterValue)]) {
    context.performAndWait { context in
      for (id, key, value) in edits { try! context.object(with: id)!.setValue(value, forKey: key) }
      _ = try! context.save()
    }
  }
}
