import Foundation
import ObjectGraph
import PostgresNIO
import PredicateDSL
import Synchronization
import Testing

@testable import PostgresChangeSource

@Suite("Replica over a real server", .postgresServer, .timeLimit(.minutes(5)))
struct ReplicaTests {
  /// Polls until a poll finds nothing more.
  static func catchUp(_ replica: PostgresReplica) async throws {
    try await replica.catchUp()
  }

  /// Both read modes, as each guarantee holds in both.
  static let modes: [PostgresReplica.ReadMode] = [.streaming, .polling]

  @Test(arguments: modes)
  func loadPlusStreamEqualsTheDatabaseAfterConcurrentWorkloads(_ mode: PostgresReplica.ReadMode) async throws {
    let seed = SeededGenerator.seed()
    do {
      try await Self.runWorkloads(seed: seed, mode: mode)
    } catch {
      Issue.record("seed \(seed) (replay with PG_WORKLOAD_SEED=\(seed)): \(error)")
    }
  }

  static func runWorkloads(seed: UInt64, mode: PostgresReplica.ReadMode) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let clients = 3
    var connections: [PostgresConnection] = []
    for _ in 0..<clients { connections.append(try await TestDatabase.connect()) }
    defer { for connection in connections { Task { try? await connection.close() } } }
    // Some history before the replica starts, then the load while clients
    // write, then the stream.
    var warmUp = WorkloadClient(namespace: namespace, client: 9, seed: seed)
    try await warmUp.run(transactions: 20, on: connections[0], logger: TestDatabase.logger)
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    let results = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
      for client in 0..<clients {
        let connection = connections[client]
        group.addTask {
          var workload = WorkloadClient(namespace: namespace, client: client, seed: seed)
          try await workload.run(transactions: 60, on: connection, logger: TestDatabase.logger)
          return (workload.committed, workload.rolledBack, workload.failed)
        }
      }
      try await Task.sleep(for: .milliseconds(50))
      try await replica.start()
      for _ in 0..<40 {
        try await replica.poll()
        try await Task.sleep(for: .milliseconds(20))
      }
      var totals = (0, 0, 0)
      for try await result in group {
        totals.0 += result.0
        totals.1 += result.1
        totals.2 += result.2
      }
      return totals
    }
    try await Self.catchUp(replica)
    let expected = try await TestDatabase.databaseContent(namespace)
    let actual = TestDatabase.replicaContent(replica)
    #expect(actual == expected, "seed \(seed) (replay with PG_WORKLOAD_SEED=\(seed))")
    #expect(results.0 > 50 && results.1 > 0, "committed, rolled back, failed: \(results)")
    #expect(!expected.isEmpty)
    try await replica.dropSlot()
  }

  @Test(arguments: modes)
  func savesOncePerCommittedTransactionInCommitOrderWithAuthorAndPosition(_ mode: PostgresReplica.ReadMode) async throws
  {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    let saves = Recorder<ContextSave>()
    let token = replica.context.addSaveObserver { saves.append($0) }
    defer { token.cancel() }
    try await replica.start()
    #expect(saves.values.map(\.inserted.count) == [1])
    try await TestDatabase.execute(
      """
      BEGIN;
      SELECT pg_logical_emit_message(true, 'context-watch.author', 'billing');
      INSERT INTO \(namespace).person (id, name, age, employer_id) VALUES (10, 'Ann', 30, 1);
      INSERT INTO \(namespace).person (id, name, token, avatar) VALUES (11, 'Bob',
        'e621e1f8-c36c-495a-93fc-0c247a3e6e5f', '\\x00ff');
      COMMIT;
      BEGIN; UPDATE \(namespace).person SET age = 31 WHERE id = 10; ROLLBACK;
      CREATE TABLE \(namespace).unmapped (id int);
      INSERT INTO \(namespace).unmapped VALUES (1);
      UPDATE \(namespace).person SET age = 31, employer_id = NULL WHERE id = 10;
      DELETE FROM \(namespace).person WHERE id = 11;
      """)
    #expect(try await replica.catchUp() == 3)
    let recorded = saves.values
    #expect(recorded.count == 4)
    #expect(recorded.map(\.author) == [nil, "billing", nil, nil])
    #expect(recorded[1].inserted.map { $0["name"] } == ["Ann", "Bob"])
    #expect(recorded[1].inserted[1]["token"] == .uuid(0xE621_E1F8_C36C_495A_93FC_0C24_7A3E_6E5F))
    #expect(recorded[1].inserted[1]["avatar"] == .data([0, 255]))
    #expect(recorded[1].updated.map(\.after.entityName) == ["Company"])
    let update = try #require(recorded[2].updated.first { $0.after.entityName == "Person" })
    #expect(update.changedKeys == ["age", "employer"])
    #expect(update.before["age"] == 30 && update.after["age"] == 31)
    #expect(recorded[3].deleted.map { $0["name"] } == ["Bob"])
    let positions = recorded.dropFirst().map { replica.position(ofSave: $0.sequenceNumber) }
    #expect(positions.allSatisfy { $0 != nil })
    #expect(positions == positions.sorted { $0! < $1! })
    #expect(replica.position(ofSave: recorded[0].sequenceNumber) == nil)
    let last = try #require(positions.last ?? nil)
    #expect(try #require(await replica.position) >= last)
    #expect(try await replica.catchUp() == 0)
    let lag = try await replica.lag()
    #expect(lag.plugin == "wal2json" && lag.acknowledged != nil)
    try await replica.dropSlot()
  }

  @Test(arguments: modes)
  func rolledBackTransactionsProduceNothing(_ mode: PostgresReplica.ReadMode) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    try await replica.start()
    let before = replica.context.performAndWait { $0.sequenceNumber }
    try await TestDatabase.execute(
      """
      BEGIN; INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL); ROLLBACK;
      BEGIN; INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL); SAVEPOINT s;
      INSERT INTO \(namespace).company VALUES (3, 'Gamma', NULL); ROLLBACK TO s; COMMIT;
      """)
    #expect(try await replica.catchUp() == 1)
    #expect(replica.context.performAndWait { $0.sequenceNumber } == before + 1)
    #expect(TestDatabase.replicaContent(replica) == ["Company 2 name=Beta founded=nil"])
    try await replica.dropSlot()
  }

  @Test(arguments: modes)
  func aTruncateDeletesTheTablesObjectsInOneSave(_ mode: PostgresReplica.ReadMode) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute(
      """
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL);
      INSERT INTO \(namespace).person (id, name, employer_id) VALUES (10, 'Ann', 1)
      """)
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    let saves = Recorder<ContextSave>()
    let token = replica.context.addSaveObserver { saves.append($0) }
    defer { token.cancel() }
    try await replica.start()
    try await TestDatabase.execute("TRUNCATE \(namespace).person")
    #expect(try await replica.catchUp() == 1)
    #expect(saves.values.last?.deleted.map { $0["name"] } == ["Ann"])
    #expect(TestDatabase.replicaContent(replica) == ["Company 1 name=Acme founded=nil"])
    try await replica.dropSlot()
  }

  @Test(arguments: modes)
  func anUpdateKeepsAnUnchangedValueStoredOutOfLine(_ mode: PostgresReplica.ReadMode) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let person = "\(namespace).person"
    // 100 kB that does not compress, stored out of line (TOAST): an update
    // that leaves it as it is does not write it again, and wal2json leaves
    // it out of the update's row.
    let big = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 3200) i)"
    try await TestDatabase.execute(
      """
      ALTER TABLE \(person) ALTER COLUMN name SET STORAGE EXTERNAL;
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL);
      INSERT INTO \(person) (id, name, age, employer_id) VALUES (10, \(big), 30, 1)
      """)
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    let saves = Recorder<ContextSave>()
    let token = replica.context.addSaveObserver { saves.append($0) }
    defer { token.cancel() }
    try await replica.start()
    try await TestDatabase.execute(
      """
      INSERT INTO \(person) (id, name, age) VALUES (11, 'x' || \(big), 40);
      UPDATE \(person) SET age = 31 WHERE id = 10;
      UPDATE \(person) SET age = 41, employer_id = 1 WHERE id = 11;
      UPDATE \(person) SET id = 12 WHERE id = 11
      """)
    #expect(try await replica.catchUp() == 4)
    let expected = try await TestDatabase.databaseContent(namespace)
    #expect(expected.count == 3 && expected.allSatisfy { $0.count > 100_000 || $0.hasPrefix("Company") })
    #expect(TestDatabase.replicaContent(replica) == expected)
    let updates = saves.values.flatMap(\.updated).filter { $0.after.entityName == "Person" }
    #expect(updates.map(\.changedKeys) == [["age"], ["age", "employer"]])
    try await replica.dropSlot()
  }

  /// Transactions that reuse a primary key, each followed by one that
  /// changes the row under that key; `{person}` stands for the person table.
  static let keyReuses: [[String]] = [
    // A row deleted and inserted again under its key.
    [
      "BEGIN; DELETE FROM {person} WHERE id = 1; INSERT INTO {person} (id, name) VALUES (1, 'Ann again'); COMMIT",
      "UPDATE {person} SET age = 40 WHERE id = 1",
    ],
    // A row inserted and deleted again, then its key inserted later.
    [
      "BEGIN; INSERT INTO {person} (id, name) VALUES (20, 'Brief'); DELETE FROM {person} WHERE id = 20; COMMIT",
      "INSERT INTO {person} (id, name) VALUES (20, 'Later')",
    ],
    // A row deleted, and another moved onto its key.
    [
      "BEGIN; DELETE FROM {person} WHERE id = 2; UPDATE {person} SET id = 2, name = 'Eve moved' WHERE id = 5; COMMIT",
      "UPDATE {person} SET age = 40 WHERE id = 2",
    ],
    // A table truncated, and a key it held inserted again.
    [
      "BEGIN; TRUNCATE {person}; INSERT INTO {person} (id, name, employer_id) VALUES (1, 'Ann anew', 1); COMMIT",
      "UPDATE {person} SET age = 41 WHERE id = 1",
    ],
  ]

  @Test(arguments: modes, keyReuses)
  func transactionsThatReuseAKeyReplicate(_ mode: PostgresReplica.ReadMode, _ transactions: [String]) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let person = "\(namespace).person"
    try await TestDatabase.execute(
      """
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL);
      INSERT INTO \(person) (id, name, employer_id) VALUES (1, 'Ann', 1), (2, 'Bob', 1), (5, 'Eve', NULL)
      """)
    let replica = try TestDatabase.replica(in: namespace, readMode: mode)
    try await replica.start()
    for transaction in transactions {
      let sql = transaction.replacingOccurrences(of: "{person}", with: person)
      try await TestDatabase.execute(sql)
      #expect(try await replica.catchUp() == 1, "\(transaction)")
      let expected = try await TestDatabase.databaseContent(namespace)
      #expect(TestDatabase.replicaContent(replica) == expected, "\(transaction)")
    }
    try await replica.dropSlot()
  }

  @Test func refusesAMappingThatDoesNotMatchTheCatalog() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    try await TestDatabase.execute(
      """
      ALTER TABLE \(namespace).person REPLICA IDENTITY DEFAULT;
      ALTER TABLE \(namespace).person ALTER COLUMN age TYPE text;
      ALTER TABLE \(namespace).person DROP COLUMN score;
      """)
    let replica = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .mappingMismatch)
    #expect(
      error?.message
        == "the mapping does not match the database: \(namespace).person is not under REPLICA IDENTITY FULL"
        + " (ALTER TABLE \(namespace).person REPLICA IDENTITY FULL); Person.age: column \(namespace).person.age"
        + " is text; an integer attribute admits bigint, integer or smallint; Person.score: column"
        + " \(namespace).person.score does not exist")
  }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])
  func append(_ value: Value) { storage.withLock { $0.append(value) } }
  var values: [Value] { storage.withLock { $0 } }
}

@Suite("Running a replica", .postgresServer, .timeLimit(.minutes(5)))
struct RunTests {
  /// Waits up to `seconds` for `condition`.
  static func eventually(_ seconds: Double, _ condition: () async -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
      if await condition() { return true }
      try await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
  }

  @Test func aNotificationWakesTheReplicaBeforeThePollInterval() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = PostgresReplica(
      configuration: .init(
        connection: try .fromEnvironment(), slot: namespace, mapping: try TestDatabase.mapping(in: namespace),
        readMode: .polling, pollInterval: .seconds(60), notificationChannel: "\(namespace)_wake"))
    try await replica.start()
    let running = Task { try await replica.run() }
    // The first poll of run() finds nothing; then only a notification wakes it.
    try await Task.sleep(for: .milliseconds(500))
    try await TestDatabase.execute(
      "INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL); NOTIFY \(namespace)_wake")
    let arrived = try await Self.eventually(20) { TestDatabase.replicaContent(replica).count == 1 }
    #expect(arrived)
    // The run acknowledges what it applied, after the save: wait for it
    // before cancelling, which could interrupt the acknowledgement (the
    // replica then acknowledges its position at its next poll).
    let acknowledged = try await Self.eventually(20) {
      guard let lag = try? await replica.lag() else { return false }
      let position = await replica.position
      return lag.acknowledged != nil && lag.acknowledged == position?.pastCommit
    }
    #expect(acknowledged)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }

  @Test func pollingAtTheIntervalFollowsTheDatabase() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = PostgresReplica(
      configuration: .init(
        connection: try .fromEnvironment(), slot: namespace, mapping: try TestDatabase.mapping(in: namespace),
        readMode: .polling, pollInterval: .milliseconds(20)))
    try await replica.start()
    let running = Task { try await replica.run() }
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    #expect(try await Self.eventually(20) { TestDatabase.replicaContent(replica).count == 1 })
    try await TestDatabase.execute("UPDATE \(namespace).company SET name = 'Beta'")
    #expect(
      try await Self.eventually(20) {
        TestDatabase.replicaContent(replica) == ["Company 1 name=Beta founded=nil"]
      })
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }
}
