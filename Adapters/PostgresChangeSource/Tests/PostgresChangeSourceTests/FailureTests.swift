import Foundation
import ObjectGraph
import PostgresNIO
import PredicateDSL
import Testing

@testable import PostgresChangeSource

@Suite("Bad input over a real server", .postgresServer, .timeLimit(.minutes(5)))
struct FailureTests {
  @Test func aDroppedColumnStopsTheReplicaAtTheLastGoodTransaction() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    try await TestDatabase.execute(
      """
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL);
      ALTER TABLE \(namespace).person DROP COLUMN age;
      BEGIN;
      INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL);
      INSERT INTO \(namespace).person (id, name) VALUES (10, 'Ann');
      COMMIT
      """)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.catchUp() }
    #expect(error?.code == .brokenRow)
    #expect(error?.message == "\(namespace).person.age: the row has no such column (was it dropped?)")
    let failed = try #require(error?.position)
    // Never half a transaction: Beta came with the broken row.
    #expect(TestDatabase.replicaContent(replica) == ["Company 1 name=Acme founded=nil"])
    let good = try #require(await replica.position)
    #expect(good < failed)
    // Stopped: the same transaction fails again.
    let again = await #expect(throws: PostgresReplicaError.self) { try await replica.catchUp() }
    #expect(again == error)
    try await replica.dropSlot()
  }

  @Test func anUnadmittedTypeIsSkippedWhenConfiguredAndTheReplicaGoesOn() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace, failurePolicy: .skip)
    try await replica.start()
    try await TestDatabase.execute(
      """
      ALTER TABLE \(namespace).person ALTER COLUMN age TYPE text;
      INSERT INTO \(namespace).person (id, name, age) VALUES (10, 'Ann', 'old');
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)
      """)
    #expect(try await replica.catchUp() == 1)
    let failures = await replica.failures
    #expect(failures.count == 1)
    #expect(failures.first?.code == .unadmittedType)
    #expect(
      failures.first?.message
        == "\(namespace).person.age (Person.age): a text column, which an integer attribute does not admit")
    #expect(TestDatabase.replicaContent(replica) == ["Company 1 name=Acme founded=nil"])
    try await replica.dropSlot()
  }

  @Test func aPartitionedTableIsRefusedWhenTheReplicaStarts() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.execute(
      TestDatabase.tables(in: namespace).replacingOccurrences(
        of: "CREATE TABLE \(namespace).company (id bigint PRIMARY KEY, name text NOT NULL, founded timestamptz);",
        with: """
          CREATE TABLE \(namespace).company (id bigint PRIMARY KEY, name text NOT NULL, founded timestamptz)
            PARTITION BY RANGE (id);
          CREATE TABLE \(namespace).company_low PARTITION OF \(namespace).company FOR VALUES FROM (0) TO (1000);
          """))
    let replica = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .mappingMismatch)
    #expect(
      error?.message
        == "the mapping does not match the database: Company: \(namespace).company is a partitioned table, whose"
        + " changes wal2json reports under its partitions' names; map a table that is not partitioned")
  }

  /// A server error in the middle of the stream ends a run, streaming as
  /// polling: the next read would meet it again. The server fails to
  /// decode a transaction whose row holds an enum value that has since
  /// been removed from `pg_enum` (its output function finds no label).
  /// That breaks every slot that decodes the transaction, so the test
  /// runs on a server of its own.
  @Test func aServerErrorInTheStreamEndsTheRun() async throws {
    let server = try await ScratchServer(settings: "")
    do {
      try await Self.serverErrorEndsTheRun(on: server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  private static func serverErrorEndsTheRun(on server: ScratchServer) async throws {
    try await server.execute(TestDatabase.tables(in: "t"))
    try await server.execute(
      """
      CREATE TYPE t.mood AS ENUM ('calm', 'gone');
      ALTER TABLE t.person ADD COLUMN mood t.mood
      """)
    var replicas: [(PostgresReplica.ReadMode, PostgresReplica, Task<Void, Never>, Recorder<String>)] = []
    for mode in [PostgresReplica.ReadMode.streaming, .polling] {
      let replica = try TestDatabase.replica(
        in: "t", slot: "t_\(mode)", readMode: mode, connection: server.configuration)
      try await replica.start()
      let ended = Recorder<String>()
      let running = Task {
        do {
          try await replica.run()
          ended.append("returned")
        } catch {
          ended.append("\(error)")
        }
      }
      replicas.append((mode, replica, running, ended))
    }
    try await server.execute("INSERT INTO t.person (id, name, mood) VALUES (10, 'Ann', 'gone')")
    for (mode, replica, _, _) in replicas {
      let applied = try await RunTests.eventually(20) { TestDatabase.replicaContent(replica).count == 1 }
      #expect(applied, "\(mode)")
    }
    try await server.execute(
      """
      DELETE FROM pg_enum WHERE enumtypid = 't.mood'::regtype AND enumlabel = 'gone';
      UPDATE t.person SET age = 31 WHERE id = 10
      """)
    for (mode, replica, running, ended) in replicas {
      let stopped = try await RunTests.eventually(30) { !ended.values.isEmpty }
      running.cancel()
      _ = await running.value
      #expect(stopped, "\(mode): the run goes on after the server's error")
      let doing = mode == .streaming ? "streaming slot 't_\(mode)'" : "reading slot 't_\(mode)'"
      let message = ended.values.first ?? ""
      #expect(
        message.hasPrefix("serverError: \(doing): the server said: invalid internal value for enum: "), "\(message)")
      #expect(message.hasSuffix(" (SQLSTATE 22P03)"), "\(message)")
      #expect(TestDatabase.replicaContent(replica).first?.contains("age=nil") == true, "\(mode)")
      // Streaming: the feed that met the error is not opened again.
      if mode == .streaming { #expect(await replica.feedsOpened == 1) }
      await replica.stop()
    }
  }

  @Test func aDroppedTableIsReportedWhenTheReplicaStarts() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    try await replica.catchUp()
    let position = try #require(await replica.position)
    await replica.stop()
    try await TestDatabase.execute("DROP TABLE \(namespace).person")
    let resumed = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await resumed.start(from: position) }
    #expect(error?.code == .mappingMismatch)
    #expect(
      error?.message
        == "the mapping does not match the database: Person: table \(namespace).person does not exist")
    try await replica.dropSlot()
  }
}
