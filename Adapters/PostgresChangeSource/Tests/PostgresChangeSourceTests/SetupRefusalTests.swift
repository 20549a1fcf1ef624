import Foundation
import PostgresChangeSource
import PostgresNIO
import Testing

/// Servers set up wrong, each a throwaway server of its own: the replica
/// and `pg-watch` refuse to start, print no ready line, and name the
/// setting to change.
@Suite(
  "Servers set up wrong", .serialized, .postgresServer, .timeLimit(.minutes(5)))
struct SetupRefusalTests {
  /// Runs `body` against a scratch server with `settings`, the test tables
  /// created in schema `t`, and stops the server afterwards.
  static func withServer(
    _ settings: String, _ body: (ScratchServer, PgWatchTests.Files) async throws -> Void
  ) async throws {
    let server = try await ScratchServer(settings: settings)
    do {
      try await server.execute(TestDatabase.tables(in: "t"))
      let files = try await PgWatchTests.prepare("w") { try await server.execute($0) }
      try await body(server, files)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  @Test func aServerWhoseWalLevelIsNotLogicalIsNamed() async throws {
    try await Self.withServer("wal_level = replica") { server, files in
      let replica = try TestDatabase.replica(in: "t", connection: server.configuration)
      let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
      let refusal =
        "starting on slot 't': the server said: logical decoding requires wal_level >= logical (SQLSTATE 55000);"
        + " the server's wal_level is not logical: set wal_level = logical in postgresql.conf and restart it"
      #expect(error?.code == .serverError)
      #expect(error?.message == refusal)

      let watch = try PgWatchProcess(PgWatchTests.watchArguments("w", files), environment: server.environment)
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      #expect(
        result.errors
          == "pg-watch: cannot start the replica on slot 'w': serverError: "
          + refusal.replacingOccurrences(of: "slot 't'", with: "slot 'w'") + "\n")
    }
  }

  @Test func aServerWithoutAFreeReplicationSlotIsNamed() async throws {
    try await Self.withServer("max_replication_slots = 1") { server, files in
      try await server.execute("SELECT pg_create_physical_replication_slot('taken')")
      let replica = try TestDatabase.replica(in: "t", connection: server.configuration)
      let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
      let refusal =
        "starting on slot 't': the server said: all replication slots are in use (SQLSTATE 53400); the server has"
        + " no free replication slot: drop an unused one (pg_drop_replication_slot) or raise max_replication_slots"
        + " (the server's hint: Free one or increase max_replication_slots.)"
      #expect(error?.code == .serverError)
      #expect(error?.message == refusal)

      // It stops by itself, not ready, with its input still open.
      let watch = try PgWatchProcess(PgWatchTests.watchArguments("w", files), environment: server.environment)
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      #expect(
        result.errors
          == "pg-watch: cannot start the replica on slot 'w': serverError: "
          + refusal.replacingOccurrences(of: "slot 't'", with: "slot 'w'") + "\n")
    }
  }

  /// No WAL sender for the stream: the start says so, and leaves no slot;
  /// polling, which needs none, follows the same server.
  @Test func aServerWithoutAFreeWALSenderIsNamedAndPollingStillFollowsIt() async throws {
    try await Self.withServer("max_wal_senders = 0") { server, files in
      let replica = try TestDatabase.replica(in: "t", connection: server.configuration)
      let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
      let refusal =
        "streaming slot 't': the server said: number of requested standby connections exceeds max_wal_senders"
        + " (currently 0); the server has no free WAL sender for the stream: raise max_wal_senders in"
        + " postgresql.conf and restart it, or read with the polling read mode"
      #expect(error?.code == .serverError)
      #expect(error?.message == refusal)

      let watch = try PgWatchProcess(PgWatchTests.watchArguments("w", files), environment: server.environment)
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      #expect(
        result.errors
          == "pg-watch: cannot start the replica on slot 'w': serverError: "
          + refusal.replacingOccurrences(of: "slot 't'", with: "slot 'w'") + "\n")

      let polling = try TestDatabase.replica(in: "t", readMode: .polling, connection: server.configuration)
      try await polling.start()
      try await server.execute("INSERT INTO t.company VALUES (1, 'Acme', NULL)")
      #expect(try await polling.catchUp() == 1)
      #expect(TestDatabase.replicaContent(polling) == ["Company 1 name=Acme founded=nil"])
      await polling.stop()
    }
  }

  @Test func aServerThatAllowsNoReplicationSlotIsNamed() async throws {
    try await Self.withServer("max_replication_slots = 0") { server, _ in
      let replica = try TestDatabase.replica(in: "t", connection: server.configuration)
      let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
      #expect(error?.code == .serverError)
      #expect(
        error?.message
          == "starting on slot 't': the server said: replication slots can only be used if max_replication_slots > 0"
          + " (SQLSTATE 55000); the server allows no replication slot: set max_replication_slots to 1 or more in"
          + " postgresql.conf and restart it")
    }
  }

  /// A server that asks every role but `postgres` for a password on
  /// loopback: the replica's role's password changes while it runs, and
  /// the server drops its connections. Connecting again is refused, which
  /// trying again cannot change: the run ends with the server's message
  /// and what to check, in both read modes.
  @Test func aPasswordChangedWhileRunningEndsTheReplica() async throws {
    let hba = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(TestDatabase.uniqueName())_hba.conf")
    try """
    local all all trust
    host all postgres 127.0.0.1/32 trust
    host all all 127.0.0.1/32 scram-sha-256
    """.write(to: hba, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: hba.path)
    defer { try? FileManager.default.removeItem(at: hba) }
    try await Self.withServer("hba_file = '\(hba.path)'") { server, _ in
      for mode in [PostgresReplica.ReadMode.streaming, .polling] {
        let role = "app_\(mode)"
        try await server.execute("CREATE ROLE \(role) LOGIN SUPERUSER PASSWORD 'secret'")
        var connection = server.configuration
        connection.username = role
        connection.password = "secret"
        let replica = try TestDatabase.replica(
          in: "t", slot: "t_\(mode)", readMode: mode, connection: connection)
        try await replica.start()
        let ended = Recorder<PostgresReplicaError>()
        let running = Task {
          do {
            try await replica.run()
          } catch let error as PostgresReplicaError {
            ended.append(error)
          }
        }
        try await server.execute(
          """
          ALTER ROLE \(role) PASSWORD 'changed';
          SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'
          """)
        let stopped = try await RunTests.eventually(20) { !ended.values.isEmpty }
        running.cancel()
        _ = try? await running.value
        #expect(stopped, "\(mode): the replica goes on connecting")
        let error = try #require(ended.values.first)
        #expect(error.code == .serverError, "\(mode)")
        let host = server.environment["PGHOST"] ?? "127.0.0.1"
        let port = server.environment["PGPORT"] ?? "?"
        let refusal =
          "cannot connect to the database 'postgres' at \(host):\(port) as '\(role)': password authentication"
          + " failed for user \"\(role)\"; check PGUSER and PGPASSWORD"
        // Streaming, the replication connection may be the first to be
        // refused, through libpq, which gives no SQLSTATE.
        let streamingRefusal =
          "streaming slot 't_\(mode)': the server said: password authentication failed for user \"\(role)\";"
          + " check PGUSER and PGPASSWORD"
        #expect(error.message == refusal || (mode == .streaming && error.message == streamingRefusal), "\(error)")
        await replica.stop()
      }
    }
  }
}
