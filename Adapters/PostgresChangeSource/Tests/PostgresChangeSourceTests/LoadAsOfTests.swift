import Foundation
import ObjectGraph
import PostgresChangeSource
import Synchronization
import Testing

@Suite("Loading as of a position", .postgresServer, .timeLimit(.minutes(5)))
struct LoadAsOfTests {
  @Test func aNewReplicaLoadsTheTablesAsTheyWereAndAppliesEachLaterTransactionOnce() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let first = try TestDatabase.replica(in: namespace)
    try await first.start()
    try await TestDatabase.execute(
      """
      INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL);
      INSERT INTO \(namespace).person (id, name, age, employer_id) VALUES (1, 'Ann', 30, 1), (2, 'Bob', 40, 1)
      """)
    try await first.catchUp()
    let stored = try #require(await first.position)
    let then = TestDatabase.replicaContent(first)
    await first.stop()

    // While no replica runs: an update, an insert, a key change, a delete,
    // and a row inserted and deleted again.
    for sql in [
      "UPDATE \(namespace).person SET age = 31 WHERE id = 1",
      "INSERT INTO \(namespace).company VALUES (2, 'Beta', NULL)",
      "UPDATE \(namespace).person SET id = 3, employer_id = 2 WHERE id = 2",
      "DELETE FROM \(namespace).company WHERE id = 1",
      "INSERT INTO \(namespace).person (id, name) VALUES (9, 'Temp'); DELETE FROM \(namespace).person WHERE id = 9",
    ] {
      try await TestDatabase.execute(sql)
    }
    let second = try TestDatabase.replica(in: namespace)
    let saves = SaveLog()
    let observer = second.context.addSaveObserver { save in saves.append(save.sequenceNumber) }
    try await second.start(loadingAsOf: stored)
    #expect(TestDatabase.replicaContent(second) == then)
    #expect(await second.position == stored)
    #expect(try await second.catchUp() == 6)
    #expect(TestDatabase.replicaContent(second) == (try await TestDatabase.databaseContent(namespace)))
    // The load's save, then one per later transaction, each with its
    // position after the stored one.
    #expect(saves.numbers == Array(1...7))
    let positions = (2...7).compactMap { second.position(ofSave: $0) }
    #expect(positions.count == 6 && positions.allSatisfy { $0 > stored } && positions == positions.sorted())
    observer.cancel()
    try await second.dropSlot()
  }

  @Test func aTruncateAfterThePositionIsAClearError() async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await TestDatabase.createTables(in: namespace)
    let first = try TestDatabase.replica(in: namespace)
    try await first.start()
    try await TestDatabase.execute("INSERT INTO \(namespace).company VALUES (1, 'Acme', NULL)")
    try await first.catchUp()
    let stored = try #require(await first.position)
    await first.stop()
    try await TestDatabase.execute("TRUNCATE \(namespace).person")
    let second = try TestDatabase.replica(in: namespace)
    let error = await #expect(throws: PostgresReplicaError.self) { try await second.start(loadingAsOf: stored) }
    #expect(error?.code == .positionNotHeld)
    #expect(
      error?.message
        == "cannot load \(namespace).person as it was at \(stored): a later transaction truncated it,"
        + " so its earlier rows are gone; load without a position")
    // The transaction is named once, by the error's position.
    let description = try #require(error?.description)
    #expect(description.components(separatedBy: "transaction at").count == 2, "\(description)")
    #expect(error?.position.map { $0 > stored } == true)
  }
}

/// Save numbers, appended from the context's queue.
final class SaveLog: Sendable {
  private let state = Mutex<[Int]>([])
  func append(_ number: Int) { state.withLock { $0.append(number) } }
  var numbers: [Int] { state.withLock { $0 } }
}
