import ContextWatching
import Foundation
import ObjectGraph
import PostgresChangeSource
import PredicateDSL
import Testing

@Suite("Watchers over a replica", .postgresServer, .timeLimit(.minutes(5)))
struct MonitorEquivalenceTests {
  /// One transaction: its SQL, and the same writes to an in-memory context.
  struct Step {
    var sql: String
    var apply: (ObjectContext, inout [Int64: ManagedObject]) throws -> Void
  }

  static func steps(_ n: String) -> [Step] {
    [
      Step(
        sql: """
          BEGIN;
          INSERT INTO \(n).company VALUES (1, 'Acme', NULL); INSERT INTO \(n).company VALUES (2, 'Beta', NULL);
          INSERT INTO \(n).person (id, name, age, employer_id) VALUES (10, 'Ann', 35, 1);
          INSERT INTO \(n).person (id, name, age, employer_id) VALUES (11, 'Bob', 25, 2);
          COMMIT
          """,
        apply: { context, rows in
          rows[1] = try context.insert("Company", values: ["name": "Acme"])
          rows[2] = try context.insert("Company", values: ["name": "Beta"])
          rows[10] = try context.insert("Person", values: ["name": "Ann", "age": 35])
          rows[11] = try context.insert("Person", values: ["name": "Bob", "age": 25])
          try rows[10]!.setRelationship("employer", to: rows[1])
          try rows[11]!.setRelationship("employer", to: rows[2])
        }),
      Step(
        sql: "UPDATE \(n).person SET age = 31 WHERE id = 11",
        apply: { _, rows in try rows[11]!.setValue(31, forKey: "age") }),
      Step(
        sql: "UPDATE \(n).company SET name = 'Alpha' WHERE id = 2",
        apply: { _, rows in try rows[2]!.setValue("Alpha", forKey: "name") }),
      Step(
        sql: "UPDATE \(n).person SET employer_id = NULL WHERE id = 10",
        apply: { _, rows in try rows[10]!.setRelationship("employer", to: nil) }),
      Step(
        sql: "DELETE FROM \(n).person WHERE id = 11",
        apply: { context, rows in try context.delete(rows[11]!) }),
      Step(
        sql: """
          BEGIN;
          INSERT INTO \(n).person (id, name, age, employer_id) VALUES (12, 'Cid', 50, 2);
          UPDATE \(n).person SET name = 'Zed' WHERE id = 10;
          COMMIT
          """,
        apply: { context, rows in
          rows[12] = try context.insert("Person", values: ["name": "Cid", "age": 50])
          try rows[12]!.setRelationship("employer", to: rows[2])
          try rows[10]!.setValue("Zed", forKey: "name")
        }),
    ]
  }

  static func name(_ snapshot: ObjectSnapshot) -> String {
    if case .string(let name)? = snapshot["name"] { return name }
    return "?"
  }

  /// A delivery with objects named instead of numbered.
  static func describe(_ changes: ContextChanges) -> String {
    func updates(_ list: [ObjectUpdate]) -> String {
      list.map { name($0.after) + "(" + $0.changedKeys.joined(separator: ",") + ")" }.joined(separator: " ")
    }
    return "save \(changes.sequenceNumber) by \(changes.author ?? "-"):"
      + " inserted \(changes.inserted.map(name)) updated [\(updates(changes.updated))]"
      + " entered [\(updates(changes.entered))] exited [\(updates(changes.exited))]"
      + " deleted \(changes.deleted.map(name)) matches \(changes.attribution.map { Array($0.matches) })"
  }

  /// A list change with objects named instead of numbered.
  static func describe(_ changes: ListChanges) -> String {
    func rows(_ list: [ListChanges.Change]) -> String {
      list.map { "\($0.indexPath) \(name($0.object)) \($0.changedKeys)" }.joined(separator: "; ")
    }
    let moves = changes.moved.map { "\($0.from)→\($0.to) \(name($0.object)) \($0.changedKeys)" }
    return "save \(changes.sequenceNumber): deleted [\(rows(changes.deleted))] inserted [\(rows(changes.inserted))]"
      + " updated [\(rows(changes.updated))] moved \(moves) sections \(changes.deletedSections)"
      + " \(changes.insertedSections)"
  }

  /// What a watcher and a list monitor over `context` report.
  final class Observers: Sendable {
    let changes: Recorder<ContextChanges>
    let lists: Recorder<ListChanges>
    let watcher: ContextWatcher
    let tokens: [WatchToken]
    let monitor: ListMonitor
    let observer: ObserverToken

    init(_ context: ObjectContext) throws {
      let changes = Recorder<ContextChanges>()
      let lists = Recorder<ListChanges>()
      self.changes = changes
      self.lists = lists
      watcher = ContextWatcher(context: context, target: .handler(on: .immediate) { changes.append($0) })
      tokens = [
        try watcher.watch("Person", where: "age >= %d", 30),
        try watcher.watch("Person", where: "employer.name BEGINSWITH 'A'"),
      ]
      monitor = try ListMonitor(
        context: context, request: try ListRequest("Person", where: "age > 20", sortedBy: [.ascending("name")]),
        scheduler: .immediate)
      observer = monitor.observe { lists.append($0.changes) }
    }
  }

  @Test func seeWhatTheyWouldSeeOverAnInMemoryContextDoingTheSameWrites() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    let overReplica = try Observers(replica.context)
    try await replica.start()

    let memory = ObjectContext(schema: TestDatabase.schema, name: "replica", notificationCenter: nil)
    let overMemory = try Observers(memory)
    var rows: [Int64: ManagedObject] = [:]
    for step in Self.steps(namespace) {
      try await TestDatabase.execute(step.sql)
      try memory.performAndWait { context in
        try step.apply(context, &rows)
        try context.save()
      }
    }
    try await replica.catchUp()
    await overReplica.watcher.flush()
    await overMemory.watcher.flush()
    await overReplica.monitor.flush()
    await overMemory.monitor.flush()
    // Object identifiers differ between contexts; names do not.
    let replicaChanges = overReplica.changes.values.map(Self.describe)
    #expect(replicaChanges.count == 6)
    #expect(replicaChanges == overMemory.changes.values.map(Self.describe))
    let replicaLists = overReplica.lists.values.map(Self.describe)
    #expect(replicaLists.count == 5)
    #expect(replicaLists == overMemory.lists.values.map(Self.describe))
    #expect(overReplica.changes.values.contains { !$0.entered.isEmpty })
    #expect(overReplica.changes.values.contains { !$0.exited.isEmpty })
    try await replica.dropSlot()
  }
}
