// Tests of the monitors' shared infrastructure (through @testable import):
// the delivery queue and the observer list.

import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@testable import ContextWatching

@Suite("Monitors: delivery queue")
struct MonitorDeliveryQueueTests {
  /// Work runs in enqueue order, one at a time, on the queue the scheduler
  /// names: even a concurrent one.
  @Test func workRunsInOrderOneAtATimeOnTheTargetQueue() {
    let target = DispatchQueue(label: "target", attributes: .concurrent)
    let deliveries = MonitorDeliveryQueue(scheduler: .queue(target), owner: "Test")
    let log = LockedState<(order: [Int], running: Int, overlapped: Bool)>(([], 0, false))
    for number in 0..<1_000 {
      deliveries.enqueue {
        dispatchPrecondition(condition: .onQueue(target))
        log.withLock { state in
          state.running += 1
          if state.running > 1 { state.overlapped = true }
        }
        if number % 100 == 0 { Thread.sleep(forTimeInterval: 0.001) }
        log.withLock { state in
          state.running -= 1
          state.order.append(number)
        }
      }
    }
    deliveries.flush()
    let (order, _, overlapped) = log.withLock { $0 }
    #expect(order == Array(0..<1_000))
    #expect(!overlapped)
  }

  /// `flush()` returns only once the work enqueued before it has run.
  @Test func flushWaitsForEarlierWork() {
    let deliveries = MonitorDeliveryQueue(scheduler: .queue(DispatchQueue(label: "slow")), owner: "Test")
    let done = LockedState(0)
    for _ in 0..<3 {
      deliveries.enqueue {
        Thread.sleep(forTimeInterval: 0.01)
        done.withLock { $0 += 1 }
      }
    }
    deliveries.flush()
    #expect(done.withLock { $0 } == 3)
  }

  /// `await flush()` resumes only once the work enqueued before it has run.
  @Test(.timeLimit(.minutes(1)))
  func asyncFlushWaitsForEarlierWork() async {
    let deliveries = MonitorDeliveryQueue(scheduler: .queue(DispatchQueue(label: "slow")), owner: "Test")
    let done = LockedState(0)
    for _ in 0..<3 {
      deliveries.enqueue {
        Thread.sleep(forTimeInterval: 0.01)
        done.withLock { $0 += 1 }
      }
    }
    await deliveries.flush()
    #expect(done.withLock { $0 } == 3)
  }

  /// Immediate work runs on the enqueuing thread before `enqueue` returns;
  /// work enqueued from inside it runs after it, not nested in it.
  @Test func immediateWorkRunsInlineAndNeverNests() {
    let deliveries = MonitorDeliveryQueue(scheduler: .immediate, owner: "Test")
    let log = LockedState<[String]>([])
    let thread = ObjectIdentifier(Thread.current)
    deliveries.enqueue {
      #expect(ObjectIdentifier(Thread.current) == thread)
      log.withLock { $0.append("begin 1") }
      deliveries.enqueue { log.withLock { $0.append("2") } }
      log.withLock { $0.append("end 1") }
    }
    #expect(log.withLock { $0 } == ["begin 1", "end 1", "2"])
    deliveries.flush()
  }

  /// Immediate work enqueued from several threads at once never runs two
  /// at a time.
  @Test func immediateWorkFromManyThreadsRunsOneAtATime() {
    let deliveries = MonitorDeliveryQueue(scheduler: .immediate, owner: "Test")
    let log = LockedState<(count: Int, running: Int, overlapped: Bool)>((0, 0, false))
    DispatchQueue.concurrentPerform(iterations: 200) { _ in
      deliveries.enqueue {
        log.withLock { state in
          state.running += 1
          if state.running > 1 { state.overlapped = true }
        }
        log.withLock { state in
          state.running -= 1
          state.count += 1
        }
      }
    }
    let (count, running, overlapped) = log.withLock { $0 }
    #expect(count == 200)
    #expect(running == 0)
    #expect(!overlapped)
  }

  @MainActor
  @Test(.timeLimit(.minutes(1)))
  func mainActorWorkRunsOnTheMainActor() async {
    let deliveries = MonitorDeliveryQueue(scheduler: .mainActor, owner: "Test")
    let ran = LockedState<[Int]>([])
    for number in 0..<3 {
      deliveries.enqueue {
        MainActor.preconditionIsolated()
        ran.withLock { $0.append(number) }
      }
    }
    await deliveries.flush()
    #expect(ran.withLock { $0 } == [0, 1, 2])
  }

  @Test func flushFromItsOwnQueueTraps() async throws {
    // (From another queue on the same target it traps too, as the
    // watcher's flush does: that target may be serial.)
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let deliveries = MonitorDeliveryQueue(scheduler: .queue(DispatchQueue(label: "own")), owner: "Test")
      let done = DispatchSemaphore(value: 0)
      deliveries.enqueue {
        deliveries.flush()
        done.signal()
      }
      done.wait()
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains("Test.flush() called from its own delivery queue would wait forever"))
  }

  /// Another queue's work may flush this one: it waits, it does not trap.
  @Test func flushFromAnotherDeliveryQueueWaits() {
    let first = MonitorDeliveryQueue(scheduler: .queue(DispatchQueue(label: "first")), owner: "Test")
    let second = MonitorDeliveryQueue(scheduler: .queue(DispatchQueue(label: "second")), owner: "Test")
    let log = LockedState<[String]>([])
    first.enqueue { log.withLock { $0.append("first") } }
    second.enqueue {
      first.flush()
      log.withLock { $0.append("second") }
    }
    second.flush()
    #expect(log.withLock { $0 } == ["first", "second"])
  }
}

private protocol Listener: AnyObject, Sendable {
  func heard(_ value: Int)
}

private final class Ear: Listener {
  let heard = LockedState<[Int]>([])
  func heard(_ value: Int) { heard.withLock { $0.append(value) } }
}

@Suite("Monitors: observer list")
struct ObserverListTests {
  private func notify(_ list: ObserverList<any Listener, Int>, _ value: Int) {
    for member in list.snapshot() {
      switch member {
      case .object(let listener): listener.heard(value)
      case .closure(let closure): closure(value)
      }
    }
  }

  @Test func observersAreHeldWeaklyAndReleasedOnesAreDropped() {
    let list = ObserverList<any Listener, Int>()
    let kept = Ear()
    weak var released: Ear?
    do {
      let ear = Ear()
      released = ear
      list.add(ear)
      list.add(kept)
      notify(list, 1)
      #expect(ear.heard.withLock { $0 } == [1])
    }
    #expect(released == nil)
    #expect(list.snapshot().count == 1)
    notify(list, 2)
    #expect(kept.heard.withLock { $0 } == [1, 2])
  }

  @Test func addingTwiceRegistersOnceAndRemovingStopsNotifications() {
    let list = ObserverList<any Listener, Int>()
    let ear = Ear()
    list.add(ear)
    list.add(ear)
    notify(list, 1)
    list.remove(ear)
    notify(list, 2)
    #expect(ear.heard.withLock { $0 } == [1])
    #expect(list.isEmpty)
  }

  @Test func closuresStayWhileTheirTokensDoInRegistrationOrder() {
    let list = ObserverList<any Listener, Int>()
    let log = LockedState<[String]>([])
    let ear = Ear()
    let first = list.add { value in log.withLock { $0.append("first \(value)") } }
    list.add(ear)
    var second: ObserverToken? = list.add { value in log.withLock { $0.append("second \(value)") } }
    let order = list.snapshot().map { member in
      if case .object = member { "object" } else { "closure" }
    }
    #expect(order == ["closure", "object", "closure"])
    notify(list, 1)
    second = nil
    notify(list, 2)
    first.cancel()
    first.cancel()
    notify(list, 3)
    #expect(log.withLock { $0 } == ["first 1", "second 1", "first 2"])
    #expect(ear.heard.withLock { $0 } == [1, 2, 3])
    #expect(second == nil)
  }

  /// A list of closures alone hands out one snapshot until it changes;
  /// one with an object builds each, so that it never keeps the object.
  @Test func aSnapshotOfClosuresAloneStaysUntilTheListChanges() {
    let list = ObserverList<any Listener, Int>()
    let log = LockedState<[String]>([])
    let first = list.add { value in log.withLock { $0.append("first \(value)") } }
    notify(list, 1)
    notify(list, 2)
    let second = list.add { value in log.withLock { $0.append("second \(value)") } }
    notify(list, 3)
    first.cancel()
    notify(list, 4)
    var ear: Ear? = Ear()
    weak let released = ear
    list.add(ear!)
    notify(list, 5)
    ear = nil
    #expect(released == nil, "a snapshot kept the observer")
    notify(list, 6)
    notify(list, 7)
    second.cancel()
    notify(list, 8)
    #expect(
      log.withLock { $0 } == [
        "first 1", "first 2", "first 3", "second 3", "second 4", "second 5", "second 6", "second 7",
      ])
    #expect(list.snapshot().isEmpty)
  }

  /// Adding, removing and reading from many threads at once.
  @Test func isSafeFromManyThreads() {
    let list = ObserverList<any Listener, Int>()
    let ears = (0..<8).map { _ in Ear() }
    DispatchQueue.concurrentPerform(iterations: 400) { iteration in
      let ear = ears[iteration % ears.count]
      list.add(ear)
      let token = list.add { _ in }
      _ = list.snapshot()
      if iteration % 3 == 0 { list.remove(ear) }
      token.cancel()
    }
    #expect(list.snapshot().count <= ears.count)
    for member in list.snapshot() {
      if case .closure = member { Issue.record("a cancelled closure is still registered") }
    }
  }

  /// Releasing 40,000 tokens, and removing 2,000 observer objects, looks
  /// at O(log n) entries each (at most 18 a removal here), not at every
  /// observer; the survivors keep registration order.
  @Test func removalsDoNotScanTheObservers() {
    let list = ObserverList<any Listener, Int>()
    let log = LockedState<[Int]>([])
    var tokens: [ObserverToken?] = (0..<40_000).map { index in
      list.add { _ in log.withLock { $0.append(index) } }
    }
    let ears = (0..<2_000).map { _ in Ear() }
    for ear in ears { list.add(ear) }
    for index in tokens.indices where index % 1_000 != 0 { tokens[index] = nil }
    for ear in ears.dropFirst() { list.remove(ear) }
    #expect(list.removalSteps <= 18 * (40_000 + 2_000), "\(list.removalSteps) steps")
    notify(list, 1)
    #expect(log.withLock { $0 } == Array(stride(from: 0, to: 40_000, by: 1_000)))
    #expect(ears[0].heard.withLock { $0 } == [1])
    #expect(ears[1].heard.withLock { $0 }.isEmpty)
    withExtendedLifetime(tokens) {}
  }

  /// Observer objects released without being removed are dropped as
  /// others are added, so the list holds O(live observers) entries; an
  /// object that takes a released one's identity is a new observer.
  @Test func releasedObserversAreDroppedAsOthersComeAndGo() {
    let list = ObserverList<any Listener, Int>()
    let kept = Ear()
    list.add(kept)
    for _ in 0..<10_000 {
      let passing = Ear()
      list.add(passing)
      list.add(passing)
    }
    #expect(list.snapshot().count == 1)
    let late = Ear()
    list.add(late)
    notify(list, 5)
    #expect(kept.heard.withLock { $0 } == [5])
    #expect(late.heard.withLock { $0 } == [5])
    list.remove(late)
    notify(list, 6)
    #expect(late.heard.withLock { $0 } == [5])
  }
}

@Suite("Monitors: one watcher per context")
struct MonitorHubTests {
  /// The object monitors of a context share one watcher, each with one
  /// watch; it goes with the last of them, and a later monitor makes a new
  /// one.
  @Test func monitorsOfAContextShareOneWatcherThatGoesWithTheLast() throws {
    let context = WatcherFixtures.context()
    let other = WatcherFixtures.context("other")
    let (ann, bob) = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      let bob = try context.insert("Person", values: ["name": "Bob"])
      try context.save()
      return (ann.objectID, bob.objectID)
    }
    let carl = try other.run { context in
      let carl = try context.insert("Person", values: ["name": "Carl"])
      try context.save()
      return carl.objectID
    }
    weak var firstHub: MonitorHub?
    do {
      let monitors = try [ann, bob, ann].map { id in
        try ObjectMonitor(context: context, objectID: id, scheduler: .immediate)
      }
      let elsewhere = try ObjectMonitor(context: other, objectID: carl, scheduler: .immediate)
      let hub = MonitorHub.hub(for: context)
      firstHub = hub
      #expect(hub.watcher.watchCount == 3)
      #expect(MonitorHub.hub(for: other) !== hub)
      #expect(MonitorHub.hub(for: other).watcher.watchCount == 1)
      withExtendedLifetime((monitors, elsewhere)) {}
    }
    #expect(firstHub == nil)
    let later = try ObjectMonitor(context: context, objectID: bob, scheduler: .immediate)
    #expect(MonitorHub.hub(for: context).watcher.watchCount == 1)
    withExtendedLifetime(later) {}
  }

  /// Monitors made from many threads at once for one context find one hub.
  @Test func monitorsMadeConcurrentlyShareOneHub() throws {
    let context = WatcherFixtures.context()
    let ann = try context.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann"])
      try context.save()
      return ann.objectID
    }
    let monitors = LockedState<[ObjectMonitor]>([])
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      if let monitor = try? ObjectMonitor(context: context, objectID: ann, scheduler: .immediate) {
        monitors.withLock { $0.append(monitor) }
      }
    }
    #expect(monitors.withLock { $0.count } == 16)
    #expect(MonitorHub.hub(for: context).watcher.watchCount == 16)
  }

  /// Both monitors keep their context alive, and the context keeps
  /// neither: the context goes with the last monitor.
  @Test func aMonitorKeepsItsContextAlive() throws {
    var context: ObjectContext? = WatcherFixtures.context()
    let ann = try context!.run { context in
      let ann = try context.insert("Person", values: ["name": "Ann", "age": 3])
      try context.save()
      return ann.objectID
    }
    var monitor: ObjectMonitor? = try ObjectMonitor(context: context!, objectID: ann, scheduler: .immediate)
    var list: ListMonitor? = try ListMonitor(
      context: context!, request: ListRequest("Person", sortedBy: [.ascending("name")]), scheduler: .immediate)
    weak let weakContext = context
    weak let weakMonitor = monitor
    context = nil
    #expect(weakContext != nil)
    #expect(monitor?.context.name == "watched")
    monitor = nil
    #expect(weakMonitor == nil)
    #expect(weakContext != nil)
    #expect(list?.count == 1)
    list = nil
    #expect(weakContext == nil)
  }
}
