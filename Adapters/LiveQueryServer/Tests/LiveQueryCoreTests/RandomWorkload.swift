// Four small types: the workload's generator, tasks, lists and readers, which make sense only together.

import ContextWatching
import LiveQueryCore
import LiveQueryTestSupport
import ObjectGraph
import PredicateDSL
import WatchFormats

/// A seeded SplitMix64, so a failing workload replays.
struct SeededRandom: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A task as the test's model holds it.
struct ModelTask {
  var title: String
  var owner: String
  var priority: Int
  var status: String
  var secret: String?
}

/// A subscription the workload makes, with its meaning in plain Swift.
struct ModelList {
  var request: SubscribeRequest
  /// The client predicate, evaluated by the model.
  var matches: (ModelTask) -> Bool

  static func random(id: String, using random: inout SeededRandom) -> ModelList {
    let bound = Int.random(in: 0...6, using: &random)
    let status = ["open", "done"].randomElement(using: &random)!
    let predicates: [(String?, [FilterValue], (ModelTask) -> Bool)] = [
      (nil, [], { _ in true }),
      ("priority > %@", [.int(Int64(bound))], { $0.priority > bound }),
      (
        "status == %@ AND priority <= %@", [.string(status), .int(Int64(bound))],
        {
          $0.status == status && $0.priority <= bound
        }
      ),
    ]
    let (text, arguments, matches) = predicates.randomElement(using: &random)!
    let orders: [([ObjectFetchRequest.SortKey], String?)] = [
      ([.ascending("priority")], nil), ([.ascending("status"), .descending("priority")], "status"),
      ([.ascending("title")], nil), ([.descending("status"), .ascending("title")], "status"),
    ]
    let (sortKeys, section) = orders.randomElement(using: &random)!
    let limit = [nil, nil, 1, 3, 5].randomElement(using: &random)!
    return ModelList(
      request: SubscribeRequest(
        id: id, entity: "Task", predicate: text, arguments: arguments, sortKeys: sortKeys, sectionKey: section,
        limit: limit),
      matches: matches)
  }

  /// The frame that subscribes.
  var frame: String { ClientMessage.subscribe(request).text }

  /// The frame that turns `self` into `next` (same id).
  func updateFrame(to next: ModelList) -> String {
    ClientMessage.update(
      UpdateRequest(
        id: request.id, predicate: next.request.predicate ?? "TRUEPREDICATE", arguments: next.request.arguments,
        sortKeys: next.request.sortKeys, sectionKey: .some(next.request.sectionKey), limit: .some(next.request.limit))
    ).text
  }

  /// What the list must hold for a reader: fetched, filtered, sorted,
  /// cut and grouped here from the model.
  func expected(_ tasks: [ObjectID: ModelTask], reader: ModelReader) -> [ClientMirror.Section] {
    func value(_ task: ModelTask, _ key: String) -> FilterValue {
      switch key {
      case "priority": .int(Int64(task.priority))
      case "status": .string(task.status)
      default: .string(task.title)
      }
    }
    func less(_ a: FilterValue, _ b: FilterValue) -> Bool {
      switch (a, b) {
      case (.int(let x), .int(let y)): x < y
      case (.string(let x), .string(let y)): x.utf8.lexicographicallyPrecedes(y.utf8)
      default: false
      }
    }
    let listed = tasks.filter { reader.mayRead($0.value) && matches($0.value) }.sorted { a, b in
      for key in request.sortKeys {
        let (x, y) = (value(a.value, key.key), value(b.value, key.key))
        if x != y { return key.ascending ? less(x, y) : less(y, x) }
      }
      return a.key < b.key
    }.prefix(request.limit ?? Int.max)
    let objects = listed.map { LiveObject(ref: LiveFixtures.refs.ref(for: $0.key), values: reader.values($0.value)) }
    guard request.sectionKey != nil else { return [ClientMirror.Section(name: nil, objects: objects)] }
    var sections: [ClientMirror.Section] = []
    for (task, object) in zip(listed, objects) {
      if sections.last?.name == task.value.status {
        sections[sections.count - 1].objects.append(object)
      } else {
        sections.append(ClientMirror.Section(name: task.value.status, objects: [object]))
      }
    }
    return sections
  }
}

/// A session's claims, as the model reads them.
struct ModelReader {
  var sub: String
  var isAdmin: Bool

  var readableKeys: [String] {
    isAdmin ? ["title", "owner", "priority", "status", "secret"] : ["title", "owner", "priority", "status"]
  }

  func mayRead(_ task: ModelTask) -> Bool { isAdmin || task.owner == sub }

  func values(_ task: ModelTask) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("title", .string(task.title)), ("owner", .string(task.owner)), ("priority", .int(Int64(task.priority))),
      ("status", .string(task.status)),
    ]
    if isAdmin { members.append(("secret", task.secret.map(JSONValue.string) ?? .null)) }
    return .object(members)
  }
}
