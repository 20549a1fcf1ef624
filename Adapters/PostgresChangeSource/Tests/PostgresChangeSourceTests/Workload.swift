import Foundation
import Logging
import PostgresNIO

/// A seeded generator (SplitMix64), so that a failing workload can be
/// replayed with `PG_WORKLOAD_SEED`.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  static func seed() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["PG_WORKLOAD_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 0...UInt64.max)
  }
}

/// One database client writing random transactions to the test tables:
/// inserts, updates and deletes of companies and people, some rolled
/// back, some failing on a foreign key another client broke.
struct WorkloadClient {
  let namespace: String
  let client: Int
  var generator: SeededGenerator
  var companies: [Int64] = []
  var people: [Int64] = []
  var nextID: Int64
  /// Transactions committed, rolled back, and failed.
  var committed = 0
  var rolledBack = 0
  var failed = 0

  init(namespace: String, client: Int, seed: UInt64) {
    self.namespace = namespace
    self.client = client
    generator = SeededGenerator(seed: seed &+ UInt64(client))
    nextID = Int64(client) * 1_000_000 + 1
  }

  mutating func statement() -> String {
    let n = namespace
    let roll = Int.random(in: 0..<100, using: &generator)
    func literal(_ value: String?) -> String { value.map { "'\($0)'" } ?? "NULL" }
    let age = Bool.random(using: &generator) ? String(Int.random(in: 0...90, using: &generator)) : "NULL"
    let score =
      Bool.random(using: &generator) ? String(Double(Int.random(in: 0...1000, using: &generator)) / 8) : "NULL"
    let active = ["true", "false", "NULL"].randomElement(using: &generator)!
    let token =
      Bool.random(using: &generator)
      ? "'"
        + UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8.random(in: 0...255, using: &generator)))
        .uuidString + "'"
      : "NULL"
    let employer = companies.randomElement(using: &generator).map(String.init) ?? "NULL"
    switch roll {
    case 0..<15 where !companies.isEmpty || roll < 10:
      let id = nextID
      nextID += 1
      companies.append(id)
      let founded =
        Bool.random(using: &generator)
        ? "'2020-01-0\(Int.random(in: 1...9, using: &generator)) 10:00:00.125+02'" : "NULL"
      return "INSERT INTO \(n).company VALUES (\(id), 'Company \(id)', \(founded))"
    case 0..<55:
      let id = nextID
      nextID += 1
      people.append(id)
      return
        "INSERT INTO \(n).person VALUES (\(id), 'P\(id)', \(age), \(score), \(active), \(token), NULL, \(employer))"
    case 55..<80 where !people.isEmpty:
      let id = people.randomElement(using: &generator)!
      return
        "UPDATE \(n).person SET age = \(age), score = \(score), active = \(active), employer_id = \(employer)"
        + " WHERE id = \(id)"
    case 80..<88 where !people.isEmpty:
      let id = people.remove(at: Int.random(in: 0..<people.count, using: &generator))
      return "DELETE FROM \(n).person WHERE id = \(id)"
    case 88..<95 where !companies.isEmpty:
      let id = companies.randomElement(using: &generator)!
      return "UPDATE \(n).company SET name = 'Renamed \(Int.random(in: 0...99, using: &generator))' WHERE id = \(id)"
    case 95..<100 where !companies.isEmpty:
      let id = companies.remove(at: Int.random(in: 0..<companies.count, using: &generator))
      return "DELETE FROM \(n).company WHERE id = \(id)"
    default:
      return "UPDATE \(n).company SET founded = now() WHERE id = \(companies.randomElement(using: &generator) ?? 0)"
    }
  }

  /// Runs `count` transactions of one to four statements; about one in
  /// seven is rolled back.
  mutating func run(transactions count: Int, on connection: PostgresConnection, logger: Logger) async throws {
    for _ in 0..<count {
      let statements = (0..<Int.random(in: 1...4, using: &generator)).map { _ in statement() }
      let rollback = Int.random(in: 0..<7, using: &generator) == 0
      do {
        try await connection.query("BEGIN", logger: logger)
        for statement in statements {
          try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.query(rollback ? "ROLLBACK" : "COMMIT", logger: logger)
        if rollback { rolledBack += 1 } else { committed += 1 }
      } catch {
        try await connection.query("ROLLBACK", logger: logger)
        failed += 1
      }
    }
  }
}
