import Foundation
import Logging
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL
import Testing

/// The server that Scripts/postgres-test-server.sh starts, reached through
/// libpq's variables. CI runs the tests under the script; when PGPORT is not
/// set, the first test that needs a server starts one of its own through
/// the script (see ``available()``), so that a plain `swift test` tests the
/// adapter too.
enum TestDatabase {
  /// Why the tests that need a server were skipped, in the test output.
  static let skipNote: Comment = """
    no PostgreSQL server: PGPORT is not set and Scripts/postgres-test-server.sh could not start one \
    (it needs PostgreSQL 15 and wal2json, which it installs when run as root); \
    run Scripts/postgres-test-server.sh swift test --package-path Adapters/PostgresChangeSource
    """

  /// Whether a server is there: the one libpq's variables name, or else one
  /// this process starts (once) through the script, whose variables it then
  /// sets, for the tests and the `pg-watch` processes they start. The server
  /// stops when this process ends and closes the script's input.
  static func available() async -> Bool {
    await ownServer.value
  }

  private static let ownServer = Task<Bool, Never> {
    if ProcessInfo.processInfo.environment["PGPORT"] != nil { return true }
    do {
      let server = try await ScratchServer(settings: "")
      for (name, value) in server.environment { setenv(name, value, 1) }
      startedServer = server
      let port = server.environment["PGPORT"] ?? "?"
      print("PostgresChangeSourceTests: PGPORT was not set; started a throwaway server at port \(port)")
      return true
    } catch {
      print(
        "PostgresChangeSourceTests: PGPORT is not set and no throwaway server started (\(error));",
        "the tests that need a server are skipped")
      return false
    }
  }

  /// The server ``available()`` started, kept for the process's lifetime:
  /// were it released, its input would close and the script would stop it.
  /// Written once, by `ownServer`, and never read.
  nonisolated(unsafe) private static var startedServer: ScratchServer?

  static let logger = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

  static func connect() async throws -> PostgresConnection {
    try await PostgresConnection.connect(
      configuration: try .fromEnvironment(), id: Int.random(in: 1000...9999), logger: logger)
  }

  /// Runs statements separated by semicolons (none inside a literal), one
  /// after the other on one fresh connection, reading each one's rows so
  /// that its error is thrown.
  static func execute(_ sql: String) async throws {
    let connection = try await connect()
    defer { Task { try? await connection.close() } }
    for statement in sql.split(separator: ";") {
      let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
      if !text.isEmpty { _ = try await connection.query(PostgresQuery(unsafeSQL: text), logger: logger).collect() }
    }
  }

  /// A fresh namespace and slot name for one test: `t_1a2b3c4d`.
  static func uniqueName() -> String {
    "t_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
  }

  /// Companies and people; people have an optional employer.
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company",
          attributes: [.init("name", .string), .init("founded", .date, isOptional: true)],
          relationships: [.toMany("employees", destination: "Person", inverse: "employer")]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string),
            .init("age", .integer, isOptional: true),
            .init("score", .double, isOptional: true),
            .init("active", .boolean, isOptional: true),
            .init("token", .uuid, isOptional: true),
            .init("avatar", .data, isOptional: true),
          ],
          relationships: [.toOne("employer", destination: "Company", inverse: "employees")]),
      ])
    } catch {
      fatalError("the test schema is invalid: \(error)")
    }
  }()

  /// The tables of `schema` in namespace `namespace`.
  static func createTables(in namespace: String) async throws {
    try await execute(tables(in: namespace))
  }

  /// The statements that create the tables of `schema` in `namespace`.
  static func tables(in namespace: String) -> String {
    """
    CREATE SCHEMA \(namespace);
    CREATE TABLE \(namespace).company (id bigint PRIMARY KEY, name text NOT NULL, founded timestamptz);
    CREATE TABLE \(namespace).person (
      id bigint PRIMARY KEY, name text NOT NULL, age integer, score double precision, active boolean,
      token uuid, avatar bytea,
      employer_id bigint REFERENCES \(namespace).company (id) ON DELETE SET NULL);
    ALTER TABLE \(namespace).company REPLICA IDENTITY FULL;
    ALTER TABLE \(namespace).person REPLICA IDENTITY FULL
    """
  }

  static func mapping(in namespace: String) throws -> ReplicaMapping {
    try ReplicaMapping(
      schema: schema,
      tables: [
        TableMapping(entity: "Company", schema: namespace, table: "company"),
        TableMapping(entity: "Person", schema: namespace, table: "person"),
      ])
  }

  static func replica(
    in namespace: String, slot: String? = nil, failurePolicy: PostgresReplica.FailurePolicy = .stop,
    readMode: PostgresReplica.ReadMode = .streaming, connection: PostgresConnection.Configuration? = nil
  ) throws -> PostgresReplica {
    PostgresReplica(
      configuration: .init(
        connection: try connection ?? .fromEnvironment(), slot: slot ?? namespace,
        mapping: try mapping(in: namespace), failurePolicy: failurePolicy, readMode: readMode, batchSize: 200))
  }

  /// The test server's configuration with server settings for the
  /// session: `["dynamic_library_path": "/nowhere"]`.
  static func configuration(settings: [String: String]) throws -> PostgresConnection.Configuration {
    var configuration = try PostgresConnection.Configuration.fromEnvironment()
    configuration.options.additionalStartupParameters += settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    return configuration
  }

  /// Drops a test's namespace and slot.
  static func cleanUp(_ namespace: String, slot: String? = nil) async {
    try? await execute(
      """
      SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '\(slot ?? namespace)';
      DROP SCHEMA IF EXISTS \(namespace) CASCADE;
      """)
  }

  /// Every row of both tables as the replica should hold them: one line per
  /// row, sorted.
  static func databaseContent(_ namespace: String) async throws -> [String] {
    let connection = try await connect()
    defer { Task { try? await connection.close() } }
    var lines: [String] = []
    for try await (id, name, founded) in try await connection.query(
      PostgresQuery(
        unsafeSQL:
          "SELECT id, name, (extract(epoch FROM founded) - 978307200)::float8 FROM \(namespace).company"),
      logger: logger
    ).decode((Int64, String, Double?).self) {
      lines.append("Company \(id) name=\(name) founded=\(founded.map { "\($0)" } ?? "nil")")
    }
    for try await (id, name, age, score, active, token, employer) in try await connection.query(
      PostgresQuery(
        unsafeSQL:
          "SELECT id, name, age, score, active, token::text, employer_id FROM \(namespace).person"),
      logger: logger
    ).decode((Int64, String, Int32?, Double?, Bool?, String?, Int64?).self) {
      lines.append(
        "Person \(id) name=\(name) age=\(age.map { "\($0)" } ?? "nil") score=\(score.map { "\($0)" } ?? "nil")"
          + " active=\(active.map { "\($0)" } ?? "nil") token=\(token?.uppercased() ?? "nil")"
          + " employer=\(employer.map { "\($0)" } ?? "nil")")
    }
    return lines.sorted()
  }

  /// The replica's objects in the form of `databaseContent`.
  static func replicaContent(_ replica: PostgresReplica) -> [String] {
    replica.context.performAndWait { context in
      var lines: [String] = []
      for company in (try? context.objects(of: "Company")) ?? [] {
        let founded: String
        if case .date(let seconds)? = company["founded"] { founded = "\(seconds)" } else { founded = "nil" }
        lines.append(
          "Company \(replica.primaryKey(of: company.objectID) ?? "?") name=\(text(company["name"]))"
            + " founded=\(founded)")
      }
      for person in (try? context.objects(of: "Person")) ?? [] {
        var employer = "nil"
        if case .toOne(let id?)? = person.targets(of: "employer") { employer = replica.primaryKey(of: id) ?? "?" }
        lines.append(
          "Person \(replica.primaryKey(of: person.objectID) ?? "?") name=\(text(person["name"]))"
            + " age=\(text(person["age"])) score=\(text(person["score"])) active=\(text(person["active"]))"
            + " token=\(text(person["token"])) employer=\(employer)")
      }
      return lines.sorted()
    }
  }

  private static func text(_ value: FilterValue?) -> String {
    switch value {
    case nil, .null?: "nil"
    case .string(let text)?: text
    case .int(let number)?: "\(number)"
    case .double(let number)?: "\(number)"
    case .bool(let flag)?: "\(flag)"
    case .uuid(let bits)?: uuidText(bits)
    default: "\(value!)"
    }
  }

  /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
  static func uuidText(_ bits: UInt128) -> String {
    var hex = String(bits, radix: 16, uppercase: true)
    hex = String(repeating: "0", count: 32 - hex.count) + hex
    let characters = Array(hex)
    return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs a suite against a PostgreSQL server: the configured one, or one the
  /// tests start; skipped, with ``TestDatabase/skipNote`` in the output, when
  /// there is none.
  static var postgresServer: Self {
    .enabled(TestDatabase.skipNote) { await TestDatabase.available() }
  }
}
