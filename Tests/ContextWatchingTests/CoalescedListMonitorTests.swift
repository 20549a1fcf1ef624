// Coalesced list monitors against a fresh fetch: each delivery turns the
// list last delivered into the current one, whatever number of saves it
// merges. Seeded; CONTEXTWATCHER_SEED replays.

import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@Suite("List monitor: coalesced deliveries against a fresh fetch", .serialized)
struct CoalescedListMonitorTests {
  @Test(arguments: ListConfiguration.all.indices)
  func aWindowsBatchTurnsTheDeliveredListIntoTheCurrentOne(_ index: Int) throws {
    let (configuration, seed, context, populated) = try ListConfiguration.seededRun(index, seed: 0xC0A1)
    var random = populated
    let monitor = try ListMonitor(
      context: context, request: configuration.request, scheduler: .immediate,
      delivery: .coalesced(every: .seconds(3600)))
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    var previous = ListPicture(monitor.content)
    var writes = RandomWrites(random: random)
    var (deliveries, saves) = (0, 0)
    for save in 0..<300 {
      try writes.save(context)
      saves += 1
      // Within the hour, only the first save that changes the list goes
      // at once (it may come after save 0: a save can leave the list as
      // it was); a flush delivers what the saves since left pending.
      guard save == 0 || random.chance(0.25) else { continue }
      monitor.flush()
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      let updates = recorder.take()
      #expect(updates.count <= (deliveries == 0 ? 2 : 1), "save \(save), seed \(seed), \(configuration)")
      var consistent = true
      for update in updates {
        deliveries += 1
        let now = ListPicture(update.content)
        let applied = previous.applying(update.changes)
        #expect(applied == now, "save \(save), seed \(seed), \(configuration): \(update.changes)")
        ListMonitorRandomTests.checkShape(update.changes)
        consistent = consistent && applied == now
        previous = now
      }
      #expect(previous == expected, "save \(save), seed \(seed), \(configuration)")
      if !consistent || previous != expected { break }
    }
    #expect(deliveries < saves / 2, "seed \(seed): saves were merged")
    withExtendedLifetime(token) {}
  }

  @Test func whenReadyMergesWhileTheObserverIsBusyAndARefetchSupersedesWhatIsPending() throws {
    var (configuration, seed, context, random) = try ListConfiguration.seededRun(1, seed: 0xB5E)
    let monitor = try ListMonitor(
      context: context, request: configuration.request, scheduler: .queue(DispatchQueue(label: "busy observer")),
      delivery: .whenReady)
    let recorder = ListRecorder()
    let gate = DispatchSemaphore(value: 0)
    let token = monitor.observe { update in
      recorder.append(update)
      gate.wait()
    }
    var previous = ListPicture(monitor.content)
    var writes = RandomWrites(random: random)
    var (saves, deliveries) = (0, 0)
    for round in 0..<40 {
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        try writes.save(context)
        saves += 1
      }
      if random.chance(0.2) {
        configuration = ListConfiguration.all.randomElement(using: &random)!
        try monitor.setRequest(configuration.request)
      }
      // Room for the delivery the observer holds, the one behind it and
      // the refetch's.
      for _ in 0..<3 { gate.signal() }
      monitor.flush()
      let expected = try context.performAndWait { try configuration.expected(in: $0) }
      for update in recorder.take() {
        deliveries += 1
        let now = ListPicture(update.content)
        #expect(previous.applying(update.changes) == now, "round \(round), seed \(seed), \(configuration)")
        ListMonitorRandomTests.checkShape(update.changes)
        previous = now
      }
      #expect(previous == expected, "round \(round), seed \(seed), \(configuration)")
    }
    #expect(deliveries < saves, "seed \(seed): saves were merged while the observer was busy")
    for _ in 0..<100 { gate.signal() }
    withExtendedLifetime(token) {}
  }

  @Test func refusedPoliciesSayWhy() throws {
    let context = WatcherFixtures.context()
    let request = ListRequest("Person", sortedBy: [.ascending("name")])
    let both = try #require(throws: MonitorError.self) {
      try ListMonitor(context: context, request: request, scheduler: .immediate, follows: .all, delivery: .whenReady)
    }
    #expect(both.code == .invalidRequest)
    #expect(
      both.message
        == "watch 'Person TRUEPREDICATE' on Person: a coalesced list monitor follows saves or pending changes, not both: a save reports again what its pending changes did"
    )
    let negative = try #require(throws: MonitorError.self) {
      try ListMonitor(
        context: context, request: request, scheduler: .immediate, delivery: .coalesced(every: .seconds(-1)))
    }
    #expect(
      negative.message
        == "watch 'Person TRUEPREDICATE' on Person: a list monitor coalesced every -1.0 seconds: the interval must be positive (or use .whenReady)"
    )
  }
}

@Suite("List monitor: on a clock of its own")
struct ListMonitorClockTests {
  @Test func aTimedListFollowsAManualClock() throws {
    let context = ObjectContext(schema: TimedFixtures.schema, name: "tasks", notificationCenter: nil)
    let clock = ManualWatchClock(now: 0)
    let request = try ListRequest("Task", where: "dueDate < now()", sortedBy: [.ascending("name")])
    let monitor = try ListMonitor(
      context: context, request: request, scheduler: .immediate, delivery: .everySave, clock: clock)
    try context.performAndWait { context in
      for (name, due) in [("b", 10.0), ("a", 20.0), ("c", 30.0)] {
        try context.insert("Task", values: ["name": .string(name), "dueDate": .date(secondsSinceReferenceDate: due)])
      }
      try context.save()
    }
    #expect(monitor.count == 0)
    func names() -> [String] {
      monitor.content.objects(inSection: 0).map { if case .string(let name)? = $0["name"] { name } else { "?" } }
    }
    clock.advance(to: 15)
    context.performAndWait { _ in }
    monitor.flush()
    #expect(names() == ["b"])
    clock.advance(to: 31)
    context.performAndWait { _ in }
    monitor.flush()
    #expect(names() == ["a", "b", "c"])
    #expect(clock.pendingAlarms == 0)
  }

  @Test func aCoalescedListDeliversAtTheEndOfItsInterval() throws {
    let context = WatcherFixtures.context()
    let clock = ManualWatchClock(now: 0)
    let monitor = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate,
      delivery: .coalesced(every: .seconds(1)), clock: clock)
    let recorder = ListRecorder()
    let token = monitor.observe { update in recorder.append(update) }
    for name in ["c", "a", "b"] {
      try context.performAndWait { context in
        try context.insert("Person", values: ["name": .string(name)])
        try context.save()
      }
    }
    // The first save at once; the two others at the end of the interval,
    // as one batch update.
    #expect(recorder.take().map { $0.changes.inserted.map(\.indexPath.item) } == [[0]])
    #expect(monitor.count == 1)
    clock.advance(to: 1)
    context.run { _ in }
    let window = recorder.take()
    #expect(window.map { $0.changes.inserted.map(\.indexPath.item) } == [[0, 1]])
    #expect(monitor.count == 3)
    withExtendedLifetime(token) {}
  }
}
