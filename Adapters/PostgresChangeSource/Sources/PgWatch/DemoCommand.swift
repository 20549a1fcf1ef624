import ContextWatching
import Foundation
import Logging
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL

/// `pg-watch demo`: two clients write to a throwaway PostgreSQL server,
/// and a watcher and a list monitor over a replica follow the database.
///
/// Without `PGPORT` in the environment the demo runs itself under
/// `Scripts/postgres-test-server.sh`, which starts the server (installing
/// PostgreSQL 15 and wal2json when missing, as root) and removes it at
/// exit. With `PGPORT`, it uses that server, in a schema of its own that it
/// drops at the end.
enum DemoCommand {
  static let logger = Logger(label: "pg-watch demo", factory: { _ in SwiftLogNoOpLogHandler() })

  static func run() async -> Int32 {
    guard ProcessInfo.processInfo.environment["PGPORT"] != nil else { return underTestServer() }
    do {
      try await story()
      return 0
    } catch {
      if let psql = error as? PSQLError, let message = psql.serverInfo?[.message] {
        Output.error("pg-watch: demo failed: the server said: \(message)")
      } else {
        Output.error("pg-watch: demo failed: \(String(reflecting: error))")
      }
      return 1
    }
  }

  /// Runs `pg-watch demo` again under the repository's test-server script.
  private static func underTestServer() -> Int32 {
    // The package is Adapters/PostgresChangeSource of the repository; the
    // script is in its Scripts folder.
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let script = root.appendingPathComponent("Scripts/postgres-test-server.sh")
    let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    guard FileManager.default.isExecutableFile(atPath: script.path) else {
      Output.error(
        "pg-watch: demo: no server: set PGHOST, PGPORT, PGUSER and PGDATABASE, or run from the repository"
          + " (\(script.path) is missing)")
      return 1
    }
    Output.line("Starting a throwaway PostgreSQL server with Scripts/postgres-test-server.sh…")
    let process = Process()
    process.executableURL = script
    process.arguments = [executable.path, "demo"]
    do {
      try process.run()
    } catch {
      Output.error("pg-watch: demo: cannot run \(script.path): \(error)")
      return 1
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company", attributes: [.init("name", .string)],
          relationships: [.toMany("staff", destination: "Person", inverse: "employer")]),
        EntityDescription(
          "Person", attributes: [.init("name", .string), .init("age", .integer)],
          relationships: [.toOne("employer", destination: "Company", inverse: "staff")]),
      ])
    } catch {
      fatalError("the demo's schema is invalid: \(error)")
    }
  }()

  /// A client of the database that names itself as the author of its
  /// transactions.
  struct Client {
    var name: String
    var connection: PostgresConnection

    func transaction(_ statements: [String], commit: Bool = true) async throws {
      // Each statement's rows are read, so that its error is thrown here.
      _ = try await connection.query("BEGIN", logger: DemoCommand.logger).collect()
      _ = try await connection.query(
        PostgresQuery(unsafeSQL: "SELECT pg_logical_emit_message(true, 'context-watch.author', '\(name)')"),
        logger: DemoCommand.logger
      ).collect()
      for statement in statements {
        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: DemoCommand.logger).collect()
      }
      _ = try await connection.query(commit ? "COMMIT" : "ROLLBACK", logger: DemoCommand.logger).collect()
    }
  }

  static func name(_ snapshot: ObjectSnapshot) -> String {
    if case .string(let name)? = snapshot["name"] { return name }
    return snapshot.objectID.description
  }

  static func age(_ snapshot: ObjectSnapshot) -> String {
    if case .int(let age)? = snapshot["age"] { return "\(age)" }
    return "?"
  }

  static func story() async throws {
    let namespace = "watch_demo_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let setup = try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 1, logger: logger)
    func execute(_ sql: String) async throws {
      _ = try await setup.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
    }
    do {
      for statement in [
        "CREATE SCHEMA \(namespace)",
        "CREATE TABLE \(namespace).company (id bigint PRIMARY KEY, name text NOT NULL)",
        """
        CREATE TABLE \(namespace).person (id bigint PRIMARY KEY, name text NOT NULL, age integer NOT NULL,
          employer_id bigint REFERENCES \(namespace).company ON DELETE SET NULL)
        """,
        "ALTER TABLE \(namespace).company REPLICA IDENTITY FULL",
        "ALTER TABLE \(namespace).person REPLICA IDENTITY FULL",
      ] {
        try await execute(statement)
      }
      let mapping = try ReplicaMapping(
        schema: schema,
        tables: [
          TableMapping(entity: "Company", schema: namespace, table: "company"),
          TableMapping(entity: "Person", schema: namespace, table: "person"),
        ])
      let replica = PostgresReplica(
        configuration: .init(connection: try .fromEnvironment(), slot: namespace, mapping: mapping))
      try await follow(replica, namespace: namespace)
      await replica.stop()
    } catch {
      // Whatever failed, the slot and the tables go.
      try? await execute(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '\(namespace)'")
      try? await execute("DROP SCHEMA IF EXISTS \(namespace) CASCADE")
      try? await setup.close()
      throw error
    }
    try await execute("SELECT pg_drop_replication_slot('\(namespace)')")
    try await execute("DROP SCHEMA \(namespace) CASCADE")
    try await setup.close()
  }

  /// The story: the clients write, the replica follows, the watcher and
  /// the list monitor print what they see.
  private static func follow(_ replica: PostgresReplica, namespace: String) async throws {
    Output.line(
      """
      Tables \(namespace).company and .person, under REPLICA IDENTITY FULL. A PostgresReplica on slot
      '\(namespace)' keeps them in an ObjectContext; a watcher watches adults ("age >= 18") and a
      ListMonitor lists adults by age. Clients 'hr' and 'payroll' write; after each transaction the
      replica catches up, and each delivery is printed as it arrives.

      """)
    let watcher = ContextWatcher(
      context: replica.context,
      target: .handler(on: .immediate) { changes in
        let position = replica.position(ofSave: changes.sequenceNumber).map { " at \($0)" } ?? ""
        var parts: [String] = []
        for (label, objects) in [
          ("inserted", changes.inserted), ("deleted", changes.deleted),
          ("updated", changes.updated.map(\.after)), ("entered", changes.entered.map(\.after)),
          ("exited", changes.exited.map(\.after)),
        ] where !objects.isEmpty {
          parts.append("\(label) \(objects.map(name).sorted().joined(separator: ", "))")
        }
        Output.line(
          "  watcher: save \(changes.sequenceNumber)\(position) by \(changes.author ?? "nobody"): "
            + parts.joined(separator: "; "))
      })
    let adults = try watcher.watch("Person", where: "age >= 18")
    let list = try ListMonitor(
      context: replica.context,
      request: ListRequest("Person", where: "age >= %d", arguments: [18], sortedBy: [.ascending("age")]),
      scheduler: .immediate)
    let listed = list.observe { update in
      let changes = update.changes
      var edits: [String] = []
      edits += changes.deleted.map { "delete \(name($0.object)) at \($0.indexPath.item)" }
      edits += changes.inserted.map { "insert \(name($0.object)) at \($0.indexPath.item)" }
      edits += changes.moved.map { "move \(name($0.object)) \($0.from.item)→\($0.to.item)" }
      edits += changes.updated.map { "reload \(name($0.object)) at \($0.indexPath.item)" }
      let rows = (0..<update.content.numberOfSections).flatMap { update.content.objects(inSection: $0) }
        .map { "\(name($0)) (\(age($0)))" }
      Output.line("  list:    \(edits.joined(separator: ", ")) → [\(rows.joined(separator: ", "))]")
    }

    try await replica.start()
    let hr = Client(
      name: "hr",
      connection: try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 2, logger: logger))
    let payroll = Client(
      name: "payroll",
      connection: try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 3, logger: logger))
    do {
      let company = "\(namespace).company"
      let person = "\(namespace).person"
      let story: [(String, Client, [String], Bool)] = [
        (
          "hr adds Acme and Globex, Ann (34) at Acme and Bob (17) at Acme.", hr,
          [
            "INSERT INTO \(company) VALUES (1, 'Acme'), (2, 'Globex')",
            "INSERT INTO \(person) VALUES (1, 'Ann', 34, 1), (2, 'Bob', 17, 1)",
          ], true
        ),
        ("payroll: Bob turns 18 and enters the adults.", payroll, ["UPDATE \(person) SET age = 18 WHERE id = 2"], true),
        (
          "hr adds Cy (52) at Globex and moves Ann to Globex.", hr,
          [
            "INSERT INTO \(person) VALUES (3, 'Cy', 52, 2)",
            "UPDATE \(person) SET employer_id = 2 WHERE id = 1",
          ], true
        ),
        (
          "payroll corrects Cy's age to 16, then rolls back: nothing reaches the replica.", payroll,
          ["UPDATE \(person) SET age = 16 WHERE id = 3"], false
        ),
        (
          "payroll: Ann turns 60 and moves to the end of the list.", payroll,
          ["UPDATE \(person) SET age = 60 WHERE id = 1"], true
        ),
        (
          "hr closes Acme and Bob leaves.", hr,
          ["DELETE FROM \(person) WHERE id = 2", "DELETE FROM \(company) WHERE id = 1"], true
        ),
      ]
      for (title, client, statements, commit) in story {
        Output.line("• \(title)")
        try await client.transaction(statements, commit: commit)
        let saves = try await replica.catchUp()
        if saves == 0 { Output.line("  (no save)") }
        Output.line("")
      }
      let position = await replica.position
      Output.line(
        "The replica is at \(position.map(\.description) ?? "the load"); resume a process from there with --from.")
      adults.cancel()
      listed.cancel()
    } catch {
      try? await hr.connection.close()
      try? await payroll.connection.close()
      throw error
    }
    try await hr.connection.close()
    try await payroll.connection.close()
  }
}
