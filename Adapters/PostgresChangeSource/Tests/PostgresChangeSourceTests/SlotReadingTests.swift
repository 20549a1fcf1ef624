import Foundation
import ObjectGraph
import PostgresNIO
import PredicateDSL
import Testing

@testable import PostgresChangeSource

/// How a replica reads its slot: never again what it delivered, never past
/// a gap another reader made, and every value as the database holds it.
@Suite("Reading the slot", .postgresServer, .timeLimit(.minutes(5)))
struct SlotReadingTests {
  @Test func anIdleReplicaReadsNothingAgainAfterALargeTransaction() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace, readMode: .polling)
    try await replica.start()
    try await TestDatabase.execute(
      "INSERT INTO \(namespace).person (id, name) SELECT n, 'p' || n FROM generate_series(1, 5000) AS n")
    #expect(try await replica.catchUp() == 1)
    let before = await replica.slotReading
    for _ in 0..<10 { #expect(try await replica.poll() == 0) }
    let after = await replica.slotReading
    // One read a poll, and no line of the delivered transaction again (the
    // slot decodes the other tests' transactions too: a few lines each).
    #expect(after.reads - before.reads == 10)
    #expect(after.lines - before.lines < 2000, "\(after.lines - before.lines) lines read while idle")
    try await replica.dropSlot()
  }

  @Test func aStreamFindingTheSlotMovedPastItWhileDisconnectedStopsBeforeDeliveringAfterTheGap() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    #expect(try await replica.catchUp() == 1)
    let position = try #require(await replica.position)
    // The replica's connections are lost; a reader that does not claim the
    // slot consumes two transactions before the replica is back.
    try await TestDatabase.execute(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'context-watch \(namespace)';
      INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL);
      INSERT INTO \(namespace).company VALUES (3, 'Gamma', NULL)
      """)
    try await Self.advanceWhenFree(namespace)
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (4, 'Delta', NULL)")
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.catchUp() }
    #expect(error?.code == .positionNotHeld)
    let message = try #require(error?.message)
    #expect(message.hasPrefix("slot '\(namespace)' was acknowledged to "), "\(message)")
    // The replica stands past the other tests' transactions it passed
    // over, and never past the gap.
    let stands = try #require(await replica.position)
    #expect(stands >= position)
    #expect(
      message.hasSuffix(
        " by another reader, past \(stands.pastCommit) where this reader stands; the"
          + " transactions in between were not delivered here and the slot no longer holds them: give each reader"
          + " a slot of its own, and load again"), "\(message)")
    #expect(TestDatabase.replicaContent(replica) == ["Company 1 name=Acme founded=nil"])
    await replica.stop()
  }

  /// Moves the slot to the end of the log from SQL, once the stream that
  /// held it has let go.
  static func advanceWhenFree(_ slot: String) async throws {
    for attempt in 0..<100 {
      do {
        try await TestDatabase.execute("SELECT pg_replication_slot_advance('\(slot)', pg_current_wal_lsn())")
        return
      } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55006" && attempt < 99 {
        try await Task.sleep(for: .milliseconds(50))
      }
    }
  }

  @Test func aReaderFindingTheSlotMovedPastItStopsBeforeDeliveringAfterTheGap() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace, readMode: .polling)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    #expect(try await replica.catchUp() == 1)
    let position = try #require(await replica.position)
    // A reader that does not claim the slot consumes two transactions.
    try await TestDatabase.execute(
      """
      INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL);
      INSERT INTO \(namespace).company VALUES (3, 'Gamma', NULL);
      SELECT pg_replication_slot_advance('\(namespace)', pg_current_wal_lsn());
      INSERT INTO \(namespace).company VALUES (4, 'Delta', NULL)
      """)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.poll() }
    #expect(error?.code == .positionNotHeld)
    let message = try #require(error?.message)
    #expect(message.hasPrefix("slot '\(namespace)' was acknowledged to "), "\(message)")
    #expect(
      message.hasSuffix(
        " by another reader, past \(position.pastCommit) where this reader stands; the transactions in between"
          + " were not delivered here and the slot no longer holds them: give each reader a slot of its own,"
          + " and load again"), "\(message)")
    // Nothing after the gap was applied.
    #expect(TestDatabase.replicaContent(replica) == ["Company 1 name=Acme founded=nil"])
    try await replica.dropSlot()
  }

  @Test func nonFiniteNumbersAndExtremeDatesKeepTheirValues() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let rows = """
      INSERT INTO \(namespace).company VALUES
        (OFFSET + 1, 'a', 'infinity'), (OFFSET + 2, 'b', '-infinity'), (OFFSET + 3, 'c', '0044-03-15 12:00:00+00 BC'),
        (OFFSET + 4, 'd', '294276-12-31 23:59:59+00'), (OFFSET + 5, 'e', '0001-01-01 00:00:00+00');
      INSERT INTO \(namespace).person (id, name, score) VALUES
        (OFFSET + 1, 'nan', 'NaN'), (OFFSET + 2, 'inf', 'Infinity'), (OFFSET + 3, 'minus', '-Infinity'),
        (OFFSET + 4, 'null', NULL)
      """
    try await TestDatabase.execute(rows.replacingOccurrences(of: "OFFSET", with: "0"))
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    // The load reads every value exactly.
    #expect(TestDatabase.replicaContent(replica) == (try await TestDatabase.databaseContent(namespace)))
    let loaded = Self.scores(replica)
    #expect(loaded["1"]??.isNaN == true)
    #expect(loaded["2"] == .some(.infinity) && loaded["3"] == .some(-.infinity))
    #expect(loaded["4"] == .some(nil))

    // The stream reads the dates exactly, and the numbers as the server's
    // wal2json writes them.
    try await TestDatabase.execute(rows.replacingOccurrences(of: "OFFSET", with: "10"))
    try await replica.catchUp()
    let companies = try await TestDatabase.databaseContent(namespace).filter { $0.hasPrefix("Company") }
    #expect(TestDatabase.replicaContent(replica).filter { $0.hasPrefix("Company") } == companies)
    let streamed = Self.scores(replica)
    guard let keepsNonFinite = await replica.streamKeepsNonFiniteNumbers else {
      Issue.record("the replica started without finding out wal2json's number format")
      return
    }
    if keepsNonFinite {
      #expect(streamed["11"]??.isNaN == true)
      #expect(streamed["12"] == .some(.infinity) && streamed["13"] == .some(-.infinity))
    } else {
      // wal2json before 2.6 writes them as null, as documented.
      #expect(streamed["11"] == .some(nil) && streamed["12"] == .some(nil) && streamed["13"] == .some(nil))
    }
    #expect(streamed["14"] == .some(nil))
    try await replica.dropSlot()
  }

  /// Each person's score by primary key.
  static func scores(_ replica: PostgresReplica) -> [String: Double?] {
    replica.context.performAndWait { context in
      var scores: [String: Double?] = [:]
      for person in (try? context.objects(of: "Person")) ?? [] {
        let key = replica.primaryKey(of: person.objectID) ?? "?"
        if case .double(let score)? = person["score"] { scores[key] = score } else { scores[key] = .some(nil) }
      }
      return scores
    }
  }

  @Test func textThatIsNotUTF8IsRefusedInTheLoadAndInTheStream() async throws {
    let database = "ascii_" + TestDatabase.uniqueName()
    try await TestDatabase.execute(
      "CREATE DATABASE \(database) ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")
    defer {
      Task {
        try? await TestDatabase.execute(
          "SELECT pg_drop_replication_slot('\(database)'); DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
      }
    }
    var connection = try PostgresConnection.Configuration.fromEnvironment()
    connection.database = database
    let setup = try await PostgresConnection.connect(configuration: connection, id: 7, logger: TestDatabase.logger)
    defer { Task { try? await setup.close() } }
    func execute(_ sql: String) async throws {
      _ = try await setup.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger).collect()
    }
    try await execute("CREATE TABLE company (id bigint PRIMARY KEY, name text NOT NULL, founded timestamptz)")
    try await execute("CREATE TABLE person (id bigint PRIMARY KEY, name text NOT NULL)")
    try await execute("ALTER TABLE company REPLICA IDENTITY FULL")
    try await execute("INSERT INTO company VALUES (1, E'caf\\xe9', NULL)")
    let mapping = try ReplicaMapping(
      schema: TestDatabase.schema, tables: [TableMapping(entity: "Company", table: "company")], entities: ["Company"])
    let loading = PostgresReplica(configuration: .init(connection: connection, slot: database, mapping: mapping))
    let loadError = await #expect(throws: PostgresReplicaError.self) { try await loading.start() }
    let refusal =
      "public.company.name: the value is not UTF-8 text (a database whose encoding is SQL_ASCII stores bytes"
      + " unchecked); store UTF-8 there, or skip the transaction with the skip policy"
    #expect(loadError?.code == .brokenRow)
    #expect(loadError?.message == refusal)

    try await execute("DELETE FROM company")
    let streaming = PostgresReplica(configuration: .init(connection: connection, slot: database, mapping: mapping))
    try await streaming.start()
    try await execute("INSERT INTO company VALUES (2, E'na\\xefve', NULL)")
    let streamError = await #expect(throws: PostgresReplicaError.self) { try await streaming.catchUp() }
    #expect(streamError?.code == .brokenRow)
    #expect(streamError?.message == refusal)
    #expect(streamError?.position != nil)
    await streaming.stop()
  }

  @Test func aRoleWithoutTheReplicationPrivilegeIsToldSo() async throws {
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
      CREATE ROLE \(namespace) LOGIN;
      GRANT USAGE ON SCHEMA \(namespace) TO \(namespace);
      GRANT SELECT ON ALL TABLES IN SCHEMA \(namespace) TO \(namespace)
      """)
    var connection = try PostgresConnection.Configuration.fromEnvironment()
    connection.username = namespace
    let replica = PostgresReplica(
      configuration: .init(connection: connection, slot: namespace, mapping: try TestDatabase.mapping(in: namespace)))
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .serverError)
    #expect(
      error?.message
        == "starting on slot '\(namespace)': the server said: must be superuser or replication role to use"
        + " replication slots (SQLSTATE 42501); the user lacks the replication privilege: ALTER ROLE ... WITH"
        + " REPLICATION, or connect as one that has it")
  }
}
