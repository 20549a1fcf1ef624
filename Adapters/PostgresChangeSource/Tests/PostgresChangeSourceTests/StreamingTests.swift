import Dispatch
import Foundation
import ObjectGraph
import PostgresNIO
import PredicateDSL
import Synchronization
import Testing

@testable import PostgresChangeSource

/// The server pushing the slot over a replication connection: the same
/// guarantees as polling, and a stream that stays up.
@Suite("Streaming the slot", .postgresServer, .timeLimit(.minutes(5)))
struct StreamingTests {
  /// A save as a watcher of the replica sees it: its position and the
  /// companies it inserted.
  struct Delivery: Sendable {
    var position: PostgresPosition?
    var companies: [String]
  }

  /// Records every save of the replica after the load.
  static func record(_ replica: PostgresReplica) -> (Recorder<Delivery>, SaveObserverToken) {
    let deliveries = Recorder<Delivery>()
    let token = replica.context.addSaveObserver { save in
      guard let position = replica.position(ofSave: save.sequenceNumber) else { return }
      let names = save.inserted.compactMap { snapshot -> String? in
        if case .string(let name)? = snapshot["name"] { name } else { nil }
      }
      deliveries.append(Delivery(position: position, companies: names))
    }
    return (deliveries, token)
  }

  /// Every company was delivered once, one a save, in commit order.
  static func expectOnceInCommitOrder(_ deliveries: [Delivery], _ names: Set<String>) {
    #expect(deliveries.count == names.count, "\(deliveries.count) saves for \(names.count) transactions")
    #expect(deliveries.allSatisfy { $0.companies.count == 1 })
    let delivered = deliveries.flatMap(\.companies)
    #expect(Set(delivered) == names)
    #expect(Set(delivered).count == delivered.count, "a transaction was delivered twice")
    let positions = deliveries.compactMap(\.position)
    #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }, "not in commit order")
  }

  /// The process id of the replica's WAL sender, when it has one.
  static func walSender(_ slot: String) async throws -> Int32? {
    let connection = try await TestDatabase.connect()
    defer { Task { try? await connection.close() } }
    var pid: Int32?
    for try await (number, ) in try await connection.query(
      "SELECT active_pid FROM pg_replication_slots WHERE slot_name = \(slot)", logger: TestDatabase.logger
    ).decode((Int32?,).self) {
      pid = number
    }
    return pid
  }

  @Test func runAppliesEachCommittedTransactionOnceInCommitOrderAsItCommits() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    // A minute between polls: only the stream can deliver in time.
    let replica = PostgresReplica(
      configuration: .init(
        connection: try .fromEnvironment(), slot: namespace, mapping: try TestDatabase.mapping(in: namespace),
        pollInterval: .seconds(60)))
    let (deliveries, token) = Self.record(replica)
    defer { token.cancel() }
    try await replica.start()
    let running = Task { try await replica.run() }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for client in 0..<3 {
        group.addTask {
          let connection = try await TestDatabase.connect()
          defer { Task { try? await connection.close() } }
          for index in 0..<30 {
            let id = client * 1000 + index
            try await Self.run(connection, "INSERT INTO \(namespace).company VALUES (\(id), 'c\(id)', NULL)")
            if index % 5 == 0 {
              try await Self.run(connection, "BEGIN")
              try await Self.run(connection, "INSERT INTO \(namespace).company VALUES (\(id + 500), 'gone', NULL)")
              try await Self.run(connection, "ROLLBACK")
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let names = Set((0..<3).flatMap { client in (0..<30).map { "c\(client * 1000 + $0)" } })
    #expect(try await RunTests.eventually(30) { deliveries.values.count >= names.count })
    Self.expectOnceInCommitOrder(deliveries.values, names)
    #expect(TestDatabase.replicaContent(replica) == (try await TestDatabase.databaseContent(namespace)))
    // The slot is acknowledged past the last delivery, and one connection
    // did it all.
    // (Other tests' transactions move the position on meanwhile.)
    let delivered = try #require(await replica.position)
    #expect(
      try await RunTests.eventually(20) {
        guard let acknowledged = (try? await replica.lag())?.acknowledged else { return false }
        return acknowledged >= delivered.pastCommit
      })
    #expect(await replica.feedsOpened == 1)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }

  static func run(_ connection: PostgresConnection, _ sql: String) async throws {
    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger).collect()
  }

  /// With the replica's context busy, the stream reads ahead only about a
  /// batch and leaves the rest in the server; it keeps answering the
  /// server (whose timeout is one second here) and stays connected, and
  /// the slot's lag shows the backlog until the replica catches up.
  @Test func aSlowConsumerLeavesTheBacklogInTheServerAndTheStreamStaysUp() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(
      in: namespace, connection: try TestDatabase.configuration(settings: ["wal_sender_timeout": "1s"]))
    try await replica.start()
    let sender = try await Self.walSender(namespace)
    #expect(sender != nil)
    let running = Task { try await replica.run() }
    let busy = DispatchSemaphore(value: 0)
    replica.context.queue.async { busy.wait() }
    let writer = try await TestDatabase.connect()
    defer { Task { try? await writer.close() } }
    try await Self.run(
      writer,
      """
      DO $$ BEGIN FOR t IN 1..50 LOOP
        INSERT INTO \(namespace).person (id, name) SELECT t * 100 + n, 'p' FROM generate_series(1, 20) AS n;
        COMMIT;
      END LOOP; END $$
      """)
    try await Task.sleep(for: .seconds(3))
    let held = try #require(await replica.feedStatistics)
    // 200 changes a batch here; one transaction of 21 lines may come on top.
    #expect(held.peakQueuedChanges <= 200 + 21, "\(held.peakQueuedChanges) changes queued")
    #expect(held.pauses > 0)
    // Three seconds without a delivery, the timeout one second: the
    // stream answered the server all along.
    #expect(held.statusUpdates >= 8, "\(held.statusUpdates) status updates in 3 s")
    let behind = try await replica.lag()
    #expect(behind.unacknowledgedBytes > 0)
    busy.signal()
    #expect(
      try await RunTests.eventually(30) {
        replica.context.performAndWait { (try? $0.objects(of: "Person").count) ?? 0 } == 1000
      })
    // (Other tests' transactions move the position on meanwhile.)
    let delivered = try #require(await replica.position)
    #expect(
      try await RunTests.eventually(20) {
        guard let acknowledged = (try? await replica.lag())?.acknowledged else { return false }
        return acknowledged >= delivered.pastCommit
      })
    #expect(await replica.feedsOpened == 1)
    #expect(try await Self.walSender(namespace) == sender)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }

  @Test func anIdleStreamOutlivesTheServersTimeout() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(
      in: namespace, connection: try TestDatabase.configuration(settings: ["wal_sender_timeout": "1s"]))
    try await replica.start()
    let sender = try await Self.walSender(namespace)
    let running = Task { try await replica.run() }
    try await Task.sleep(for: .seconds(3))
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    #expect(try await RunTests.eventually(20) { TestDatabase.replicaContent(replica).count == 1 })
    #expect(await replica.feedsOpened == 1)
    #expect(try await Self.walSender(namespace) == sender)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }

  @Test func aLostReplicationConnectionReconnectsAndResumesWithoutLosingOrRepeating() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    let (deliveries, token) = Self.record(replica)
    defer { token.cancel() }
    try await replica.start()
    let running = Task { try await replica.run() }
    let writer = try await TestDatabase.connect()
    defer { Task { try? await writer.close() } }
    for index in 0..<120 {
      try await Self.run(writer, "INSERT INTO \(namespace).company VALUES (\(index), 'c\(index)', NULL)")
      if index % 30 == 15 {
        try await Self.run(
          writer,
          "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '\(namespace)'")
      }
    }
    let names = Set((0..<120).map { "c\($0)" })
    #expect(try await RunTests.eventually(30) { deliveries.values.count >= names.count })
    Self.expectOnceInCommitOrder(deliveries.values, names)
    #expect(await replica.feedsOpened > 1)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
  }

  @Test func stoppingLetsGoOfTheSlotAtOnce() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let replica = try TestDatabase.replica(in: namespace)
    try await replica.start()
    #expect(try await Self.walSender(namespace) != nil)
    await replica.stop()
    #expect(try await Self.walSender(namespace) == nil)
    try await TestDatabase.execute("SELECT pg_drop_replication_slot('\(namespace)')")
  }

  @Test func settingsAndTheServersTimeoutReadAsLibpqNeedsThem() throws {
    #expect(ReplicationFeed.statusInterval(senderTimeout: "1min") == .seconds(10))
    #expect(ReplicationFeed.statusInterval(senderTimeout: "1s") == .milliseconds(250))
    #expect(ReplicationFeed.statusInterval(senderTimeout: "500ms") == .milliseconds(125))
    #expect(ReplicationFeed.statusInterval(senderTimeout: "40") == .milliseconds(20))
    #expect(ReplicationFeed.statusInterval(senderTimeout: "0") == .seconds(10))
    #expect(ReplicationFeed.statusInterval(senderTimeout: nil) == .seconds(10))

    var configuration = PostgresConnection.Configuration(
      unixSocketPath: "/run/postgresql/.s.PGSQL.5433", username: "app", password: "secret", database: nil)
    configuration.options.additionalStartupParameters = [
      ("application_name", "orders"), ("options", "-c work_mem=64MB"), ("search_path", "shop, public"),
    ]
    let (parameters, place) = try configuration.libpqParameters()
    #expect(place == "the socket /run/postgresql/.s.PGSQL.5433")
    let values = Dictionary(parameters, uniquingKeysWith: { $1 })
    #expect(values["host"] == "/run/postgresql" && values["port"] == "5433")
    #expect(values["user"] == "app" && values["password"] == "secret" && values["dbname"] == "app")
    #expect(values["replication"] == "database" && values["application_name"] == "orders")
    #expect(
      values["options"]
        == #"-c work_mem=64MB -c search_path=shop,\ public -c TimeZone=UTC -c DateStyle=ISO"#)
  }
}

/// Streaming on servers of the tests' own: one that crashes, and one whose
/// log a 100,000-row transaction would fill for every other test's slot.
@Suite("Streaming on a server of its own", .postgresServer, .timeLimit(.minutes(5)))
struct OwnServerStreamingTests {
  /// Runs `body` on a scratch server, and stops the server afterwards.
  static func withServer(_ body: (ScratchServer) async throws -> Void) async throws {
    let server = try await ScratchServer(settings: "")
    do {
      try await body(server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  @Test func aTransactionOf100000RowsAppliesAsOneSaveDecodedLineByLine() async throws {
    try await Self.withServer { server in
      try await server.execute(TestDatabase.tables(in: "t"))
      let replica = try TestDatabase.replica(in: "t", connection: server.configuration)
      try await replica.start()
      try await server.execute(
        "INSERT INTO t.person (id, name, age) SELECT n, 'p' || n, n % 90 FROM generate_series(1, 100000) AS n")
      #expect(try await replica.catchUp() == 1)
      #expect(replica.context.performAndWait { (try? $0.objects(of: "Person").count) ?? 0 } == 100_000)
      let statistics = try #require(await replica.feedStatistics)
      // One line of wal2json (a row) at a time, never the transaction.
      #expect(statistics.largestLine < 1024, "\(statistics.largestLine) bytes undecoded at once")
      await replica.stop()
    }
  }

  @Test func aServerThatCrashesMidStreamLosesAndRepeatsNothing() async throws {
    try await Self.withServer { try await Self.crossRestart($0) }
  }

  static func crossRestart(_ server: ScratchServer) async throws {
    try await server.execute(TestDatabase.tables(in: "t"))
    let replica = PostgresReplica(
      configuration: .init(
        connection: server.configuration, slot: "t", mapping: try TestDatabase.mapping(in: "t"),
        pollInterval: .milliseconds(100)))
    let (deliveries, token) = StreamingTests.record(replica)
    defer { token.cancel() }
    try await replica.start()
    let running = Task { try await replica.run() }
    for index in 0..<40 {
      try await server.execute("INSERT INTO t.company VALUES (\(index), 'c\(index)', NULL)")
    }
    #expect(try await RunTests.eventually(20) { deliveries.values.count >= 30 })
    try await server.crash()
    // The writer too waits for the server to be back.
    var index = 40
    while index < 80 {
      do {
        // A retry of an insert that did commit inserts nothing.
        try await server.execute(
          "INSERT INTO t.company VALUES (\(index), 'c\(index)', NULL) ON CONFLICT (id) DO NOTHING")
        index += 1
      } catch {
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    let names = Set((0..<80).map { "c\($0)" })
    #expect(try await RunTests.eventually(60) { deliveries.values.count >= names.count })
    // Nothing more comes: a repeat would show as a second delivery.
    try await Task.sleep(for: .milliseconds(500))
    StreamingTests.expectOnceInCommitOrder(deliveries.values, names)
    #expect(await replica.feedsOpened > 1)
    running.cancel()
    _ = try? await running.value
    await replica.stop()
  }
}
