import Foundation
import ObjectGraph
import PostgresNIO
import PredicateDSL
import Testing

@testable import PostgresChangeSource

@Suite("Resume over a real server", .postgresServer, .timeLimit(.minutes(5)))
struct ResumeTests {
  @Test func deliversEveryTransactionOnceAcrossConsumersKilledAtRandomPoints() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.execute(
      "CREATE SCHEMA \(namespace); CREATE TABLE \(namespace).log (n int PRIMARY KEY)")
    let first = ChangeStream(connection: try await TestDatabase.connect(), slot: namespace)
    try await first.createSlot()
    try await first.connection.close()
    let total = 120
    let writer = Task {
      let connection = try await TestDatabase.connect()
      for n in 1...total {
        try await connection.query(
          PostgresQuery(unsafeSQL: "INSERT INTO \(namespace).log VALUES (\(n))"), logger: TestDatabase.logger)
        if n % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }
      }
      try await connection.close()
    }
    let seed = SeededGenerator.seed()
    var generator = SeededGenerator(seed: seed)
    var delivered: [Int] = []
    var stored: PostgresPosition? = nil
    var restarts = 0
    var rounds = 0
    while delivered.count < total && rounds < 2000 {
      // A consumer starts from the stored position and is killed after a
      // random number of deliveries.
      restarts += 1
      let stream = ChangeStream(connection: try await TestDatabase.connect(), slot: namespace)
      if let stored { try await stream.checkHolds(stored) }
      var alive = true
      while alive && delivered.count < total && rounds < 2000 {
        rounds += 1
        let batch = try await stream.fetch(after: stored, limit: Int.random(in: 1...20, using: &generator))
        if batch.isEmpty {
          try await Task.sleep(for: .milliseconds(5))
          continue
        }
        let survive = Int.random(in: 0...batch.count, using: &generator)
        for transaction in batch.prefix(survive) {
          for change in transaction.changes where change.schema == namespace {
            delivered.append(Int(change.columns[0].text!)!)
          }
          stored = transaction.position
        }
        if survive < batch.count {
          alive = false
        } else if Bool.random(using: &generator), let stored {
          try await stream.acknowledge(stored)
        }
      }
      try await stream.connection.close()
    }
    try await writer.value
    #expect(delivered == Array(1...total), "seed \(seed)")
    #expect(restarts > 3, "the consumer was never killed: seed \(seed)")
  }

  @Test func aPositionTheSlotNoLongerHoldsIsAClearError() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    try await replica.catchUp()
    let early = try #require(await replica.position)
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL)")
    try await replica.catchUp()
    let late = try #require(await replica.position)
    await replica.stop()

    let resumed = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await resumed.start(from: early) }
    #expect(error?.code == .positionNotHeld)
    #expect(
      error?.message
        == "slot '\(namespace)' is acknowledged up to \(late.pastCommit), past the position \(early) to resume from;"
        + " transactions in between may be gone: load again")

    let missing = try TestDatabase.replica(in: namespace, slot: namespace + "_none")
    let missingError = await #expect(throws: PostgresReplicaError.self) { try await missing.start(from: late) }
    #expect(missingError?.code == .slotMissing)
    #expect(missingError?.message == "slot '\(namespace)_none' does not exist; load again to create it")
    try await replica.dropSlot()
  }

  @Test func reportsAServerItCannotReach() async throws {
    let connection = PostgresConnection.Configuration(
      host: "127.0.0.1", port: 1, username: "postgres", password: nil, database: "postgres", tls: .disable)
    let replica = PostgresReplica(
      configuration: .init(connection: connection, slot: "unreachable", mapping: try TestDatabase.mapping(in: "x")))
    let error = await #expect(throws: PostgresReplicaError.self) { try await replica.start() }
    #expect(error?.code == .connectionLost)
    #expect(
      error?.message
        == "cannot connect to the database 'postgres' at 127.0.0.1:1 as 'postgres': no server answered there:"
        + " connection refused; check PGHOST and PGPORT, and that the server is running")
  }

  @Test func resumesAfterALostConnectionWithoutLosingOrRepeating() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    #expect(try await replica.catchUp() == 1)
    try await TestDatabase.execute(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'context-watch \(namespace)';
      INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL)
      """)
    // A call that meets the closed connection reports `connectionLost`
    // (one made before the client noticed the close, on a busy machine);
    // the next call opens another.
    var applied: Int?
    for _ in 0..<50 where applied == nil {
      do {
        applied = try await replica.catchUp()
      } catch let error as PostgresReplicaError where error.code == .connectionLost {
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    #expect(applied == 1)
    #expect(
      TestDatabase.replicaContent(replica) == [
        "Company 1 name=Acme founded=nil", "Company 2 name=Beta founded=nil",
      ])
    try await replica.dropSlot()
  }
}
