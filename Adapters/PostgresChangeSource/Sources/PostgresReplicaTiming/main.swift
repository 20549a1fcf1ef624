// Times the PostgreSQL adapter against a server reached through libpq's
// variables (run it under Scripts/postgres-test-server.sh):
//
// 1. Throughput and latency from commit to delegate (from sending each
//    autocommitted INSERT to the row's arrival): one client commits
//    TRANSACTIONS single-row transactions; a replica (woken by NOTIFY, polling
//    every 50 ms otherwise) feeds a watcher that records when each row
//    arrived. Then the replica's pace on a backlog: the same transactions
//    committed while it does not poll, then applied as fast as it polls.
//    The baseline is what a team would otherwise write: a trigger that sends
//    each row with pg_notify, and a listener that parses it.
// 2. The adapter's own cost per changed row: wal2json lines decoded into
//    transactions and applied to a context, without the database.
//
//   swift run -c release --package-path Adapters/PostgresChangeSource pg-replica-timing [TRANSACTIONS]
import ContextWatching
import Foundation
import Logging
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL
import Synchronization

let logger = Logger(label: "timing", factory: { _ in SwiftLogNoOpLogHandler() })
let transactions = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 2000
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

func execute(_ connection: PostgresConnection, _ sql: String) async throws {
  // The rows are read so that the statement's error is thrown here.
  _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
}

/// Commits the transactions one by one, noting when each was sent, and
/// waits until every row arrived. Latency counts from the send: a
/// notification can arrive before the commit's reply does, so the reply's
/// time would make some latencies negative.
func write(
  _ table: String, _ connection: PostgresConnection, _ arrivals: Arrivals
) async throws -> (seconds: Double, latencies: [Double]) {
  var committed: [ContinuousClock.Instant] = []
  let start = clock.now
  for n in 1...transactions {
    committed.append(clock.now)
    try await execute(connection, "INSERT INTO \(table) VALUES (\(n), 'row \(n)', \(n % 100))")
  }
  while arrivals.count < transactions { try await Task.sleep(for: .milliseconds(1)) }
  let seconds = milliseconds(clock.now - start) / 1000
  let latencies = (1...transactions).map { milliseconds(arrivals.time($0)! - committed[$0 - 1]) }
  return (seconds, latencies)
}

func report(_ name: String, _ result: (seconds: Double, latencies: [Double])) {
  let rate = Double(transactions) / result.seconds
  print(
    "\(name): \(transactions) transactions in \(String(format: "%.2f", result.seconds)) s"
      + " = \(Int(rate)) tx/s; latency p50 \(String(format: "%.2f", percentile(result.latencies, 0.5))) ms,"
      + " p99 \(String(format: "%.2f", percentile(result.latencies, 0.99))) ms")
}

func measure() async throws {
  let schema = try ObjectSchema([
    EntityDescription("Item", attributes: [.init("name", .string), .init("rank", .integer)])
  ])
  let namespace = "timing_\(UInt32.random(in: 0...UInt32.max))"
  let writer = try await PostgresConnection.connect(configuration: try .fromEnvironment(), id: 1, logger: logger)
  try await execute(writer, "CREATE SCHEMA \(namespace)")
  try await execute(
    writer, "CREATE TABLE \(namespace).item (id bigint PRIMARY KEY, name text NOT NULL, rank bigint NOT NULL)")
  try await execute(writer, "ALTER TABLE \(namespace).item REPLICA IDENTITY FULL")
  try await execute(
    writer,
    """
    CREATE FUNCTION \(namespace).wake() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('\(namespace)_wake', ''); RETURN NULL; END $$
    """)
  try await execute(
    writer,
    "CREATE TRIGGER wake AFTER INSERT OR UPDATE OR DELETE ON \(namespace).item FOR EACH STATEMENT EXECUTE FUNCTION \(namespace).wake()"
  )

  // 1. The replica.
  let mapping = try ReplicaMapping(
    schema: schema, tables: [TableMapping(entity: "Item", schema: namespace, table: "item")])
  let replica = PostgresReplica(
    configuration: .init(
      connection: try .fromEnvironment(), slot: namespace, mapping: mapping, authorSource: .none,
      pollInterval: .milliseconds(50), notificationChannel: "\(namespace)_wake"))
  let replicaArrivals = Arrivals()
  let watcher = ContextWatcher(
    context: replica.context,
    target: .handler(on: .immediate) { changes in
      for snapshot in changes.inserted {
        guard case .string(let name) = snapshot["name"] ?? .null, let n = Int(name.dropFirst(4)) else { continue }
        replicaArrivals.record(n)
      }
    })
  let token = try watcher.watch("Item", where: "rank >= 0")
  try await replica.start()
  let running = Task { try await replica.run() }
  try await Task.sleep(for: .milliseconds(200))
  report("replica (NOTIFY wake-up)", try await write("\(namespace).item", writer, replicaArrivals))
  running.cancel()
  _ = try? await running.value
  try await replica.dropSlot()
  token.cancel()

  // 1b. The replica catching up a backlog: the same transactions committed
  // while it does not poll, then applied as fast as it can.
  try await execute(writer, "DROP TRIGGER wake ON \(namespace).item")
  try await execute(writer, "TRUNCATE \(namespace).item")
  let backlog = PostgresReplica(
    configuration: .init(
      connection: try .fromEnvironment(), slot: "\(namespace)_backlog", mapping: mapping, authorSource: .none))
  let backlogArrivals = Arrivals()
  let backlogWatcher = ContextWatcher(
    context: backlog.context,
    target: .handler(on: .immediate) { changes in
      for snapshot in changes.inserted {
        guard case .string(let name) = snapshot["name"] ?? .null, let n = Int(name.dropFirst(4)) else { continue }
        backlogArrivals.record(n)
      }
    })
  let backlogToken = try backlogWatcher.watch("Item", where: "rank >= 0")
  try await backlog.start()
  for n in 1...transactions {
    try await execute(writer, "INSERT INTO \(namespace).item VALUES (\(n), 'row \(n)', \(n % 100))")
  }
  let caughtUp = clock.now
  while backlogArrivals.count < transactions { try await backlog.poll() }
  let catchUpSeconds = milliseconds(clock.now - caughtUp) / 1000
  print(
    "replica catching up a backlog: \(transactions) transactions in \(String(format: "%.2f", catchUpSeconds)) s"
      + " = \(Int(Double(transactions) / catchUpSeconds)) tx/s")
  try await backlog.dropSlot()
  backlogToken.cancel()

  // The baseline: a trigger sending each row, and a listener.
  try await execute(writer, "TRUNCATE \(namespace).item")
  try await execute(
    writer,
    """
    CREATE FUNCTION \(namespace).send() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('\(namespace)_rows', row_to_json(NEW)::text); RETURN NULL; END $$
    """)
  try await execute(
    writer,
    "CREATE TRIGGER send AFTER INSERT ON \(namespace).item FOR EACH ROW EXECUTE FUNCTION \(namespace).send()")
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
  report("LISTEN/NOTIFY trigger", try await write("\(namespace).item", writer, baselineArrivals))
  listening.cancel()
  try await listener.close()
  try await execute(writer, "DROP SCHEMA \(namespace) CASCADE")
  try await writer.close()

  // 2. The adapter's own cost per changed row.
  let rows = 20_000
  let costMapping = try ReplicaMapping(schema: schema, tables: [TableMapping(entity: "Item", table: "item")])
  let lines = (1...rows).map { n in
    #"{"action":"I","xid":7,"schema":"public","table":"item","columns":[{"name":"id","typeoid":20,"value":\#(n)},"#
      + #"{"name":"name","typeoid":25,"value":"row \#(n)"},{"name":"rank","typeoid":20,"value":\#(n % 100)}]}"#
  }
  let cost = try PostgresReplica.measureApplyCost(
    mapping: costMapping, lines: lines, rowsPerTransaction: 100)
  print(
    "adapter cost: \(rows) inserted rows in transactions of 100: decode \(String(format: "%.2f", cost.decode * 1e6 / Double(rows))) µs/row,"
      + " apply and save \(String(format: "%.2f", cost.apply * 1e6 / Double(rows))) µs/row")
}

try await measure()
