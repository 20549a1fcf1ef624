import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL

/// Companies, departments and people; employees are people. People ignore
/// changes of `lastSeen` (an entity-level ignored key).
enum WatcherFixtures {
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company", attributes: [.init("name", .string)],
          relationships: [
            .toMany("employees", destination: "Person", inverse: "employer"),
            .toMany("departments", destination: "Department", inverse: "company", deleteRule: .cascade),
          ]),
        EntityDescription(
          "Department", attributes: [.init("name", .string)],
          relationships: [
            .toOne("company", destination: "Company", inverse: "departments"),
            .toMany("members", destination: "Person", inverse: "department"),
          ]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string), .init("age", .integer, isOptional: true),
            .init("city", .string, isOptional: true), .init("lastSeen", .integer, isOptional: true),
            .init("tags", .string, isOptional: true),
          ],
          relationships: [
            .toOne("employer", destination: "Company", inverse: "employees"),
            .toOne("department", destination: "Department", inverse: "members"),
          ],
          ignoredKeys: ["lastSeen"]),
        EntityDescription("Employee", parent: "Person", attributes: [.init("salary", .double, isOptional: true)]),
      ])
    } catch {
      fatalError("the watcher fixture schema is invalid: \(error)")
    }
  }()

  static func context(_ name: String = "watched") -> ObjectContext {
    ObjectContext(schema: schema, name: name, notificationCenter: nil)
  }
}

/// Records deliveries, in order, from any queue.
final class Recorder: ContextWatcherDelegate, Sendable {
  let deliveries = LockedState<[ContextChanges]>([])

  func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
    deliveries.withLock { $0.append(changes) }
  }

  var all: [ContextChanges] { deliveries.withLock { $0 } }
  var last: ContextChanges? { all.last }
}

extension ObjectContext {
  /// Runs `work` on the context's queue, for tests.
  func run<T>(_ work: (ObjectContext) throws -> T) rethrows -> T {
    try performAndWait { context in try work(context) }
  }
}

/// A watcher on a context, delivering to a recorder on a queue of its own.
struct Rig {
  let context = WatcherFixtures.context()
  let recorder = Recorder()
  let watcher: ContextWatcher

  init(options: WatcherOptions = WatcherOptions()) {
    watcher = ContextWatcher(
      context: context, target: .delegate(recorder, on: .queue(DispatchQueue(label: "deliveries"))),
      options: options)
  }

  /// Saves the work's changes and waits for the delivery, if any.
  @discardableResult
  func save(author: String? = nil, _ work: (ObjectContext) throws -> Void) throws -> ContextChanges? {
    let before = recorder.all.count
    try context.run { context in
      try work(context)
      try context.save(author: author)
    }
    watcher.flush()
    let all = recorder.all
    return all.count > before ? all.last : nil
  }
}

extension ContextChanges {
  /// Names of the objects in each event, for compact assertions.
  func names(_ event: WatchEvent) -> [String] {
    let snapshots: [ObjectSnapshot] =
      switch event {
      case .inserted: inserted
      case .deleted: deleted
      case .updated: updated.map(\.after)
      case .entered: entered.map(\.after)
      case .exited: exited.map(\.after)
      }
    return snapshots.map { if case .string(let name)? = $0["name"] { name } else { "?" } }
  }
}
