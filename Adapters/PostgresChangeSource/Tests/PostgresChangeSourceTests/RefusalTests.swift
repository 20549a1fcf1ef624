import Foundation
import Logging
import PostgresNIO
import Testing

@testable import PostgresChangeSource

/// Each statement the server can refuse, refused by the test server: the
/// error is thrown where the statement runs, and says what to do.
@Suite("The server's refusals, where they happen", .postgresServer, .timeLimit(.minutes(5)))
struct RefusalTests {
  /// A session setting that hides every library the server would load by
  /// name: wal2json, for one, is then not installed as far as the session
  /// can tell.
  static let withoutWal2JSON = ["dynamic_library_path": "/nonexistent"]

  static let missingWal2JSON =
    "the server said: could not access file \"wal2json\": No such file or directory (SQLSTATE 58P01); wal2json is"
    + " not installed on the server: install it (Debian: postgresql-15-wal2json)"

  static let noReplication =
    "the server said: must be superuser or replication role to use replication slots (SQLSTATE 42501); the user"
    + " lacks the replication privilege: ALTER ROLE ... WITH REPLICATION, or connect as one that has it"

  /// Whether the slot exists on the test server.
  static func slotExists(_ slot: String) async throws -> Bool {
    let connection = try await TestDatabase.connect()
    defer { Task { try? await connection.close() } }
    var count = 0
    for try await (number, ) in try await connection.query(
      "SELECT count(*)::int8 FROM pg_replication_slots WHERE slot_name = \(slot)", logger: TestDatabase.logger
    ).decode((Int64,).self) {
      count = Int(number)
    }
    return count > 0
  }

  @Test func aStatementsErrorAfterItsFirstRowsIsThrownByDraining() async throws {
    let connection = try await TestDatabase.connect()
    defer { Task { try? await connection.close() } }
    // Two rows come before the error: the client has returned the rows by
    // then, and only reading on finds the error.
    let rows = try await connection.query(
      "SELECT CASE WHEN n < 3 THEN n ELSE 1 / (n - n) END FROM generate_series(1, 5) AS n",
      logger: TestDatabase.logger)
    let error = await #expect(throws: PSQLError.self) { try await rows.drain() }
    #expect(error?.serverInfo?[.message] == "division by zero")
    #expect(error?.serverInfo?[.sqlState] == "22012")
  }

  @Test func wal2jsonMissingStopsTheStartAndLeavesNoSlot() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    let replica = try TestDatabase.replica(
      in: namespace, connection: try TestDatabase.configuration(settings: Self.withoutWal2JSON))
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .serverError)
    #expect(error?.message == "starting on slot '\(namespace)': \(Self.missingWal2JSON)")
    #expect(TestDatabase.replicaContent(replica).isEmpty)
    #expect(try await Self.slotExists(namespace) == false)
  }

  @Test func wal2jsonNotTrustedAsAnOutputPluginIsNamed() async throws {
    // Only servers that have `output_plugin_libraries` (PostgreSQL 15.19,
    // 16.11, 17.7 and later) refuse a plugin they do not list.
    let connection = try await TestDatabase.connect()
    var known = false
    for try await (count, ) in try await connection.query(
      "SELECT count(*)::int8 FROM pg_settings WHERE name = 'output_plugin_libraries'", logger: TestDatabase.logger
    ).decode((Int64,).self) {
      known = count > 0
    }
    try await connection.close()
    guard known else {
      try Test.cancel(
        "this server has no output_plugin_libraries (PostgreSQL before 15.19, 16.11, 17.7): nothing to refuse")
    }
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(
      in: namespace, connection: try TestDatabase.configuration(settings: ["output_plugin_libraries": "pgoutput"]))
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .serverError)
    #expect(
      error?.message
        == "starting on slot '\(namespace)': the server said: library \"wal2json\" may not be used as an output"
        + " plugin (SQLSTATE 42501); the server does not trust wal2json as an output plugin: add it to"
        + " output_plugin_libraries in postgresql.conf (PostgreSQL 15.19 and later) and reload the server (the"
        + " server's hint: If it is safe for all REPLICATION users to use this library as an output plugin, add it"
        + " to \"output_plugin_libraries\" and reload the server configuration.)")
    #expect(try await Self.slotExists(namespace) == false)
  }

  @Test func wal2jsonGoneSinceTheSlotWasMadeStopsAResume() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let first = try TestDatabase.replica(in: namespace)
    try await first.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    try await first.catchUp()
    let position = try #require(await first.position)
    await first.stop()
    // The resume reads the slot (to learn wal2json's number format), and
    // the server cannot load the plugin.
    let resumed = try TestDatabase.replica(
      in: namespace, connection: try TestDatabase.configuration(settings: Self.withoutWal2JSON))
    let error = await #expect(throws: PostgresReplicaError.self) { try await resumed.start(from: position) }
    #expect(error?.code == .serverError)
    #expect(error?.message == "starting on slot '\(namespace)': \(Self.missingWal2JSON)")
    #expect(try await PgWatchLossTests.acknowledged(namespace) == position.pastCommit.description)
  }

  @Test func aRoleThatMayNotReadAMappedTableIsToldWhichAndLeavesNoSlot() async throws {
    let namespace = TestDatabase.uniqueName()
    defer {
      Task {
        await TestDatabase.cleanUp(namespace)
        try? await TestDatabase.execute("DROP ROLE IF EXISTS \(namespace)")
      }
    }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute(
      """
      CREATE ROLE \(namespace) LOGIN REPLICATION;
      GRANT USAGE ON SCHEMA \(namespace) TO \(namespace);
      GRANT SELECT ON \(namespace).company TO \(namespace)
      """)
    var connection = try PostgresConnection.Configuration.fromEnvironment()
    connection.username = namespace
    let replica = try TestDatabase.replica(in: namespace, connection: connection)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .serverError)
    #expect(
      error?.message
        == "starting on slot '\(namespace)': the server said: permission denied for table person (SQLSTATE 42501);"
        + " the user may not read table person: GRANT SELECT on it to the user, or connect as one that may")
    #expect(try await Self.slotExists(namespace) == false)
  }

  /// A role that loses the replication privilege while it reads: reading
  /// the slot, acknowledging a position and dropping the slot are each
  /// refused, and say why; the slot stays where it was.
  @Test func aRoleThatLosesTheReplicationPrivilegeIsToldSoAtEveryStatement() async throws {
    let namespace = TestDatabase.uniqueName()
    defer {
      Task {
        await TestDatabase.cleanUp(namespace)
        try? await TestDatabase.execute("DROP ROLE IF EXISTS \(namespace)")
      }
    }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute(
      """
      CREATE ROLE \(namespace) LOGIN REPLICATION;
      GRANT USAGE ON SCHEMA \(namespace) TO \(namespace);
      GRANT SELECT ON ALL TABLES IN SCHEMA \(namespace) TO \(namespace)
      """)
    var configuration = try PostgresConnection.Configuration.fromEnvironment()
    configuration.username = namespace
    let replica = try TestDatabase.replica(in: namespace, readMode: .polling, connection: configuration)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")

    // The stream of its own reads a transaction; the role then loses the
    // privilege before the stream acknowledges it.
    await replica.stop()
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: 3, logger: TestDatabase.logger)
    let stream = ChangeStream(connection: connection, slot: namespace)
    let transactions = try await stream.fetch(after: nil, limit: 100)
    let read = try #require(transactions.last?.position)
    let before = try await PgWatchLossTests.acknowledged(namespace)
    try await TestDatabase.execute("ALTER ROLE \(namespace) NOREPLICATION")
    let acknowledging = await #expect(throws: PSQLError.self) { try await stream.acknowledge(read) }
    #expect(
      acknowledging?.serverInfo?[.message] == "must be superuser or replication role to use replication slots")
    #expect(try await PgWatchLossTests.acknowledged(namespace) == before)
    // The replica's own statements, once the stream has let go of the slot.
    try await connection.close()

    let reading = await #expect(throws: PostgresReplicaError.self) { try await replica.poll() }
    #expect(reading?.code == .serverError)
    #expect(reading?.message == "reading slot '\(namespace)': \(Self.noReplication)")
    let dropping = await #expect(throws: PostgresReplicaError.self) { try await replica.dropSlot() }
    #expect(dropping?.code == .serverError)
    #expect(dropping?.message == "dropping slot '\(namespace)': \(Self.noReplication)")
    #expect(try await Self.slotExists(namespace))
    #expect(try await PgWatchLossTests.acknowledged(namespace) == before)
    await replica.stop()

    // Streaming, the replication connection is refused.
    try await TestDatabase.execute("ALTER ROLE \(namespace) REPLICATION")
    let streaming = try TestDatabase.replica(in: namespace, slot: namespace + "_s", connection: configuration)
    try await streaming.start()
    try await TestDatabase.execute(
      """
      ALTER ROLE \(namespace) NOREPLICATION;
      SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = 'context-watch \(namespace)_s'
      """)
    var streamingError: PostgresReplicaError?
    for _ in 0..<100 where streamingError == nil {
      do {
        try await streaming.poll()
        try await Task.sleep(for: .milliseconds(20))
      } catch let error as PostgresReplicaError {
        // The lost connection first, when the feed finds it before the
        // replica does; then the refusal of the new one.
        if error.code != .connectionLost { streamingError = error }
      }
    }
    #expect(streamingError?.code == .serverError)
    #expect(
      streamingError?.message
        == "streaming slot '\(namespace)_s': the server said: must be superuser or replication role to start"
        + " walsender; the user lacks the replication privilege: ALTER ROLE ... WITH REPLICATION, or connect as"
        + " one that has it")
    await streaming.stop()
    try await TestDatabase.execute("SELECT pg_drop_replication_slot('\(namespace)_s')")
  }

  /// A session that streams the slot without claiming it (a
  /// `pg_recvlogical`, say) holds it: the start names it.
  @Test func aSlotThatAnotherSessionStreamsIsNamed() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let first = try TestDatabase.replica(in: namespace, readMode: .polling)
    try await first.start()
    await first.stop()
    let (parameters, place) = try PostgresConnection.Configuration.fromEnvironment().libpqParameters()
    let holder = try await ReplicationFeed.open(
      .init(
        parameters: parameters, place: place, slot: namespace, start: nil,
        pluginOptions: ChangeStream.pluginOptions(messagePrefixes: [], numbersAsText: false), messagePrefixes: [],
        queueLimit: 100))
    let pid = try #require(try await StreamingTests.walSender(namespace))
    let replica = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .serverError)
    #expect(
      error?.message
        == "starting on slot '\(namespace)': the server said: replication slot \"\(namespace)\" is active for PID"
        + " \(pid) (SQLSTATE 55006); another session reads the slot: stop it (pg_terminate_backend on that PID),"
        + " or give each reader a slot of its own")
    await holder.stop()
    // The slot was there before the start, and stays.
    #expect(try await Self.slotExists(namespace))
  }

  @Test func pgWatchNamesAMissingWal2JSONAndPrintsNoReadyLine() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      let watch = try PgWatchProcess(
        PgWatchTests.watchArguments(namespace, files),
        environment: ["PGOPTIONS": "-c dynamic_library_path=/nonexistent"])
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      #expect(
        result.errors
          == "pg-watch: cannot start the replica on slot '\(namespace)': serverError: starting on slot"
          + " '\(namespace)': \(Self.missingWal2JSON)\n")
      #expect(try await Self.slotExists(namespace) == false)
    }
  }

  @Test func pgWatchNamesAMissingReplicationPrivilege() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      defer { Task { try? await TestDatabase.execute("DROP ROLE IF EXISTS \(namespace)") } }
      try await TestDatabase.execute(
        """
        CREATE ROLE \(namespace) LOGIN;
        GRANT USAGE ON SCHEMA \(namespace) TO \(namespace);
        GRANT SELECT ON ALL TABLES IN SCHEMA \(namespace) TO \(namespace)
        """)
      let watch = try PgWatchProcess(PgWatchTests.watchArguments(namespace, files), environment: ["PGUSER": namespace])
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      #expect(
        result.errors
          == "pg-watch: cannot start the replica on slot '\(namespace)': serverError: starting on slot"
          + " '\(namespace)': \(Self.noReplication)\n")
    }
  }
}
