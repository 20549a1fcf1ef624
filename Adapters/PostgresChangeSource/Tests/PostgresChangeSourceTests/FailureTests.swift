import Foundation
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL
import Testing

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
