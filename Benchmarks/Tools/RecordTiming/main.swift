// Reading a six-attribute record from a snapshot through the record
// decoder, against a hand-written initializer reading the same snapshot
// by key.
//
//   swift run -c release --package-path Benchmarks RecordTiming
//
// 10,000 snapshots of a person (a string, an integer, a double, a Boolean,
// a date and a UUID) are read each round both ways; rounds alternate, so
// that the machine's noise falls on both alike, and the medians of the
// time per record are compared. Every round checks that both ways read the
// same records.

import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL

struct Person: EntityRecord, Equatable {
  static let entityName = "Person"
  var name: String
  var age: Int
  var score: Double
  var active: Bool
  var born: Date
  var token: UUID

  /// What a user would write without records: a read per key.
  init(reading snapshot: ObjectSnapshot) {
    guard case .string(let name)? = snapshot["name"], case .int(let age)? = snapshot["age"],
      case .double(let score)? = snapshot["score"], case .bool(let active)? = snapshot["active"],
      case .date(let born)? = snapshot["born"], case .uuid(let bits)? = snapshot["token"]
    else { fatalError("not a person") }
    self.name = name
    self.age = Int(age)
    self.score = score
    self.active = active
    self.born = Date(timeIntervalSinceReferenceDate: born)
    self.token = withUnsafeBytes(of: bits.bigEndian) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
  }

  init(index: Int) {
    name = "p\(index)"
    age = index % 90
    score = Double(index) / 7
    active = index.isMultiple(of: 2)
    born = Date(timeIntervalSinceReferenceDate: Double(index) * 86_400)
    token = UUID()
  }
}

let schema = try! ObjectSchema([
  EntityDescription(
    "Person",
    attributes: [
      .init("name", .string), .init("age", .integer), .init("score", .double), .init("active", .boolean),
      .init("born", .date), .init("token", .uuid),
    ])
])
let context = ObjectContext(schema: schema, name: "records", notificationCenter: nil)
let snapshots = try! context.performAndWait { context in
  try (0..<10_000).map { try context.insert(Person(index: $0)).snapshot() }
}

// The two loops are functions of their own, outside the main actor's
// top-level code, so that neither pays for an isolation check per record.

/// Every snapshot decoded as a record.
@inline(never)
nonisolated func decodeAll(_ snapshots: [ObjectSnapshot]) -> [Person] {
  snapshots.map { try! $0.decode(Person.self) }
}

/// Every snapshot read by the hand-written initializer.
@inline(never)
nonisolated func readAll(_ snapshots: [ObjectSnapshot]) -> [Person] {
  snapshots.map { Person(reading: $0) }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var decoded: [Double] = []
var handWritten: [Double] = []
for _ in 0..<41 {
  var start = now()
  let records = decodeAll(snapshots)
  decoded.append(Double(now() - start) / Double(snapshots.count))
  start = now()
  let manual = readAll(snapshots)
  handWritten.append(Double(now() - start) / Double(snapshots.count))
  precondition(records == manual, "the two ways read different records")
}
let ratio = median(decoded) / median(handWritten)
print("records: \(snapshots.count), rounds: \(decoded.count)")
print(String(format: "decoder       %.0f ns a record", median(decoded)))
print(String(format: "hand-written  %.0f ns a record", median(handWritten)))
print(String(format: "ratio         %.2fx", ratio))
