// Times the PostgreSQL adapter against a server reached through libpq's
// variables (run it under Scripts/postgres-test-server.sh), in one run so
// that the ratios hold on a shared machine:
//
// 1. Live, commit to delegate: one client commits LIVE single-row
//    transactions at 1,000 a second; a watcher's handler over the replica
//    records when each row arrives. Latency counts from sending the INSERT
//    (a notification can arrive before the commit's reply does). Streaming,
//    polling (woken by a NOTIFY trigger, every 50 ms otherwise), and the
//    baseline a team would otherwise write: a trigger that sends each row
//    with pg_notify, and a listener that parses it.
// 2. Catching up: BACKLOG single-row transactions committed (by one DO
//    block, a COMMIT a row) while no replica reads the slot, then applied
//    by a replica resuming from the position before them, as fast as it
//    can, with the process's CPU time per row. Streaming and polling.
// 3. The adapter's own cost per changed row: wal2json lines decoded into
//    transactions and applied to a context, without the database.
//
//   swift run -c release --package-path Adapters/PostgresChangeSource pg-replica-timing [LIVE] [BACKLOG]
import ContextWatching
import Foundation
import Logging
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL
import Synchronization

let logger = Logger(label: "timing", factory: { _ in SwiftLogNoOpLogHandler() })
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let live = arguments.first ?? 5000
let backlog = arguments.dropFirst().first ?? 50_000
let clock = ContinuousClock()

/// Arrival times of rows by their number, from any thread.
final class Arrivals: Sendable {
  private let times = Mutex<[Int: ContinuousClock.Instant]>([:])
  func record(_ n: Int) { times.withLock { $0[n] = clock.now } }
  var count: Int { times.withLock { $0.count } }
  func time(_ n: Int) -> ContinuousClock.Instant? { times.withLock { $0[n] } }
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

/// The process's CPU time so far, user and system, in seconds.
func cpuSeconds() -> Double {
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func execute(_ connection: PostgresConnection, _ sql: String) async throws {
  // The rows are read so that the statement's error is thrown here.
  _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
}

/// Commits `live` single-row transactions at 1,000 a second (each sent at
/// its millisecond, or at once when the writer is late), and waits until
/// every row arrived.
func writeLive(
  _ table: String, _ connection: PostgresConnection, _ arrivals: Arrivals
) async throws -> (rate: Double, latencies: [Double]) {
  var sent: [ContinuousClock.Instant] = []
  sent.reserveCapacity(live)
  let start = clock.now
  for n in 1...live {
    let due = start + .milliseconds(n - 1)
    if clock.now < due { try await Task.sleep(until: due, clock: clock) }
    sent.append(clock.now)
    try await execute(connection, "INSERT INTO \(table) VALUES (\(n), 'row \(n)', \(n % 100))")
  }
  let rate = Double(live) / (milliseconds(clock.now - start) / 1000)
  let deadline = clock.now + .seconds(60)
  while arrivals.count < live && clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
  guard arrivals.count == live else { throw TimingFailure("\(arrivals.count) of \(live) rows arrived") }
  return (rate, (1...live).map { milliseconds(arrivals.time($0)! - sent[$0 - 1]) })
}

struct TimingFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

func report(_ name: String, _ result: (rate: Double, latencies: [Double])) {
  print(
    "\(name): \(live) transactions at \(Int(result.rate)) tx/s; commit to delegate p50"
      + " \(String(format: "%.2f", percentile(result.latencies, 0.5))) ms, p99"
      + " \(String(format: "%.2f", percentile(result.latencies, 0.99))) ms")
}

let schema = try ObjectSchema([
  EntityDescription("Item", attributes: [.init("name", .string), .init("rank", .integer)])
])

/// A replica of `table` on slot `slot`, with a watcher recording arrivals.
func replica(
  _ namespace: String, table: String, slot: String, readMode: PostgresReplica.ReadMode, channel: String? = nil
) throws -> (PostgresReplica, Arrivals, ContextWatcher, WatchToken) {
  let mapping = try ReplicaMapping(
    schema: schema, tables: [TableMapping(entity: "Item", schema: namespace, table: table)])
  let replica = PostgresReplica(
    configuration: .init(
      connection: try .fromEnvironment(), slot: slot, mapping: mapping, authorSource: .none, readMode: readMode,
      pollInterval: .milliseconds(50), notificationChannel: channel))
  let arrivals = Arrivals()
  let watcher = ContextWatcher(
    context: replica.context,
    target: .handler(on: .immediate) { changes in
      for snapshot in changes.inserted {
        guard case .string(let name) = snapshot["name"] ?? .null, let n = Int(name.dropFirst(4)) else { continue }
        arrivals.record(n)
      }
    })
  let token = try watcher.watch("Item", where: "rank >= 0")
  return (replica, arrivals, watcher, token)
}

func measure() async throws {
  let namespace = "timing_\(UInt32.random(in: 0...UInt32.max))"
  let writer = try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 1, logger: logger)
  do {
    try await measure(namespace, writer)
  } catch {
    try? await execute(writer, "DROP SCHEMA IF EXISTS \(namespace) CASCADE")
    try? await writer.close()
    throw error
  }
  try await writer.close()
}

func measure(_ namespace: String, _ writer: PostgresConnection) async throws {
  try await execute(writer, "CREATE SCHEMA \(namespace)")
  for table in ["streamed", "polled", "notified", "backlog_streamed", "backlog_polled"] {
    try await execute(
      writer, "CREATE TABLE \(namespace).\(table) (id bigint PRIMARY KEY, name text NOT NULL, rank bigint NOT NULL)")
    try await execute(writer, "ALTER TABLE \(namespace).\(table) REPLICA IDENTITY FULL")
  }
  try await execute(
    writer,
    """
    CREATE FUNCTION \(namespace).wake() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('\(namespace)_wake', ''); RETURN NULL; END $$
    """)
  try await execute(
    writer,
    "CREATE TRIGGER wake AFTER INSERT ON \(namespace).polled FOR EACH STATEMENT EXECUTE FUNCTION \(namespace).wake()")
  try await execute(
    writer,
    """
    CREATE FUNCTION \(namespace).send() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('\(namespace)_rows', row_to_json(NEW)::text); RETURN NULL; END $$
    """)
  try await execute(
    writer,
    "CREATE TRIGGER send AFTER INSERT ON \(namespace).notified FOR EACH ROW EXECUTE FUNCTION \(namespace).send()")

  // 1. Live at 1,000 transactions a second.
  for (name, mode) in [("streaming", PostgresReplica.ReadMode.streaming), ("polling", .polling)] {
    let table = mode == .streaming ? "streamed" : "polled"
    let (replica, arrivals, watcher, token) = try replica(
      namespace, table: table, slot: "\(namespace)_\(table)", readMode: mode,
      channel: mode == .polling ? "\(namespace)_wake" : nil)
    try await replica.start()
    let running = Task { try await replica.run() }
    try await Task.sleep(for: .milliseconds(200))
    let result: (rate: Double, latencies: [Double])
    do {
      result = try await writeLive("\(namespace).\(table)", writer, arrivals)
    } catch {
      // The replica's own error, when it stopped.
      running.cancel()
      if case .failure(let failure) = await running.result, !(failure is CancellationError) { throw failure }
      throw error
    }
    report("replica, \(name)\(mode == .polling ? " (NOTIFY wake-up)" : "")", result)
    running.cancel()
    _ = try? await running.value
    try await replica.dropSlot()
    token.cancel()
    // The watcher delivers while it lives.
    withExtendedLifetime(watcher) {}
  }
  let baselineArrivals = Arrivals()
  let listener = try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 2, logger: logger)
  let listening = Task {
    try await listener.listen(on: "\(namespace)_rows") { notifications in
      for try await notification in notifications {
        let row = try JSONSerialization.jsonObject(with: Data(notification.payload.utf8)) as? [String: Any]
        if let n = row?["id"] as? Int { baselineArrivals.record(n) }
      }
    }
  }
  try await Task.sleep(for: .milliseconds(200))
  report(
    "baseline, a NOTIFY trigger and a listener", try await writeLive("\(namespace).notified", writer, baselineArrivals))
  listening.cancel()
  try await listener.close()

  // 2. Catching up a backlog: a replica reads one transaction and stops;
  // the backlog is committed while no one reads the slot; a new replica
  // resumes from the stored position, its time and CPU counted from its
  // start.
  for (name, mode) in [("streaming", PostgresReplica.ReadMode.streaming), ("polling", .polling)] {
    let table = mode == .streaming ? "backlog_streamed" : "backlog_polled"
    let slot = "\(namespace)_\(table)"
    let (first, firstArrivals, firstWatcher, firstToken) = try replica(
      namespace, table: table, slot: slot, readMode: mode)
    try await first.start()
    try await execute(writer, "INSERT INTO \(namespace).\(table) VALUES (0, 'row 0', 0)")
    try await first.catchUp()
    guard firstArrivals.count == 1, let stored = await first.position else {
      throw TimingFailure("the first replica did not read its transaction")
    }
    await first.stop()
    firstToken.cancel()
    withExtendedLifetime(firstWatcher) {}
    try await execute(
      writer,
      """
      DO $$ BEGIN FOR n IN 1..\(backlog) LOOP
        INSERT INTO \(namespace).\(table) VALUES (n, 'row ' || n, n % 100); COMMIT;
      END LOOP; END $$
      """)
    let (replica, arrivals, watcher, token) = try replica(namespace, table: table, slot: slot, readMode: mode)
    let cpuBefore = cpuSeconds()
    let start = clock.now
    try await replica.start(from: stored)
    let running = Task { try await replica.run() }
    let deadline = clock.now + .seconds(600)
    while arrivals.count < backlog && clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    let seconds = milliseconds(clock.now - start) / 1000
    let cpu = cpuSeconds() - cpuBefore
    running.cancel()
    _ = try? await running.value
    guard arrivals.count == backlog else { throw TimingFailure("\(arrivals.count) of \(backlog) rows caught up") }
    print(
      "replica, \(name), catching up: \(backlog) transactions in \(String(format: "%.2f", seconds)) s"
        + " = \(Int(Double(backlog) / seconds)) tx/s; the process's CPU"
        + " \(String(format: "%.1f", cpu * 1e6 / Double(backlog))) µs per row")
    try await replica.dropSlot()
    token.cancel()
    withExtendedLifetime(watcher) {}
  }
  try await execute(writer, "DROP SCHEMA \(namespace) CASCADE")

  // 3. The adapter's own cost per changed row.
  let rows = 20_000
  let costMapping = try ReplicaMapping(schema: schema, tables: [TableMapping(entity: "Item", table: "item")])
  let lines = (1...rows).map { n in
    #"{"action":"I","xid":7,"schema":"public","table":"item","columns":[{"name":"id","typeoid":20,"value":\#(n)},"#
      + #"{"name":"name","typeoid":25,"value":"row \#(n)"},{"name":"rank","typeoid":20,"value":\#(n % 100)}]}"#
  }
  for rowsPerTransaction in [1, 100] {
    let cost = try PostgresReplica.measureApplyCost(
      mapping: costMapping, lines: lines, rowsPerTransaction: rowsPerTransaction)
    print(
      "adapter cost: \(rows) inserted rows in transactions of \(rowsPerTransaction):"
        + " decode \(String(format: "%.2f", cost.decode * 1e6 / Double(rows))) µs/row,"
        + " apply and save \(String(format: "%.2f", cost.apply * 1e6 / Double(rows))) µs/row")
  }
}

do {
  try await measure()
} catch {
  FileHandle.standardError.write(Data("pg-replica-timing: \(String(reflecting: error))\n".utf8))
  exit(1)
}
