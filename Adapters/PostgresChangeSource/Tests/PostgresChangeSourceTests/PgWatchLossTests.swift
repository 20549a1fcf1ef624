import Foundation
import PostgresChangeSource
import PostgresNIO
import Testing

/// The ways a `pg-watch` could lose transactions or hide why it stopped,
/// each tried as a user would meet it: processes over the test server.
@Suite("pg-watch refuses what would lose data", .postgresServer, .timeLimit(.minutes(5)))
struct PgWatchLossTests {
  /// The slot's acknowledged position, as the server reports it.
  static func acknowledged(_ slot: String) async throws -> String? {
    let connection = try await TestDatabase.connect()
    defer { Task { try? await connection.close() } }
    var position: String?
    for try await (text, ) in try await connection.query(
      "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = \(slot)",
      logger: TestDatabase.logger
    ).decode((String?,).self) {
      position = text
    }
    return position
  }

  @Test func aSecondReaderOfASlotIsRefusedAtStartAndTheFirstMissesNothing() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      let first = try await PgWatchTests.startWatching(namespace, files)
      let second = try PgWatchProcess(PgWatchTests.watchArguments(namespace, files))
      let refused = try await second.finish()
      #expect(refused.status == 1)
      #expect(refused.lines.isEmpty, "\(refused.lines)")
      #expect(
        refused.errors.hasPrefix(
          "pg-watch: cannot start the replica on slot '\(namespace)': slotInUse: slot '\(namespace)' is being read"
            + " by another reader (the session of PID "),
        "\(refused.errors)")
      #expect(
        refused.errors.hasSuffix(
          ", 'context-watch \(namespace)'); a slot has one reader: give each reader a slot of its own,"
            + " or stop the other\n"),
        "\(refused.errors)")
      // The refused reader read and acknowledged nothing: the first sees
      // every commit.
      // Ranked 10 or more, so that the watch `high` sees each.
      for index in 0..<40 {
        try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('i\(index)', 'n', 10, NULL)")
      }
      _ = try await first.waitForLines(1 + 2 * 40)
      let (lines, _) = try await PgWatchTests.stopCleanly(first)
      let saves = lines.filter { $0.hasPrefix(#"{"save":"#) && !$0.contains(#""watch":"#) }
      #expect(saves.count == 40, "\(lines.joined(separator: "\n"))")
      for index in 0..<40 {
        #expect(saves.contains { $0.contains(#"{"ref":"i\#(index)","#) }, "i\(index) is missing")
      }
    }
  }

  @Test func aPositionPastTheEndOfTheLogIsRefusedAndTheSlotKeepsItsTransactions() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      let first = try await PgWatchTests.startWatching(namespace, files)
      _ = try await PgWatchTests.stopCleanly(first)
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('late', 'n', 1, NULL)")
      let before = try await Self.acknowledged(namespace)

      let watch = try PgWatchProcess(PgWatchTests.watchArguments(namespace, files) + ["--from", "FF/0"])
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(result.lines.isEmpty, "\(result.lines)")
      let prefix =
        "pg-watch: cannot start the replica on slot '\(namespace)': positionNotHeld: the position FF/0 to resume"
        + " from is past the end of the database's log ("
      let suffix =
        "), so no transaction of this database committed there: resume from a position this reader printed,"
        + " or load again\n"
      #expect(result.errors.hasPrefix(prefix) && result.errors.hasSuffix(suffix), "\(result.errors)")
      #expect(try await Self.acknowledged(namespace) == before)
    }
  }

  @Test func sigtermDuringALongLoadStopsPromptlyWithoutReady() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      // The slot exists, so that the second start only loads.
      let first = try await PgWatchTests.startWatching(namespace, files)
      _ = try await PgWatchTests.stopCleanly(first)
      // A transaction holding the table makes the load wait as long as it
      // stays open.
      let locker = try await TestDatabase.connect()
      defer { Task { try? await locker.close() } }
      for statement in ["BEGIN", "LOCK TABLE \(namespace).item IN ACCESS EXCLUSIVE MODE"] {
        _ = try await locker.query(PostgresQuery(unsafeSQL: statement), logger: TestDatabase.logger).collect()
      }
      let watch = try PgWatchProcess(PgWatchTests.watchArguments(namespace, files))
      try await Task.sleep(for: .seconds(1))
      #expect(watch.lines.isEmpty, "the load ended before the signal")
      watch.send(SIGTERM)
      let result = try await watch.finish(timeout: .seconds(20))
      _ = try await locker.query("ROLLBACK", logger: TestDatabase.logger).collect()
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.lines == [#"{"position":null}"#])
      #expect(result.errors.isEmpty, "\(result.errors)")
    }
  }

  @Test func connectionSettingsThatCannotWorkAreNamed() async throws {
    try await PgWatchTests.withNamespace { namespace, files in
      let port = try await PgWatchProcess(
        PgWatchTests.watchArguments(namespace, files), environment: ["PGPORT": "abc"]
      ).finish()
      #expect(port.status == 1)
      #expect(
        port.errors
          == "pg-watch: PGPORT is 'abc', which is not a port number (1 to 65535): set it to the server's port\n")

      let user = try PgWatchProcess(PgWatchTests.watchArguments(namespace, files), environment: ["PGUSER": "nobody"])
      let refused = try await user.finish()
      #expect(refused.status == 1)
      let host = ProcessInfo.processInfo.environment["PGHOST"] ?? "127.0.0.1"
      let serverPort = ProcessInfo.processInfo.environment["PGPORT"] ?? "5432"
      #expect(
        refused.errors
          == "pg-watch: cannot start the replica on slot '\(namespace)': serverError: cannot connect to the"
          + " database 'postgres' at \(host):\(serverPort) as 'nobody': role \"nobody\" does not exist; check PGUSER,"
          + " and that the server's pg_hba.conf admits it from this host\n")
    }
  }
}
