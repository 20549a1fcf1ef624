import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Tasks with due dates, for watches that compare with `now()`.
enum TimedFixtures {
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Project", attributes: [.init("deadline", .date, isOptional: true)],
          relationships: [.toMany("tasks", destination: "Task", inverse: "project")]),
        EntityDescription(
          "Task",
          attributes: [
            .init("name", .string), .init("dueDate", .date, isOptional: true),
            .init("done", .boolean, defaultValue: false), .init("snoozedUntil", .date, isOptional: true),
            .init("priority", .integer, isOptional: true),
          ],
          relationships: [.toOne("project", destination: "Project", inverse: "tasks")]),
      ])
    } catch {
      fatalError("the timed fixture schema is invalid: \(error)")
    }
  }()
}

/// A watcher with a manual clock on a context of tasks.
struct TimedRig {
  let context = ObjectContext(schema: TimedFixtures.schema, name: "tasks", notificationCenter: nil)
  let recorder = Recorder()
  let clock: ManualWatchClock
  let watcher: ContextWatcher

  init(now: Double = 0, ignoredAuthors: Set<String> = []) {
    clock = ManualWatchClock(now: now)
    watcher = ContextWatcher(
      context: context, target: .delegate(recorder, on: .queue(DispatchQueue(label: "deliveries"))),
      options: WatcherOptions(ignoredAuthors: ignoredAuthors, clock: clock))
  }

  /// Waits for the work queued on the context (crossings included) and for
  /// the deliveries.
  func settle() {
    context.run { _ in }
    watcher.flush()
  }

  /// Runs `work` and saves on the context's queue (as `author`), then
  /// settles.
  @discardableResult
  func save<T>(author: String? = nil, _ work: (ObjectContext) throws -> T) throws -> T {
    let result = try context.run { context in
      let result = try work(context)
      try context.save(author: author)
      return result
    }
    settle()
    return result
  }

  /// Advances the clock to `time`, then settles; returns the deliveries made.
  func advance(to time: Double) -> [ContextChanges] {
    let before = recorder.all.count
    clock.advance(to: time)
    settle()
    return Array(recorder.all.dropFirst(before))
  }
}

func date(_ seconds: Double) -> FilterValue { .date(secondsSinceReferenceDate: seconds) }

@Suite("Watcher: time-relative predicates")
struct TimePredicateTests {
  @Test func anOverdueTaskEntersAtItsDueDateWithoutASave() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate < now() AND done == NO")
    try rig.save { try $0.insert("Task", values: ["name": "Pay rent", "dueDate": date(60)]) }
    #expect(rig.recorder.all.isEmpty)
    #expect(rig.clock.pendingAlarms == 1)
    // `<`: not overdue at the due date itself, only after it.
    #expect(rig.advance(to: 59).isEmpty)
    #expect(rig.advance(to: 60).isEmpty)
    let passed = rig.advance(to: 60.5)
    #expect(passed.count == 1)
    #expect(passed.first?.cause == .timePassed)
    #expect(passed.first?.names(.entered) == ["Pay rent"])
    #expect(passed.first?.entered.first?.changedKeys == [])
    #expect(passed.first.map { $0.objectIDs(for: token.id, .entered) }?.count == 1)
    // Nothing left to cross: no alarm.
    #expect(rig.clock.pendingAlarms == 0)
    withExtendedLifetime(token) {}
  }

  @Test func explainJudgesAtTheWatchersClock() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let task = try rig.save { try $0.insert("Task", values: ["name": "Pay rent", "dueDate": date(60)]) }
    let before = rig.context.run { _ in rig.watcher.explain(task, for: token.id)?.matches }
    #expect(before == false)
    _ = rig.advance(to: 61)
    let after = rig.context.run { _ in rig.watcher.explain(task, for: token.id)?.matches }
    #expect(after == true)
    withExtendedLifetime(token) {}
  }

  @Test func anInclusiveComparisonEntersAtTheThresholdItself() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate <= now()")
    try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    #expect(rig.advance(to: 60).first?.names(.entered) == ["A"])
    withExtendedLifetime(token) {}
  }

  @Test func aRecentSessionExitsWhenItsWindowCloses() throws {
    let rig = TimedRig(now: 1000)
    let token = try rig.watcher.watch("Task", where: "snoozedUntil > now() - 300")
    let object = try rig.save { try $0.insert("Task", values: ["name": "S", "snoozedUntil": date(1000)]) }
    #expect(rig.recorder.last?.names(.inserted) == ["S"])
    #expect(rig.advance(to: 1200).isEmpty)
    // A save moves the threshold: the exit waits for the new one.
    try rig.save { try $0.setValue(date(1100), forKey: "snoozedUntil", of: object) }
    #expect(rig.recorder.last?.cause == .save)
    #expect(rig.advance(to: 1300).isEmpty)
    let passed = rig.advance(to: 1400)
    #expect(passed.map(\.cause) == [.timePassed])
    #expect(passed.first?.names(.exited) == ["S"])
    withExtendedLifetime(token) {}
  }

  @Test func nowMayComeFirstWithAnOffsetOnEitherSide() throws {
    let rig = TimedRig()
    let early = try rig.watcher.watch("Task", where: "now() - 60 > dueDate")
    let late = try rig.watcher.watch("Task", where: "30 + now() >= dueDate")
    try rig.save { try $0.insert("Task", values: ["name": "T", "dueDate": date(100)]) }
    #expect(rig.advance(to: 70).first.map { $0.objectIDs(for: late.id, .entered) }?.count == 1)
    #expect(rig.advance(to: 160).isEmpty)
    let passed = rig.advance(to: 161)
    #expect(passed.first.map { $0.objectIDs(for: early.id, .entered) }?.count == 1)
    withExtendedLifetime((early, late)) {}
  }

  @Test func notAndOrAreReevaluatedWhole() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "NOT (dueDate > now()) OR priority > 5")
    try rig.save { context in
      try context.insert("Task", values: ["name": "Low", "dueDate": date(10), "priority": 1])
      try context.insert("Task", values: ["name": "High", "dueDate": date(10), "priority": 9])
    }
    #expect(rig.recorder.last?.names(.inserted) == ["High"])
    let passed = rig.advance(to: 10)
    #expect(passed.count == 1)
    #expect(passed.first?.names(.entered) == ["Low"])
    withExtendedLifetime(token) {}
  }

  @Test func objectsThatExistedBeforeTheWatchCrossToo() throws {
    let rig = TimedRig()
    try rig.save { try $0.insert("Task", values: ["name": "Old", "dueDate": date(5)]) }
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    rig.settle()
    #expect(rig.clock.pendingAlarms == 1)
    #expect(rig.advance(to: 6).first?.names(.entered) == ["Old"])
    withExtendedLifetime(token) {}
  }

  @Test func deletingOrMovingTheLastCrossingDisarmsTheAlarm() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let object = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(50)]) }
    #expect(rig.clock.pendingAlarms == 1)
    try rig.save { try $0.setValue(.null, forKey: "dueDate", of: object) }
    #expect(rig.clock.pendingAlarms == 0)
    try rig.save { try $0.setValue(date(70), forKey: "dueDate", of: object) }
    #expect(rig.clock.pendingAlarms == 1)
    try rig.save { try $0.delete(object) }
    #expect(rig.clock.pendingAlarms == 0)
    #expect(rig.advance(to: 100).isEmpty)
    withExtendedLifetime(token) {}
  }

  @Test func aCrossingDueBeforeASaveIsDeliveredBeforeIt() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let object = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(50)]) }
    // The save is judged at 60: the task is overdue, and the crossing that
    // made it so is delivered first.
    try rig.context.run { context in
      rig.clock.advance(to: 60)
      try context.setValue("A2", forKey: "name", of: object)
      try context.save()
    }
    rig.settle()
    #expect(rig.recorder.all.map(\.cause) == [.timePassed, .save])
    #expect(rig.recorder.all.first?.names(.entered) == ["A"])
    #expect(rig.recorder.all.last?.names(.updated) == ["A2"])
    withExtendedLifetime(token) {}
  }

  @Test func aSaveByAnIgnoredAuthorMovesTheThresholdUndelivered() throws {
    let rig = TimedRig(ignoredAuthors: ["sync"])
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    try rig.save(author: "sync") { try $0.setValue(date(1000), forKey: "dueDate", of: task) }
    #expect(rig.recorder.all.isEmpty)
    // Judged on the values the ignored save saved: due at 1000, not 60.
    #expect(rig.advance(to: 61).isEmpty)
    let passed = rig.advance(to: 1001)
    #expect(passed.map(\.cause) == [.timePassed])
    #expect(passed.first?.names(.entered) == ["A"])
    #expect(passed.first?.entered.first?.after["dueDate"] == date(1000))
    withExtendedLifetime(token) {}
  }

  @Test func aDeleteByAnIgnoredAuthorEndsTheObjectsCrossings() throws {
    let rig = TimedRig(ignoredAuthors: ["sync"])
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    #expect(rig.clock.pendingAlarms == 1)
    try rig.save(author: "sync") { try $0.delete(task) }
    #expect(rig.clock.pendingAlarms == 0)
    #expect(rig.advance(to: 61).isEmpty)
    #expect(rig.recorder.all.isEmpty)
    withExtendedLifetime(token) {}
  }

  @Test func aCrossingDueBeforeAnIgnoredSaveIsDeliveredOnItsOldValues() throws {
    let rig = TimedRig(ignoredAuthors: ["sync"])
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    // The alarm's judgement waits behind the ignored save on the context's
    // queue: the save delivers the crossing due before it first.
    try rig.context.run { context in
      rig.clock.advance(to: 61)
      try context.setValue(date(1000), forKey: "dueDate", of: task)
      try context.save(author: "sync")
    }
    rig.settle()
    #expect(rig.recorder.all.map(\.cause) == [.timePassed])
    #expect(rig.recorder.all.first?.entered.first?.after["dueDate"] == date(60))
    withExtendedLifetime(token) {}
  }

  @Test func aWatchOfSavesCrossesOnSavedValuesWhilePendingChangesAreFollowed() throws {
    let rig = TimedRig()
    let overdue = try rig.watcher.watch("Task", where: "dueDate < now()")
    // Another watch follows pending changes, so the watcher sees them.
    let pending = try rig.watcher.watch("Task", options: WatchOptions(follows: .pending))
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    rig.context.run { context in _ = try? context.setValue(date(1000), forKey: "dueDate", of: task) }
    rig.settle()
    let passed = rig.advance(to: 61).filter { $0.cause == .timePassed }
    #expect(passed.map { $0.objectIDs(for: overdue.id, .entered) } == [[task.objectID]])
    #expect(passed.first?.entered.first?.after["dueDate"] == date(60))
    withExtendedLifetime((overdue, pending)) {}
  }

  @Test func aWatchOfSavesStartsOnSavedValues() throws {
    let rig = TimedRig()
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    let unsaved = try rig.context.run { context in
      try context.setValue(date(1000), forKey: "dueDate", of: task)
      return try context.insert("Task", values: ["name": "B", "dueDate": date(30)])
    }
    // Added while the changes are pending: it starts on the saved task A,
    // due at 60, and knows nothing of B until B is saved.
    let token = try rig.watcher.watch("Task", where: "dueDate < now()")
    rig.settle()
    let passed = rig.advance(to: 61)
    #expect(passed.map(\.cause) == [.timePassed])
    #expect(passed.first?.names(.entered) == ["A"])
    #expect(passed.first?.entered.first?.after["dueDate"] == date(60))
    try rig.save { _ in }
    #expect(rig.recorder.last?.names(.inserted) == ["B"])
    #expect(rig.recorder.last?.names(.exited) == ["A"])
    withExtendedLifetime((token, unsaved)) {}
  }

  @Test func aWatchOfPendingChangesCrossesOnThem() throws {
    let rig = TimedRig()
    let token = try rig.watcher.watch("Task", where: "dueDate < now()", options: WatchOptions(follows: .pending))
    let task = try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(60)]) }
    rig.context.run { context in _ = try? context.setValue(date(1000), forKey: "dueDate", of: task) }
    rig.settle()
    #expect(rig.advance(to: 61).isEmpty)
    let passed = rig.advance(to: 1001)
    #expect(passed.first?.names(.entered) == ["A"])
    #expect(passed.first?.entered.first?.after["dueDate"] == date(1000))
    withExtendedLifetime(token) {}
  }

  @Test func aWatchHandlerGetsTheCrossingsOfItsWatch() throws {
    let rig = TimedRig()
    let seen = LockedState<[(ChangeCause, [ObjectUpdate])]>([])
    let token = try rig.watcher.watch(
      "Task", where: "dueDate < now()",
      handler: .changes { changes in seen.withLock { $0.append((changes.cause, changes.entered)) } })
    try rig.save { try $0.insert("Task", values: ["name": "A", "dueDate": date(50)]) }
    _ = rig.advance(to: 51)
    #expect(seen.withLock { $0.map(\.0) } == [.timePassed])
    #expect(seen.withLock { $0.first?.1.count } == 1)
    withExtendedLifetime(token) {}
  }

  // MARK: Refusals

  @Test(arguments: [
    (
      "now() - dueDate > 300", 0, 15,
      "now() can be compared only as now(), now() + seconds or now() - seconds, found now() - dueDate"
    ),
    ("dueDate + 60 < now()", 0, 12, "now() can be compared only with a date attribute of Task, found dueDate + 60"),
    (
      "project.deadline < now()", 0, 16,
      "now() can be compared only with a date attribute of Task, found project.deadline"
    ),
    ("priority < now()", 0, 8, "now() can be compared only with a date attribute of Task, found priority"),
    (
      "done == NO AND dueDate BETWEEN {now(), now() + 60}", 31, 50,
      "now() can be compared only with ==, !=, <, <=, > or >=, not with BETWEEN"
    ),
    (
      "dueDate < now() * 2", 10, 19,
      "now() can be compared only as now(), now() + seconds or now() - seconds, found now() * 2"
    ),
    ("now() == now()", 9, 14, "now() on both sides of a comparison"),
  ])
  func aFormWithoutAThresholdIsRefusedWithItsPosition(
    format: String, start: Int, end: Int, message: String
  ) throws {
    let rig = TimedRig()
    let error = try #require(throws: WatchError.self) { try rig.watcher.watch("Task", where: format) }
    #expect(error.code == .invalidPredicate)
    #expect(
      error.message
        == message + "; a watch re-evaluates objects only when time crosses a date attribute's threshold")
    #expect(error.location?.utf8Offset == start)
    #expect(error.detailedDescription().contains(String(repeating: "^", count: end - start)))
    #expect(rig.watcher.watchCount == 0)
  }

  @Test func theRefusalRendersTheSpot() throws {
    let rig = TimedRig()
    let error = try #require(throws: WatchError.self) {
      try rig.watcher.watch("Task", where: "done == NO AND now() - dueDate > 300")
    }
    #expect(
      error.detailedDescription() == """
        watch 'Task done == NO AND now() - dueDate > 300' on Task:
        error: now() can be compared only as now(), now() + seconds or now() - seconds, found now() - dueDate; \
        a watch re-evaluates objects only when time crosses a date attribute's threshold
         --> predicate:1:16
          |
        1 | done == NO AND now() - dueDate > 300
          |                ^^^^^^^^^^^^^^^
        """)
  }
}

@Suite("List monitors: time-relative predicates")
struct TimeListMonitorTests {
  @Test(.timeLimit(.minutes(1))) func aListGainsATaskWhenItFallsDueOnTheSystemClock() throws {
    let context = ObjectContext(schema: TimedFixtures.schema, name: "list", notificationCenter: nil)
    let start = SystemWatchClock.shared.now
    try context.run { context in
      try context.insert("Task", values: ["name": "late", "dueDate": date(start - 10)])
      try context.insert("Task", values: ["name": "soon", "dueDate": date(start + 0.3)])
      try context.insert("Task", values: ["name": "later", "dueDate": date(start + 3600)])
      try context.save()
    }
    let request = try ListRequest("Task", where: "dueDate < now()", sortedBy: [.init("dueDate")])
    let monitor = try ListMonitor(context: context, request: request, scheduler: .immediate)
    // The alarm rings on a global queue and hops onto the context's, where
    // the monitor applies the crossing: the test reads the list there too,
    // after it, rather than racing it from another thread.
    func listed() -> Int { context.run { _ in monitor.count } }
    #expect(listed() == 1)
    var waited = 0.0
    while listed() < 2 && waited < 10 {
      usleep(50_000)
      waited += 0.05
    }
    #expect(listed() == 2)
    #expect(SystemWatchClock.shared.now >= start + 0.3)
    #expect(monitor.object(at: 1)["name"] == .string("soon"))
  }
}

extension TimeListMonitorTests {
  /// A context with one task, due at 60, saved.
  static func contextWithATaskDueAt60() throws -> ObjectContext {
    let context = ObjectContext(schema: TimedFixtures.schema, name: "list", notificationCenter: nil)
    try context.run { context in
      try context.insert("Task", values: ["name": "rent", "dueDate": date(60)])
      try context.save()
    }
    return context
  }

  /// The names listed, read on the context's queue after the work queued
  /// there (crossings included).
  static func names(_ monitor: ListMonitor, _ context: ObjectContext) -> [FilterValue?] {
    context.run { _ in (0..<monitor.count).map { monitor.object(at: $0)["name"] } }
  }

  @Test func aListFetchesAtItsClocksTimeAndGainsTheTaskWhenItFallsDue() throws {
    let context = try Self.contextWithATaskDueAt60()
    let clock = ManualWatchClock(now: 0)
    let request = try ListRequest("Task", where: "dueDate < now()", sortedBy: [.init("dueDate")])
    let monitor = try ListMonitor(
      context: context, request: request, scheduler: .immediate, delivery: .everySave, clock: clock)
    #expect(Self.names(monitor, context) == [])
    clock.advance(to: 60)
    #expect(Self.names(monitor, context) == [])
    clock.advance(to: 61)
    #expect(Self.names(monitor, context) == [.string("rent")])
  }

  @Test func aRefetchReadsNowOnTheListsClock() throws {
    let context = try Self.contextWithATaskDueAt60()
    let clock = ManualWatchClock(now: 0)
    let monitor = try ListMonitor(
      context: context, request: ListRequest("Task", where: "dueDate < now()", sortedBy: [.init("dueDate")]),
      scheduler: .immediate, delivery: .everySave, clock: clock)
    try monitor.setRequest(ListRequest("Task", where: "dueDate > now()", sortedBy: [.init("dueDate")]))
    #expect(Self.names(monitor, context) == [.string("rent")])
    clock.advance(to: 61)
    #expect(Self.names(monitor, context) == [])
  }
}

@Suite("Docs: time-relative predicates")
struct TimeDocExampleTests {
  @Test func theOverdueExampleDeliversTheTask() throws {
    let taskContext = ObjectContext(schema: TimedFixtures.schema, name: "doc", notificationCenter: nil)
    let entered = LockedState<[ObjectID]>([])
    let clock = ManualWatchClock(now: 0)
    let watcher = ContextWatcher(
      context: taskContext,
      target: .handler(on: .queue(DispatchQueue(label: "doc"))) { changes in
        guard changes.cause == .timePassed else { return }
        entered.withLock { $0 += changes.entered.map(\.after.objectID) }
      },
      options: WatcherOptions(clock: clock))
    let overdue = try watcher.watch("Task", where: "dueDate < now() AND done == NO")
    taskContext.performAndWait { context in
      _ = try? context.insert(
        "Task", values: ["name": "Renew the certificate", "dueDate": .date(secondsSinceReferenceDate: 60)])
      _ = try? context.save()
    }
    clock.advance(to: 61)
    taskContext.run { _ in }
    watcher.flush()
    #expect(entered.withLock { $0.count } == 1)
    withExtendedLifetime(overdue) {}
  }
}
