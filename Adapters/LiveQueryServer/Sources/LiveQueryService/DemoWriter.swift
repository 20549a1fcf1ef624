import Foundation
public import ObjectGraph
import PredicateDSL
public import ServiceLifecycle

/// Changes the demo's tasks a few times a second, so that a page shows
/// something live: inserts, priority changes (moves), status changes
/// (moves between sections), owner changes (a task leaves one user's
/// lists and enters another's) and deletes, keeping about
/// ``DemoWriter/Options/objects`` tasks.
public struct DemoWriter: Service {
  /// What the writer writes.
  public struct Options: Sendable {
    /// Commits a second.
    public var rate: Double
    /// About how many tasks there are.
    public var objects: Int
    /// The owners tasks are spread over (see ``DemoData/owners(_:)``).
    public var owners: Int
    /// Objects changed per commit.
    public var objectsPerCommit: Int
    /// The random generator's seed; nil for a random one.
    public var seed: UInt64?
    /// How many commits to make before stopping; nil for no end.
    public var commits: Int?
    /// Priorities run from 0 to `priorities - 1`.
    public var priorities: Int

    /// Creates options: 4 commits a second over 40 tasks of 3 owners, one
    /// object per commit, priorities 0 to 9, without end.
    public init(
      rate: Double = 4, objects: Int = 40, owners: Int = 3, objectsPerCommit: Int = 1, seed: UInt64? = nil,
      commits: Int? = nil, priorities: Int = 10
    ) {
      self.priorities = max(1, priorities)
      self.commits = commits
      self.rate = rate
      self.objects = objects
      self.owners = owners
      self.objectsPerCommit = objectsPerCommit
      self.seed = seed
    }
  }

  private let context: ObjectContext
  private let options: Options

  /// Creates a writer of `context`, whose schema is ``DemoData/schema``,
  /// and inserts the first tasks in one save.
  ///
  /// - Throws: What the context throws when the first save fails.
  public init(context: ObjectContext, options: Options = Options()) throws {
    self.context = context
    self.options = options
    var generator = SplitMix(seed: options.seed ?? UInt64.random(in: 0...UInt64.max))
    try context.performAndWait { context in
      for index in 0..<options.objects {
        _ = try context.insert("Task", values: Self.values(index: index, options: options, generator: &generator))
      }
      _ = try context.save(author: "demo")
    }
  }

  /// Writes until the service group shuts down, or the commits are made;
  /// then waits for the shutdown (a service that returns would end the
  /// server).
  public func run() async throws {
    await cancelWhenGracefulShutdown { await write() }
    try? await gracefulShutdown()
  }

  /// What the writer keeps between commits: its random generator, the
  /// tasks (to pick one in O(1), with their positions for O(1) removal)
  /// and the owners' names.
  private struct Progress {
    var generator: SplitMix
    var tasks: [ObjectID] = []
    var positions: [ObjectID: Int] = [:]
    var inserted: Int
    let owners: [String]

    mutating func add(_ id: ObjectID) {
      positions[id] = tasks.count
      tasks.append(id)
    }

    mutating func remove(_ id: ObjectID) {
      guard let position = positions.removeValue(forKey: id) else { return }
      let last = tasks.removeLast()
      if last != id {
        tasks[position] = last
        positions[last] = position
      }
    }
  }

  private func write() async {
    var progress = Progress(
      generator: SplitMix(seed: options.seed.map { $0 &+ 1 } ?? UInt64.random(in: 0...UInt64.max)),
      inserted: options.objects, owners: DemoData.owners(options.owners))
    let existing = context.performAndWait { context in
      (try? context.fetch(ObjectFetchRequest(entity: "Task")).map(\.objectID)) ?? []
    }
    for id in existing { progress.add(id) }
    let interval = Duration.seconds(1 / max(options.rate, 0.001))
    let clock = ContinuousClock()
    var next = clock.now
    var commits = 0
    while !Task.isCancelled, commits < options.commits ?? .max {
      next = next.advanced(by: interval)
      do {
        try step(&progress)
        commits += 1
        try await Task.sleep(until: next, clock: clock)
      } catch {
        return
      }
      // Behind by more than a second: start again from now rather than
      // writing a burst.
      if clock.now - next > .seconds(1) { next = clock.now }
    }
  }

  /// One commit: `objectsPerCommit` random changes.
  private func step(_ progress: inout Progress) throws {
    let options = options
    var local = progress
    defer { progress = local }
    try context.performAndWait { context in
      var touched: Set<ObjectID> = []
      var deleted: [ObjectID] = []
      var inserted: [ManagedObject] = []
      for _ in 0..<options.objectsPerCommit {
        let roll = local.generator.next() % 100
        let count = local.tasks.count
        if count == 0 || (roll < 10 && count < options.objects * 3 / 2) {
          inserted.append(
            try context.insert(
              "Task", values: Self.values(index: local.inserted, options: options, generator: &local.generator)))
          local.inserted += 1
          continue
        }
        let id = local.tasks[Int(local.generator.next() % UInt64(count))]
        guard touched.insert(id).inserted, let task = context.object(with: id) else { continue }
        if roll < 18 && count > options.objects / 2 {
          try context.delete(task)
          deleted.append(id)
          continue
        }
        var values: [String: FilterValue] = [
          "updatedAt": .date(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
        ]
        switch roll {
        case 18..<60: values["priority"] = .int(Int64(local.generator.next() % UInt64(options.priorities)))
        case 60..<85: values["status"] = .string(DemoData.statuses[Int(local.generator.next() % 3)])
        case 85..<95: values["owner"] = .string(local.owners[Int(local.generator.next() % UInt64(options.owners))])
        default: values["title"] = .string(Self.title(local.generator.next()))
        }
        try context.setValues(values, of: task)
      }
      _ = try context.save(author: "demo")
      // Saved: the list follows (a failed save throws before this).
      for id in deleted { local.remove(id) }
      for object in inserted { local.add(object.objectID) }
    }
  }

  private static func values(index: Int, options: Options, generator: inout SplitMix) -> [String: FilterValue] {
    [
      "title": .string(title(generator.next())),
      "owner": .string("u\(generator.next() % UInt64(max(1, options.owners)) + 1)"),
      "priority": .int(Int64(generator.next() % UInt64(options.priorities))),
      "status": .string(DemoData.statuses[Int(generator.next() % 3)]),
      "secret": .string("code \(generator.next() % 10_000)"),
      "updatedAt": .date(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate),
    ]
  }

  private static let verbs = ["Write", "Review", "Ship", "Fix", "Plan", "Test", "Measure", "Document"]
  private static let things = ["the parser", "the release", "the page", "the monitor", "the replica", "the docs"]

  private static func title(_ random: UInt64) -> String {
    "\(verbs[Int(random % 8)]) \(things[Int((random / 8) % 6)])"
  }
}

/// SplitMix64 (Steele, Lea and Flood), for the demo's repeatable choices.
struct SplitMix: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
