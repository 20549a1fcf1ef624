import Foundation
import PostgresChangeSource
import PostgresNIO
import Testing

/// `pg-watch watch` run as a subprocess against the test server.
@Suite("pg-watch over a real server", .postgresServer, .timeLimit(.minutes(5)))
struct PgWatchTests {
  /// Shelves and items in `namespace`, a schema file mapping them, and a
  /// watches file: items ranked 10 or more, and items on shelf A.
  struct Files {
    var schema: String
    var watches: String
  }

  static func prepare(
    _ namespace: String, execute: (String) async throws -> Void = { try await TestDatabase.execute($0) }
  ) async throws -> Files {
    try await execute(
      """
      CREATE SCHEMA \(namespace);
      CREATE TABLE \(namespace).shelf (id bigint PRIMARY KEY, label text NOT NULL);
      CREATE TABLE \(namespace).item (
        code text PRIMARY KEY, name text NOT NULL, rank integer NOT NULL,
        shelf_id bigint REFERENCES \(namespace).shelf (id) ON DELETE SET NULL);
      ALTER TABLE \(namespace).shelf REPLICA IDENTITY FULL;
      ALTER TABLE \(namespace).item REPLICA IDENTITY FULL;
      CREATE TABLE \(namespace).unmapped (id int PRIMARY KEY)
      """)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(namespace)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let schema = folder.appendingPathComponent("schema.json").path
    let watches = folder.appendingPathComponent("watches.json").path
    try """
    {"entities": [
      {"name": "Shelf", "table": "\(namespace).shelf", "columns": {"name": "label"},
       "attributes": {"name": {"type": "string"}},
       "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "shelf"}}},
      {"name": "Item", "table": "\(namespace).item", "primaryKey": "code",
       "attributes": {"name": {"type": "string"}, "rank": {"type": "integer"}},
       "relationships": {"shelf": {"destination": "Shelf", "inverse": "items"}}}
    ]}
    """.write(toFile: schema, atomically: true, encoding: .utf8)
    try """
    [{"id": "high", "entity": "Item", "predicate": "rank >= %d", "args": [10]},
     {"id": "onA", "entity": "Item", "predicate": "shelf.name == 'A'", "events": ["inserted", "entered", "exited"]}]
    """.write(toFile: watches, atomically: true, encoding: .utf8)
    return Files(schema: schema, watches: watches)
  }

  /// A line with its `"position"` taken out, and the position.
  static func split(_ line: String) -> (line: String, position: PostgresPosition?) {
    guard let range = line.range(of: #""position":"[0-9A-F]+/[0-9A-F]+""#, options: .regularExpression) else {
      return (line, nil)
    }
    let text = line[range].dropFirst(#""position":""#.count).dropLast()
    return (line.replacingCharacters(in: range, with: #""position":"P""#), PostgresPosition(text))
  }

  /// Waits until pg-watch's position line, after closing its input.
  static func stop(_ process: PgWatchProcess) async throws -> (status: Int32, lines: [String], errors: String) {
    try process.closeInput()
    return try await process.finish()
  }

  /// Runs `body` with a fresh namespace and its files (see
  /// ``prepare(_:execute:)``); the namespace and its slot are dropped afterwards,
  /// whether `body` succeeds or not.
  static func withNamespace(_ body: (_ namespace: String, _ files: Files) async throws -> Void) async throws {
    let namespace = TestDatabase.uniqueName()
    defer { Task { await TestDatabase.cleanUp(namespace) } }
    try await body(namespace, try await prepare(namespace))
  }

  /// `pg-watch watch` on the namespace's files, its slot named after the
  /// namespace.
  static func watchArguments(_ namespace: String, _ files: Files) -> [String] {
    ["watch", "--schema", files.schema, "--watches", files.watches, "--slot", namespace]
  }

  /// Starts `pg-watch watch` on the namespace's files and expects its
  /// first line to say it is ready.
  static func startWatching(_ namespace: String, _ files: Files, read: String? = nil) async throws -> PgWatchProcess {
    let watch = try PgWatchProcess(watchArguments(namespace, files) + (read.map { ["--read", $0] } ?? []))
    #expect(try await watch.waitForLines(1) == [#"{"ready":true}"#])
    return watch
  }

  /// Waits for pg-watch to exit, after closing its input (or after
  /// `signal`), and expects exit status 0: every line it printed,
  /// and each line with its position taken out (see ``split(_:)``).
  static func stopCleanly(
    _ process: PgWatchProcess, signal: Int32? = nil
  ) async throws -> (lines: [String], split: [(line: String, position: PostgresPosition?)]) {
    if let signal {
      process.send(signal)
    } else {
      try process.closeInput()
    }
    let result = try await process.finish()
    #expect(result.status == 0, "\(result.errors)")
    return (result.lines, result.lines.map(split))
  }

  /// The expected lines are those `context-watch replay --watches` prints
  /// for the same schema, watches and changes (refs being the primary
  /// keys), with the position added to each save's line.
  @Test(arguments: ["stream", "poll"])
  func printsTheLinesOfReplayForEveryTransactionAWatchSaw(_ read: String) async throws {
    try await Self.withNamespace { namespace, files in
      let watch = try await Self.startWatching(namespace, files, read: read)
      let writes = [
        // Seen by both watches.
        """
        BEGIN;
        INSERT INTO \(namespace).shelf VALUES (1, 'A'), (2, 'B');
        INSERT INTO \(namespace).item VALUES ('a1', 'anvil', 5, 1), ('b2', 'bolt', 20, NULL);
        COMMIT
        """,
        // Rolled back: nothing.
        "BEGIN; UPDATE \(namespace).item SET rank = 99; ROLLBACK",
        // Only an unmapped table, then only shelves: no watch saw them.
        "INSERT INTO \(namespace).unmapped VALUES (1)",
        "UPDATE \(namespace).shelf SET label = 'B2' WHERE id = 2",
        // The anvil rises into "high" and moves to shelf B: it leaves "onA".
        "UPDATE \(namespace).item SET rank = 15, shelf_id = 2 WHERE code = 'a1'",
        "DELETE FROM \(namespace).item WHERE code = 'b2'",
      ]
      for sql in writes { try await TestDatabase.execute(sql) }
      _ = try await watch.waitForLines(9)
      let (lines, split) = try await Self.stopCleanly(watch)
      #expect(
        split.map(\.line) == [
          #"{"ready":true}"#,
          #"{"save":1,"position":"P","inserted":[{"ref":"1","entity":"Shelf","values":{"name":"A","items":["a1"]}},"#
            + #"{"ref":"2","entity":"Shelf","values":{"name":"B","items":[]}},"#
            + #"{"ref":"a1","entity":"Item","values":{"name":"anvil","rank":5,"shelf":"1"}},"#
            + #"{"ref":"b2","entity":"Item","values":{"name":"bolt","rank":20,"shelf":null}}],"updated":[],"deleted":[]}"#,
          #"{"save":1,"watch":"high","inserted":["b2"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
          #"{"save":1,"watch":"onA","inserted":["a1"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
          #"{"save":3,"position":"P","inserted":[],"updated":[{"ref":"1","entity":"Shelf","changed":{"items":{"added":[],"removed":["a1"]}}},"#
            + #"{"ref":"2","entity":"Shelf","changed":{"items":{"added":["a1"],"removed":[]}}},"#
            + #"{"ref":"a1","entity":"Item","changed":{"rank":{"old":5,"new":15},"shelf":{"old":"1","new":"2"}}}],"deleted":[]}"#,
          #"{"save":3,"watch":"high","inserted":[],"updated":[],"entered":["a1"],"exited":[],"deleted":[]}"#,
          #"{"save":3,"watch":"onA","inserted":[],"updated":[],"entered":[],"exited":["a1"],"deleted":[]}"#,
          #"{"save":4,"position":"P","inserted":[],"updated":[],"deleted":[{"ref":"b2","entity":"Item","values":{"name":"bolt","rank":20,"shelf":null}}]}"#,
          #"{"save":4,"watch":"high","inserted":[],"updated":[],"entered":[],"exited":[],"deleted":["b2"]}"#,
          #"{"position":"P"}"#,
        ] as [String],
        "\(lines.joined(separator: "\n"))")
      // Positions grow, and the last line gives the last transaction's, or
      // a later one the watch passed over (other tests write meanwhile).
      let positions = split.compactMap(\.position)
      #expect(positions.count == 4)
      #expect(positions.dropLast() == positions.dropLast().sorted())
      #expect(positions.last! >= positions[2])
    }
  }

  @Test func aReaderThatGoesAwayStopsItBeforeTheTransactionIsAcknowledged() async throws {
    try await Self.withNamespace { namespace, files in
      let first = try await Self.startWatching(namespace, files)
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('b2', 'bolt', 20, NULL)")
      _ = try await first.waitForLines(3)
      let (_, split) = try await Self.stopCleanly(first)
      let from = try #require(split.compactMap(\.position).last)
      // Its standard output a pipe whose reader is gone.
      let process = Process()
      process.executableURL = PgWatchProcess.executable
      process.arguments = Self.watchArguments(namespace, files) + ["--from", from.description]
      let output = Pipe()
      let errors = Pipe()
      process.standardOutput = output
      process.standardError = errors
      process.standardInput = Pipe()
      try process.run()
      try output.fileHandleForReading.close()
      // The anvil's transaction is seen, its lines cannot be written.
      try await Task.sleep(for: .seconds(2))
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('a1', 'anvil', 50, NULL)")
      let deadline = ContinuousClock.now + .seconds(60)
      while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
      if process.isRunning {
        process.terminate()
        Issue.record("pg-watch did not stop when its reader went away")
        return
      }
      let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 1)
      #expect(
        message.hasPrefix(
          "pg-watch: standard output is closed (its reader went away): stopped before acknowledging the transaction at "
        ), "\(message)")
      // Where to start again: just before the transaction, past whatever
      // the replica passed over meanwhile (other tests write too).
      let restart = try #require(message.split(separator: " ").last.flatMap { PostgresPosition($0.dropLast()) })
      #expect(restart >= from)
      // The slot kept it: a reader from there gets it, once the server has
      // seen the first one's connection end.
      var lines: [String] = []
      for _ in 0..<50 {
        let again = try PgWatchProcess(Self.watchArguments(namespace, files) + ["--from", restart.description])
        lines = try await again.waitForLines(3)
        if lines.count >= 3 {
          _ = try await Self.stopCleanly(again)
          break
        }
        let refused = try await again.finish()
        #expect(refused.errors.contains("slotInUse"), "\(refused.errors)")
        try await Task.sleep(for: .milliseconds(200))
      }
      #expect(lines.dropFirst().first?.contains(#""inserted":[{"ref":"a1""#) == true, "\(lines)")
    }
  }

  @Test func resumesFromThePositionItPrintedDeliveringEachLaterTransactionOnce() async throws {
    try await Self.withNamespace { namespace, files in
      let first = try await Self.startWatching(namespace, files)
      try await TestDatabase.execute(
        """
        BEGIN;
        INSERT INTO \(namespace).shelf VALUES (1, 'A');
        INSERT INTO \(namespace).item VALUES ('a1', 'anvil', 5, 1);
        COMMIT
        """)
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('b2', 'bolt', 20, NULL)")
      _ = try await first.waitForLines(5)
      let stopped = try await Self.stopCleanly(first)
      let firstPositions = stopped.split.compactMap(\.position)
      #expect(firstPositions.count == 3, "\(stopped.lines)")
      // Other tests write to the same database: the position may be past
      // the last transaction printed, at one the watch passed over.
      let resumeFrom = try #require(firstPositions.last)
      #expect(resumeFrom >= firstPositions[1])

      // While nothing watches: the anvil rises into "high", a crate arrives.
      try await TestDatabase.execute("UPDATE \(namespace).item SET rank = 12 WHERE code = 'a1'")
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('c3', 'crate', 30, 1)")
      let second = try PgWatchProcess(Self.watchArguments(namespace, files) + ["--from", resumeFrom.description])
      let secondReady = try await second.waitForLines(1)
      // The transactions after the position follow at once.
      #expect(secondReady.first == #"{"ready":true}"#, "\(secondReady)")
      try await TestDatabase.execute("DELETE FROM \(namespace).item WHERE code = 'a1'")
      _ = try await second.waitForLines(8)
      let (lines, split) = try await Self.stopCleanly(second)
      // The load holds the state at the position: the update's old rank is
      // the one before it, and each later transaction comes once.
      #expect(
        split.map(\.line) == [
          #"{"ready":true}"#,
          #"{"save":2,"position":"P","inserted":[],"updated":[{"ref":"a1","entity":"Item","changed":{"rank":{"old":5,"new":12}}}],"deleted":[]}"#,
          #"{"save":2,"watch":"high","inserted":[],"updated":[],"entered":["a1"],"exited":[],"deleted":[]}"#,
          #"{"save":3,"position":"P","inserted":[{"ref":"c3","entity":"Item","values":{"name":"crate","rank":30,"shelf":"1"}}],"#
            + #""updated":[{"ref":"1","entity":"Shelf","changed":{"items":{"added":["c3"],"removed":[]}}}],"deleted":[]}"#,
          #"{"save":3,"watch":"high","inserted":["c3"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
          #"{"save":3,"watch":"onA","inserted":["c3"],"updated":[],"entered":[],"exited":[],"deleted":[]}"#,
          #"{"save":4,"position":"P","inserted":[],"updated":[{"ref":"1","entity":"Shelf","changed":{"items":{"added":[],"removed":["a1"]}}}],"#
            + #""deleted":[{"ref":"a1","entity":"Item","values":{"name":"anvil","rank":12,"shelf":"1"}}]}"#,
          #"{"save":4,"watch":"high","inserted":[],"updated":[],"entered":[],"exited":[],"deleted":["a1"]}"#,
          #"{"position":"P"}"#,
        ] as [String], "\(lines.joined(separator: "\n"))")
      let positions = split.compactMap(\.position)
      #expect(positions.count == 4)
      #expect(positions.allSatisfy { $0 > resumeFrom })
      #expect(positions.dropLast() == positions.dropLast().sorted())
      #expect(Set(positions.dropLast()).count == 3)
      #expect(positions.last! >= positions[2])
    }
  }

  @Test(arguments: [SIGTERM, SIGINT])
  func stopsOnASignalWithThePosition(_ signal: Int32) async throws {
    try await Self.withNamespace { namespace, files in
      let watch = try await Self.startWatching(namespace, files)
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('b2', 'bolt', 20, NULL)")
      _ = try await watch.waitForLines(3)
      let (lines, split) = try await Self.stopCleanly(watch, signal: signal)
      #expect(split.map(\.line).last == #"{"position":"P"}"#, "\(lines)")
      #expect(split.count == 4, "\(lines)")
      // The save's position, or a later one the watch passed over (other
      // tests write meanwhile).
      let positions = split.compactMap(\.position)
      #expect(positions.count == 2 && positions[1] >= positions[0])
    }
  }

  @Test func aTransactionThatCannotBeAppliedStopsWithStatusOneAtTheLastGoodPosition() async throws {
    try await Self.withNamespace { namespace, files in
      let watch = try await Self.startWatching(namespace, files)
      try await TestDatabase.execute("INSERT INTO \(namespace).item VALUES ('b2', 'bolt', 20, NULL)")
      _ = try await watch.waitForLines(3)
      // The rank's column turns to text under the replica.
      try await TestDatabase.execute(
        """
        ALTER TABLE \(namespace).item ALTER COLUMN rank TYPE text;
        INSERT INTO \(namespace).item VALUES ('c3', 'crate', 'high', NULL)
        """)
      let result = try await watch.finish()
      #expect(result.status == 1)
      #expect(
        result.errors.hasPrefix("pg-watch: stopped: unadmittedType: \(namespace).item.rank (Item.rank): "),
        "\(result.errors)")
      let split = result.lines.map(Self.split)
      #expect(split.count == 4, "\(result.lines)")
      let positions = split.compactMap(\.position)
      // The last good transaction: the insert, or a later one the watch
      // passed over, never the failing one.
      #expect(positions.count == 2 && positions[1] >= positions[0])
      let failed = try #require(result.errors.firstRange(of: "(transaction at "), "\(result.errors)")
      let text = result.errors[failed.upperBound...].prefix { $0 != ")" }
      #expect(PostgresPosition(text).map { $0 > positions[1] } == true, "\(result.errors)")
    }
  }

  @Test func badFilesAMismatchedCatalogAndNoServerAreErrorsWithStatusOne() async throws {
    try await Self.withNamespace { namespace, files in
      let folder = URL(fileURLWithPath: files.schema).deletingLastPathComponent()
      func file(_ name: String, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
      }
      func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, [String], String) {
        // Input stays open: closing it would stop the watch before its error.
        let process = try PgWatchProcess(["watch"] + arguments + ["--slot", namespace], environment: environment)
        let result = try await process.finish()
        return (result.status, result.lines, result.errors)
      }

      let badSchema = try file(
        "bad-schema.json", #"{"entities": [{"name": "Item", "attributes": {"rank": {"type": "int"}}}]}"#)
      var (status, lines, errors) = try await run(["--schema", badSchema, "--watches", files.watches])
      #expect(status == 1)
      #expect(lines.isEmpty)
      #expect(errors.hasPrefix("pg-watch: \(badSchema): invalid schema: Item.rank: unknown type 'int'"), "\(errors)")

      // Misspelled mapping fields are named with what was meant, never
      // passed over.
      let misspelled = try file(
        "misspelled.json",
        #"{"entities": [{"name": "Item", "tabel": "x.item", "attributes": {"rank": {"type": "integer"}}}]}"#)
      (status, lines, errors) = try await run(["--schema", misspelled, "--watches", files.watches])
      #expect(status == 1)
      #expect(
        errors == "pg-watch: \(misspelled): invalid schema: Item: unknown field 'tabel' (did you mean 'table'?)\n",
        "\(errors)")
      let misspelledColumn = try file(
        "misspelled-column.json",
        #"{"entities": [{"name": "Item", "primaryKey": 5, "columns": {"rnak": "r"}, "#
          + #""attributes": {"rank": {"type": "integer"}}}]}"#)
      (status, lines, errors) = try await run(["--schema", misspelledColumn, "--watches", files.watches])
      #expect(status == 1)
      #expect(
        errors
          == "pg-watch: \(misspelledColumn): entities[0] (Item): \"primaryKey\" is a string, not the number 5;"
          + " entities[0] (Item).columns: unknown field 'rnak' (did you mean 'rank'?)\n",
        "\(errors)")

      let badWatches = try file(
        "bad-watches.json",
        #"[{"id": "w", "entity": "Item", "predicate": "rank >"}, {"id": "v", "entity": "Box", "predicate": "TRUEPREDICATE"}]"#
      )
      (status, lines, errors) = try await run(["--schema", files.schema, "--watches", badWatches])
      #expect(status == 1)
      #expect(lines.isEmpty)
      #expect(errors.hasPrefix("pg-watch: \(badWatches): 2 watches are invalid\n"), "\(errors)")
      #expect(errors.contains("Box"), "\(errors)")

      let notJSON = try file("not-json.json", "[{")
      (status, lines, errors) = try await run(["--schema", files.schema, "--watches", notJSON])
      #expect(status == 1)
      #expect(errors.hasPrefix("pg-watch: \(notJSON): invalid JSON"), "\(errors)")
      // The reader of `context-watch`: what is wrong, and where.
      #expect(errors == "pg-watch: \(notJSON): invalid JSON at byte 3: expected a string key\n", "\(errors)")

      let missingTable = try file(
        "missing-table.json",
        #"{"entities": [{"name": "Item", "table": "\#(namespace).gone", "attributes": {"name": {"type": "string"}}}]}"#)
      (status, lines, errors) = try await run(["--schema", missingTable, "--watches", try file("none.json", "[]")])
      #expect(status == 1)
      #expect(lines.isEmpty)
      #expect(
        errors.hasPrefix("pg-watch: cannot start the replica on slot '\(namespace)': mappingMismatch:"), "\(errors)")
      #expect(errors.contains("\(namespace).gone"), "\(errors)")

      (status, lines, errors) = try await run(
        ["--schema", files.schema, "--watches", files.watches], environment: ["PGHOST": "127.0.0.1", "PGPORT": "1"])
      #expect(status == 1)
      #expect(lines.isEmpty)
      #expect(
        errors.hasPrefix("pg-watch: cannot start the replica on slot '\(namespace)': connectionLost: cannot connect"),
        "\(errors)")

      (status, lines, errors) = try await run(["--schema", files.schema, "--watches", files.watches, "--from", "x"])
      #expect(status == 64)
      #expect(errors.hasPrefix("pg-watch: watch: --from 'x' is not a position (like 0/16B3F40)"), "\(errors)")

      (status, lines, errors) = try await run(["--schema", files.schema, "--watches", files.watches, "--read", "push"])
      #expect(status == 64)
      #expect(errors.hasPrefix("pg-watch: watch: --read 'push' is not a read mode: stream or poll\n"), "\(errors)")

      let badSlot = try await PgWatchProcess([
        "watch", "--schema", files.schema, "--watches", files.watches, "--slot", "Bad",
      ])
      .finish()
      (status, errors) = (badSlot.status, badSlot.errors)
      #expect(status == 64)
      #expect(
        errors.hasPrefix("pg-watch: watch: --slot 'Bad' is not a slot name (up to 63 of a-z, 0-9 and _)\nusage:"),
        "\(errors)")
    }
  }

  @Test func theDemoFollowsTwoClientsAndCleansUp() async throws {
    let demo = try PgWatchProcess(["demo"])
    let result = try await Self.stop(demo)
    #expect(result.status == 0, "\(result.errors)")
    let lines = result.lines
    // The deliveries, without their positions.
    let deliveries = lines.filter { $0.hasPrefix("  ") }.map {
      $0.replacingOccurrences(of: #" at [0-9A-F]+/[0-9A-F]+ "#, with: " ", options: .regularExpression)
    }
    #expect(
      deliveries == [
        "  watcher: save 1 by hr: inserted Ann",
        "  list:    insert Ann at 0 → [Ann (34)]",
        "  watcher: save 2 by payroll: entered Bob",
        "  list:    insert Bob at 0 → [Bob (18), Ann (34)]",
        "  watcher: save 3 by hr: inserted Cy; updated Ann",
        "  list:    insert Cy at 2, reload Ann at 1 → [Bob (18), Ann (34), Cy (52)]",
        "  (no save)",
        "  watcher: save 4 by payroll: updated Ann",
        "  list:    move Ann 1→2 → [Bob (18), Cy (52), Ann (60)]",
        "  watcher: save 5 by hr: deleted Bob",
        "  list:    delete Bob at 0 → [Cy (52), Ann (60)]",
      ], "\(lines.joined(separator: "\n"))")
    // The demo's slot and schema are gone.
    let namespace = try #require(
      lines.first?.split(separator: " ").dropFirst().first?.split(separator: ".").first.map(String.init))
    #expect(namespace.hasPrefix("watch_demo_"))
    let connection = try await TestDatabase.connect()
    var leftovers = 0
    for try await (count, ) in try await connection.query(
      """
      SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = \(namespace))
        + (SELECT count(*) FROM pg_namespace WHERE nspname = \(namespace))
      """, logger: TestDatabase.logger
    ).decode((Int64,).self) {
      leftovers = Int(count)
    }
    try await connection.close()
    #expect(leftovers == 0)
  }
}
