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

    /// Creates options: 4 commits a second over 40 tasks of 3 owners, one
    /// object per commit, without end.
    public init(
      rate: Double = 4, objects: Int = 40, owners: Int = 3, objectsPerCommit: Int = 1, seed: UInt64? = nil,
      commits: Int? = nil
    ) {
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

  private func write() async {
    var generator = SplitMix(seed: options.seed.map { $0 &+ 1 } ?? UInt64.random(in: 0...UInt64.max))
    let interval = Duration.seconds(1 / max(options.rate, 0.001))
    let clock = ContinuousClock()
    var next = clock.now
    var written = options.objects
    var commits = 0
    while !Task.isCancelled, commits < options.commits ?? .max {
      next = next.advanced(by: interval)
      do {
        try step(&generator, written: &written)
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
  private func step(_ generator: inout SplitMix, written: inout Int) throws {
    let options = options
    var local = generator
    var count = written
    defer {
      generator = local
      written = count
    }
    try context.performAndWait { context in
      let tasks = try context.fetch(ObjectFetchRequest(entity: "Task"))
      var touched: Set<ObjectID> = []
      for _ in 0..<options.objectsPerCommit {
        let roll = local.next() % 100
        if tasks.isEmpty || (roll < 10 && tasks.count < options.objects * 3 / 2) {
          _ = try context.insert("Task", values: Self.values(index: count, options: options, generator: &local))
          count += 1
          continue
        }
        let task = tasks[Int(local.next() % UInt64(tasks.count))]
        guard touched.insert(task.objectID).inserted else { continue }
        if roll < 18 && tasks.count > options.objects / 2 {
          try context.delete(task)
          continue
        }
        var values: [String: FilterValue] = [
          "updatedAt": .date(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
        ]
        switch roll {
        case 18..<60: values["priority"] = .int(Int64(local.next() % 10))
        case 60..<85: values["status"] = .string(DemoData.statuses[Int(local.next() % 3)])
        case 85..<95:
          values["owner"] = .string(DemoData.owners(options.owners)[Int(local.next() % UInt64(options.owners))])
        default: values["title"] = .string(Self.title(local.next()))
        }
        try context.setValues(values, of: task)
      }
      _ = try context.save(author: "demo")
    }
  }

  private static func values(index: Int, options: Options, generator: inout SplitMix) -> [String: FilterValue] {
    [
      "title": .string(title(generator.next())),
      "owner": .string(DemoData.owners(options.owners)[Int(generator.next() % UInt64(max(1, options.owners)))]),
      "priority": .int(Int64(generator.next() % 10)),
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
