import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// A watcher with a manual clock whose watches' handlers record what they
/// get, in order.
private struct CoalescingRig {
  let context = WatcherFixtures.context()
  let recorder = Recorder()
  let clock = ManualWatchClock(now: 0)
  let watcher: ContextWatcher

  init() {
    watcher = ContextWatcher(
      context: context, target: .delegate(recorder, on: .immediate), options: WatcherOptions(clock: clock))
  }

  /// Adds a watch of people older than 30 with `policy`, whose changes go
  /// to `received`.
  func watch(
    _ policy: DeliveryPolicy, into received: LockedState<[WatchChanges]>, on scheduler: DeliveryScheduler = .immediate,
    follows: ChangeKinds = .saves, after handled: @escaping @Sendable () -> Void = {}
  ) throws -> WatchToken {
    try watcher.watch(
      "Person", where: "age > 30", options: WatchOptions(follows: follows, delivery: policy),
      handler: .changes(on: scheduler) { changes in
        received.withLock { $0.append(changes) }
        handled()
      })
  }

  /// Saves `work`'s changes and returns the identifiers it gives back.
  @discardableResult
  func save<T>(_ work: (ObjectContext) throws -> T) throws -> T {
    try context.run { context in
      let result = try work(context)
      try context.save()
      return result
    }
  }

  /// Moves the clock and waits for what the alarms queued on the context.
  func advance(to time: Double) {
    clock.advance(to: time)
    context.run { _ in }
  }

  func insert(_ name: String, age: Int) throws -> ObjectID {
    try save { try $0.insert("Person", values: ["name": .string(name), "age": .int(Int64(age))]).objectID }
  }

  /// Inserts two people of `age` in one save.
  func insert(_ first: String, _ second: String, age: Int) throws -> (ObjectID, ObjectID) {
    try save { context in
      let values = { (name: String) -> [String: FilterValue] in ["name": .string(name), "age": .int(Int64(age))] }
      return (
        try context.insert("Person", values: values(first)).objectID,
        try context.insert("Person", values: values(second)).objectID
      )
    }
  }

  func set(_ id: ObjectID, _ values: [String: FilterValue]) throws {
    try save { try $0.setValues(values, of: $0.object(with: id)!) }
  }
}

extension ObjectSnapshot {
  fileprivate var age: Int? {
    if case .int(let age)? = self["age"] { Int(age) } else { nil }
  }
}

@Suite("Watcher: coalesced deliveries")
struct CoalescedWatchTests {
  @Test func aWindowDeliversTheNetChangeOfEachObject() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(10)), into: received)
    // The first change after a quiet interval goes at once.
    let (staying, leaving) = try rig.insert("Stays", "Leaves", age: 40)
    #expect(received.withLock { $0.map(\.inserted.count) } == [2])
    let younger = try rig.insert("Younger", age: 10)
    let first = try rig.save { context in
      try context.setValues(["age": 35], of: context.object(with: younger)!)
      try context.setValues(["age": 20], of: context.object(with: staying)!)
      return try context.insert("Person", values: ["name": "Born", "age": 40]).objectID
    }
    try rig.set(first, ["age": 50])
    let passing = try rig.insert("Passing", age: 60)
    try rig.save { try $0.delete($0.object(with: passing)!) }
    try rig.set(staying, ["age": 45])
    try rig.set(younger, ["name": "Grown"])
    try rig.set(leaving, ["age": 5])
    #expect(received.withLock { $0.count } == 1)
    #expect(rig.clock.pendingAlarms == 1)

    rig.advance(to: 10)
    let window = try #require(received.withLock { $0.count == 2 ? $0[1] : nil })
    #expect(window.watch == token.id)
    #expect(window.inserted.map(\.objectID) == [first])
    #expect(window.inserted.first?.age == 50)
    #expect(window.entered.map(\.objectID) == [younger])
    #expect(window.entered.first.map { [$0.before.age, $0.after.age] } == [10, 35])
    #expect(window.entered.first?.changedKeys == ["name", "age"])
    #expect(window.updated.map(\.objectID) == [staying])
    #expect(window.updated.first.map { [$0.before.age, $0.after.age] } == [40, 45])
    #expect(window.updated.first?.changedKeys == ["age"])
    #expect(window.exited.map(\.objectID) == [leaving])
    #expect(window.deleted.isEmpty)
    // The saves from the second change after the first delivery to the last.
    #expect(window.coalesced == 3...9)
    #expect(window.sequenceNumber == 9)
    #expect(window.cause == .save)
    #expect(rig.clock.pendingAlarms == 0)
  }

  @Test func theWatchersTargetGetsTheWindowAsOneDeliveryAndNotTheSaves() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let coalesced = try rig.watch(.coalesced(every: .seconds(5)), into: received)
    let every = try rig.watcher.watch("Person", where: "age > 50")
    _ = try rig.insert("Ann", age: 40)
    _ = try rig.insert("Bob", age: 60)
    _ = try rig.insert("Cy", age: 70)
    // Ann's save went at once, to the handler and to the target.
    var deliveries = rig.recorder.all
    #expect(deliveries.map { $0.names(.inserted) } == [["Ann"], ["Bob"], ["Cy"]])
    #expect(deliveries.map(\.coalesced) == [1...1, nil, nil])
    #expect(deliveries[1].attribution.map { $0.matches.map(\.watch) } == [[every.id]])
    rig.advance(to: 5)
    deliveries = rig.recorder.all
    #expect(deliveries.count == 4)
    #expect(deliveries[3].names(.inserted) == ["Bob", "Cy"])
    #expect(deliveries[3].coalesced == 2...3)
    #expect(deliveries[3].attribution.map { $0.matches.map(\.watch) } == [[coalesced.id], [coalesced.id]])
    #expect(deliveries[3].attribution.map { $0.matches.map(\.event) } == [[.inserted], [.inserted]])
    #expect(received.withLock { $0.map(\.inserted.count) } == [1, 2])
  }

  @Test func aQuietIntervalLetsTheNextChangeGoAtOnce() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .milliseconds(250)), into: received)
    _ = try rig.insert("A", age: 40)
    rig.advance(to: 0.1)
    _ = try rig.insert("B", age: 40)
    #expect(received.withLock { $0.count } == 1)
    rig.advance(to: 0.25)
    #expect(received.withLock { $0.count } == 2)
    rig.advance(to: 1)
    #expect(rig.clock.pendingAlarms == 0)
    _ = try rig.insert("C", age: 40)
    #expect(received.withLock { $0.map(\.coalesced) } == [1...1, 2...2, 3...3])
    withExtendedLifetime(token) {}
  }

  @Test func aFailureEverySaveOfAWindowRaisesIsReportedOnce() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    // A regex over its budget on this name: a failure, not a no-match.
    let token = try rig.watcher.watch(
      "Person", where: "name MATCHES '(a|a)*b|a*!'",
      options: WatchOptions(delivery: .coalesced(every: .milliseconds(250))),
      handler: .changes(on: .immediate) { changes in received.withLock { $0.append(changes) } })
    let id = try rig.insert(String(repeating: "a", count: 30) + "!", age: 1)
    rig.advance(to: 0.05)
    try rig.set(id, ["age": 2])
    rig.advance(to: 0.1)
    try rig.set(id, ["age": 3])
    rig.advance(to: 0.25)
    let failures = received.withLock { $0.map(\.failures.count) }
    #expect(failures == [1, 1])
    #expect(received.withLock { $0.last?.coalesced } == 2...3)
    withExtendedLifetime(token) {}
  }

  @Test func aWindowWithNothingNetDeliversNothingAndCarriesOn() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(1)), into: received)
    _ = try rig.insert("First", age: 40)
    let brief = try rig.insert("Brief", age: 40)
    try rig.set(brief, ["age": 1])
    rig.advance(to: 1)
    // Inserted and exited: nothing to deliver, and no alarm left.
    #expect(received.withLock { $0.count } == 1)
    #expect(rig.clock.pendingAlarms == 0)
    // It enters later: as an insertion, since the window it was inserted in
    // delivered nothing.
    try rig.set(brief, ["age": 41])
    let last = try #require(received.withLock { $0.last })
    #expect(last.inserted.map(\.objectID) == [brief])
    #expect(last.coalesced == 2...4)
    withExtendedLifetime(token) {}
  }

  @Test func whenReadyMergesWhileTheConsumerIsBusy() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let gate = DispatchSemaphore(value: 0)
    let token = try rig.watch(
      .whenReady, into: received, on: .queue(DispatchQueue(label: "slow consumer")), after: { gate.wait() })
    _ = try rig.insert("A", age: 40)
    _ = try rig.insert("B", age: 41)
    _ = try rig.insert("C", age: 42)
    // The consumer holds the first delivery: the two others wait, merged.
    gate.signal()
    gate.signal()
    rig.watcher.flush()
    #expect(received.withLock { $0.map(\.coalesced) } == [1...1, 2...3])
    #expect(received.withLock { $0.map { $0.inserted.map(\.age) } } == [[40], [41, 42]])
    withExtendedLifetime(token) {}
  }

  @Test func flushDeliversWhatIsPending() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(3600)), into: received)
    _ = try rig.insert("A", age: 40)
    _ = try rig.insert("B", age: 41)
    #expect(received.withLock { $0.count } == 1)
    rig.watcher.flush()
    #expect(received.withLock { $0.map(\.coalesced) } == [1...1, 2...2])
    #expect(rig.clock.pendingAlarms == 0)
    withExtendedLifetime(token) {}
  }

  @Test func removingTheWatchDropsWhatIsPendingAndItsAlarm() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    var token: WatchToken? = try rig.watch(.coalesced(every: .seconds(10)), into: received)
    _ = try rig.insert("A", age: 40)
    _ = try rig.insert("B", age: 41)
    #expect(rig.clock.pendingAlarms == 1)
    token = nil
    #expect(rig.clock.pendingAlarms == 0)
    rig.advance(to: 20)
    rig.watcher.flush()
    #expect(received.withLock { $0.count } == 1)
    #expect(token == nil)
  }

  @Test func anUpdateBackWhereItStartedIsNothing() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(10)), into: received)
    let (ann, bob) = try rig.insert("Ann", "Bob", age: 40)
    try rig.set(ann, ["age": 50])
    try rig.set(ann, ["age": 40])
    try rig.set(bob, ["age": 10])
    try rig.set(bob, ["name": "Robert"])
    try rig.set(bob, ["age": 45])
    rig.advance(to: 10)
    let window = try #require(received.withLock { $0.count == 2 ? $0[1] : nil })
    // Ann is as she was; Bob's name changed while he did not match, and
    // counts, since the delivery compares the window's two ends.
    #expect(window.updated.map(\.objectID) == [bob])
    #expect(window.updated.first?.changedKeys == ["name", "age"])
    #expect(window.updated.first.map { [$0.before.age, $0.after.age] } == [40, 45])
    withExtendedLifetime(token) {}
  }

  @Test func aDeletionRolledBackInPendingChangesIsNothing() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(10)), into: received, follows: .pending)
    let ann = try rig.insert("Ann", age: 40)
    #expect(received.withLock { $0.map(\.inserted.count) } == [1])
    rig.context.run { context in
      try? context.delete(context.object(with: ann)!)
      context.processPendingChanges()
      context.rollback()
    }
    rig.advance(to: 10)
    rig.watcher.flush()
    #expect(received.withLock { $0.count } == 1)
    withExtendedLifetime(token) {}
  }

  @Test func aDeletionRolledBackAfterAnUpdateIsNothing() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let token = try rig.watch(.coalesced(every: .seconds(10)), into: received, follows: .pending)
    let (ann, bob) = try rig.insert("Ann", "Bob", age: 40)
    #expect(received.withLock { $0.map(\.inserted.count) } == [2])
    rig.context.run { context in
      // Ann changes and is deleted; Bob leaves the watch and is deleted;
      // the rollback brings both back as the consumer holds them.
      try? context.setValues(["age": 45], of: context.object(with: ann)!)
      try? context.setValues(["age": 20], of: context.object(with: bob)!)
      context.processPendingChanges()
      try? context.delete(context.object(with: ann)!)
      try? context.delete(context.object(with: bob)!)
      context.processPendingChanges()
      context.rollback()
    }
    rig.advance(to: 10)
    rig.watcher.flush()
    #expect(received.withLock { $0.count } == 1, "\(received.withLock { Array($0.dropFirst()) })")
    withExtendedLifetime(token) {}
  }

  @Test func refusedOptionsSayWhy() throws {
    let rig = CoalescingRig()
    let received = LockedState<[WatchChanges]>([])
    let both = try #require(throws: WatchError.self) {
      try rig.watch(.whenReady, into: received, follows: .all)
    }
    #expect(both.code == .invalidOptions)
    #expect(
      both.message
        == "a coalesced watch follows saves or pending changes, not both: a save reports again what its pending changes did"
    )
    let zero = try #require(throws: WatchError.self) { try rig.watch(.coalesced(every: .zero), into: received) }
    #expect(zero.code == .invalidOptions)
    #expect(zero.message == "a watch coalesced every 0.0 seconds: the interval must be positive (or use .whenReady)")
    #expect(rig.watcher.watchCount == 0)
  }
}

/// Random saves, clock moves, flushes and consumer pauses against a model of
/// net changes: the deliveries of an uncoalesced watch with the same
/// predicate, folded window by window by the state each object was in at
/// the window's two ends.
@Suite("Watcher: coalesced deliveries against a model")
struct CoalescedWatchModelTests {
  /// What a window's deliveries add up to for one object, from the first
  /// event seen and the last.
  struct Folded: Equatable {
    var event: WatchEvent
    var before: ObjectSnapshot?
    var after: ObjectSnapshot
    var changedKeys: Set<String>
  }

  /// Folds one window of an uncoalesced watch's deliveries: an object that
  /// matched when the window opened (its first event was an update, an
  /// exit or a deletion) and matches when it closes (its last was an
  /// insertion, an entry or an update) was updated, and so on.
  static func fold(_ window: [WatchChanges]) -> [ObjectID: Folded] {
    var first: [ObjectID: (WatchEvent, ObjectSnapshot?)] = [:]
    var last: [ObjectID: (WatchEvent, ObjectSnapshot)] = [:]
    var keys: [ObjectID: Set<String>] = [:]
    for changes in window {
      for (object, event, changedKeys) in changes.objectEvents {
        let before: ObjectSnapshot? =
          switch event {
          case .updated: changes.updated.first { $0.objectID == object.objectID }?.before
          case .entered: changes.entered.first { $0.objectID == object.objectID }?.before
          case .exited: changes.exited.first { $0.objectID == object.objectID }?.before
          case .inserted, .deleted: nil
          }
        if first[object.objectID] == nil { first[object.objectID] = (event, before) }
        last[object.objectID] = (event, object)
        keys[object.objectID, default: []].formUnion(changedKeys)
      }
    }
    var folded: [ObjectID: Folded] = [:]
    for (id, (firstEvent, before)) in first {
      let (lastEvent, after) = last[id]!
      let matchedAtStart = [.updated, .exited, .deleted].contains(firstEvent)
      let matchesAtEnd = [.inserted, .entered, .updated].contains(lastEvent)
      let event: WatchEvent
      switch (matchedAtStart, matchesAtEnd) {
      case (false, false): continue
      case (false, true): event = firstEvent == .inserted ? .inserted : .entered
      case (true, true): event = .updated
      case (true, false): event = lastEvent == .deleted ? .deleted : .exited
      }
      let hasUpdate = event == .updated || event == .entered || event == .exited
      var changedKeys: Set<String> = []
      if hasUpdate {
        // The keys whose values differ from the window's start to its end;
        // an update back where it started is nothing.
        changedKeys = Set(
          after.keys.filter { before![$0] != after[$0] || before!.targets(of: $0) != after.targets(of: $0) })
        if changedKeys.isEmpty {
          if event == .updated { continue }
          changedKeys = keys[id]!
        }
      }
      folded[id] = Folded(
        event: event, before: hasUpdate ? before : nil, after: after, changedKeys: changedKeys)
    }
    return folded
  }

  /// A coalesced delivery in the fold's terms.
  static func folded(_ changes: WatchChanges) -> [ObjectID: Folded] {
    var folded: [ObjectID: Folded] = [:]
    for snapshot in changes.inserted {
      folded[snapshot.objectID] = Folded(event: .inserted, after: snapshot, changedKeys: [])
    }
    for snapshot in changes.deleted {
      folded[snapshot.objectID] = Folded(event: .deleted, after: snapshot, changedKeys: [])
    }
    for (event, updates) in [
      (WatchEvent.updated, changes.updated), (.entered, changes.entered), (.exited, changes.exited),
    ] {
      for update in updates {
        folded[update.objectID] = Folded(
          event: event, before: update.before, after: update.after, changedKeys: Set(update.changedKeys))
      }
    }
    return folded
  }

  /// Checks that each coalesced delivery is the fold of the uncoalesced
  /// deliveries of its window (the saves after the previous delivery's
  /// last, up to its own last), in identifier order, and that nothing is
  /// left after the last.
  static func check(_ coalesced: [WatchChanges], against reference: [WatchChanges], seed: UInt64) {
    var previous = 0
    for changes in coalesced {
      let range = try! #require(changes.coalesced, "seed \(seed)")
      #expect(range.lowerBound > previous, "seed \(seed): windows in order, each save once")
      let window = reference.filter { $0.sequenceNumber > previous && $0.sequenceNumber <= range.upperBound }
      #expect(folded(changes) == fold(window), "seed \(seed): window up to save \(range.upperBound)")
      for list in [changes.inserted.map(\.objectID), changes.updated.map(\.objectID), changes.deleted.map(\.objectID)] {
        #expect(list == list.sorted(), "seed \(seed): identifier order")
      }
      previous = range.upperBound
    }
    #expect(fold(reference.filter { $0.sequenceNumber > previous }).isEmpty, "seed \(seed): nothing left behind")
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func deliveriesAreTheNetChangeOfTheirWindows(seed fallback: UInt64) throws {
    let seed = SeededGenerator.seed(default: fallback)
    var random = SeededGenerator(seed: seed)
    let context = WatcherFixtures.context()
    let clock = ManualWatchClock(now: 0)
    let recorder = Recorder()
    let watcher = ContextWatcher(
      context: context, target: .delegate(recorder, on: .immediate), options: WatcherOptions(clock: clock))
    let predicate = "age > 30 AND name != 'z'"
    let reference = LockedState<[WatchChanges]>([])
    let throttled = LockedState<[WatchChanges]>([])
    let ready = LockedState<[WatchChanges]>([])
    let gate = DispatchSemaphore(value: 0)
    let tokens = [
      try watcher.watch(
        "Person", where: predicate,
        handler: .changes(on: .immediate) { changes in
          reference.withLock { $0.append(changes) }
        }),
      try watcher.watch(
        "Person", where: predicate, options: WatchOptions(delivery: .coalesced(every: .seconds(1))),
        handler: .changes(on: .immediate) { changes in throttled.withLock { $0.append(changes) } }),
      try watcher.watch(
        "Person", where: predicate, options: WatchOptions(delivery: .whenReady),
        handler: .changes(on: .queue(DispatchQueue(label: "paced consumer"))) { changes in
          ready.withLock { $0.append(changes) }
          gate.wait()
        }),
    ]
    var live: [ObjectID] = []
    for _ in 0..<150 {
      try context.run { context in
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          let roll = Int.random(in: 0..<10, using: &random)
          let age = FilterValue.int(Int64.random(in: 20...40, using: &random))
          let name = FilterValue.string(["a", "b", "z"].randomElement(using: &random)!)
          if roll < 3 || live.count < 3 {
            live.append(try context.insert("Person", values: ["name": name, "age": age]).objectID)
          } else if roll < 4 {
            let id = live.remove(at: Int.random(in: 0..<live.count, using: &random))
            try context.delete(context.object(with: id)!)
          } else {
            let id = live.randomElement(using: &random)!
            let values: [String: FilterValue] = random.chance(0.5) ? ["age": age] : ["name": name]
            try context.setValues(values, of: context.object(with: id)!)
          }
        }
        try context.save()
      }
      if random.chance(0.3) {
        clock.advance(by: Double.random(in: 0...1.5, using: &random))
        context.run { _ in }
      }
      if random.chance(0.3) { gate.signal() }
      if random.chance(0.05) {
        // A flush adds a delivery behind the one the consumer may hold:
        // room for both, and for what the first leaves pending.
        for _ in 0..<4 { gate.signal() }
        watcher.flush()
      }
    }
    // Let the paced consumer go, then deliver what is pending.
    for _ in 0..<200 { gate.signal() }
    watcher.flush()
    let all = reference.withLock { $0 }
    #expect(all.count > 50, "seed \(seed): the workload reaches the watch")
    Self.check(throttled.withLock { $0 }, against: all, seed: seed)
    Self.check(ready.withLock { $0 }, against: all, seed: seed)
    #expect(throttled.withLock { $0.count } < all.count, "seed \(seed): some saves were merged")
    // The target got each coalesced delivery too, attributed to its watch.
    let targeted = recorder.all.filter { $0.coalesced != nil }
    #expect(targeted.count == throttled.withLock { $0.count } + ready.withLock { $0.count })
    for changes in recorder.all where changes.coalesced == nil {
      #expect(changes.attribution.allSatisfy { $0.matches.allSatisfy { $0.watch == tokens[0].id } })
    }
    withExtendedLifetime(tokens) {}
  }
}
