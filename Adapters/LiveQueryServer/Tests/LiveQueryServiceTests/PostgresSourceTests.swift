import Foundation
import LiveQueryCore
import LiveQueryTestSupport
import Testing

/// `live-query-server --postgres` over the throwaway server of
/// `Scripts/postgres-test-server.sh`: random SQL writes, with an owner
/// change among them, reach a client as changes that, applied to its
/// snapshot, give a fresh subscription's snapshot.
@Suite(
  .serialized,
  .enabled(
    if: ProcessInfo.processInfo.environment["PGPORT"] != nil,
    "needs a PostgreSQL server: Scripts/postgres-test-server.sh swift test --package-path Adapters/LiveQueryServer"))
struct PostgresSourceTests {
  static let schema = """
    {"entities": [{"name": "Task", "table": "live_tasks", "attributes": {
      "title": {"type": "string"}, "owner": {"type": "string"}, "priority": {"type": "integer"},
      "status": {"type": "string"}, "updatedAt": {"type": "date"}},
      "columns": {"updatedAt": "updated_at"}}]}
    """

  static let policy = """
    {"entities": {"Task": {"read": "owner == $sub OR $role == 'admin'",
      "attributes": {"*": ["title", "owner", "priority", "status", "updatedAt"]}}}}
    """

  /// Runs SQL with psql against the test server.
  static func sql(_ statements: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-c", statements]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      throw ServerProcessError(message: "psql: \(message)")
    }
  }

  static let board =
    #"{"op":"subscribe","id":"b","entity":"Task","sort":[{"key":"status"},{"key":"priority","ascending":false},{"key":"title"}],"section":"status","limit":8}"#

  @Test func randomWritesReachTheClientAsChangesThatRebuildTheList() async throws {
    try Self.sql(
      """
      DROP TABLE IF EXISTS live_tasks;
      SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'live_test';
      CREATE TABLE live_tasks (id bigint PRIMARY KEY, title text NOT NULL, owner text NOT NULL,
        priority bigint NOT NULL, status text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
      ALTER TABLE live_tasks REPLICA IDENTITY FULL;
      INSERT INTO live_tasks (id, title, owner, priority, status)
        SELECT n, 'task ' || n, 'u' || (n % 3 + 1), n % 10, (ARRAY['todo','doing','done'])[n % 3 + 1]
        FROM generate_series(1, 30) AS n;
      """)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-pg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let schemaFile = directory.appendingPathComponent("schema.json")
    let policyFile = directory.appendingPathComponent("policy.json")
    try Self.schema.write(to: schemaFile, atomically: true, encoding: .utf8)
    try Self.policy.write(to: policyFile, atomically: true, encoding: .utf8)
    let server = try await ServerProcess([
      "--postgres", "--schema", schemaFile.path, "--policy", policyFile.path, "--slot", "live_test",
    ])
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    client.send(Self.board)
    #expect(try await client.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    // Random writes, one transaction each: priorities and statuses (moves
    // within and between sections), owner changes, inserts and deletes.
    var generator = SystemRandomNumberGenerator()
    var next = 31
    for step in 0..<60 {
      let id = Int.random(in: 1..<next, using: &generator)
      switch step % 6 {
      case 0: try Self.sql("UPDATE live_tasks SET priority = \(step % 10), updated_at = now() WHERE id = \(id)")
      case 1:
        try Self.sql("UPDATE live_tasks SET status = '\(["todo", "doing", "done"][step % 3])' WHERE id = \(id)")
      case 2: try Self.sql("UPDATE live_tasks SET owner = 'u\(step % 3 + 1)' WHERE id = \(id)")
      case 3:
        try Self.sql(
          "INSERT INTO live_tasks (id, title, owner, priority, status) VALUES (\(next), 'new \(next)', 'u1', \(step % 10), 'todo')"
        )
        next += 1
      case 4: try Self.sql("DELETE FROM live_tasks WHERE id = \(id)")
      default: try Self.sql("UPDATE live_tasks SET title = 'renamed \(step)' WHERE id = \(id)")
      }
    }
    // The replica has applied every write once /health's seq stops moving
    // past the last write's save (one save per transaction here).
    let fresh = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    var expected: ClientMirror?
    var mirror: ClientMirror?
    for _ in 0..<100 {
      try await Task.sleep(for: .milliseconds(200))
      fresh.send(#"{"op":"unsubscribe","id":"b"}"#)
      fresh.send(Self.board)
      try await Task.sleep(for: .milliseconds(100))
      expected =
        fresh.messages.reversed().lazy.compactMap { if case .snapshot(let s) = $0 { ClientMirror(s) } else { nil } }
        .first
      mirror = Self.mirror(of: client.messages)
      if let expected, let mirror, expected.rows == mirror.rows { break }
    }
    #expect(mirror?.rows == expected?.rows, "\(mirror?.description ?? "none") vs \(expected?.description ?? "none")")
    #expect(client.messages.filter { if case .changes = $0 { true } else { false } }.count > 5)
    #expect(try server.get("/metrics").body.contains("\nlive_replica_lag_bytes "))
  }

  /// The client's list: its snapshot with every `changes` after it applied.
  static func mirror(of messages: [ServerMessage]) -> ClientMirror? {
    var mirror: ClientMirror?
    for message in messages {
      switch message {
      case .snapshot(let snapshot): mirror = ClientMirror(snapshot)
      case .changes(let changes): mirror?.apply(changes)
      default: break
      }
    }
    return mirror
  }
}
