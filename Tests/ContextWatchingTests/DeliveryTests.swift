import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Watcher: delivery guarantees")
struct DeliveryTests {
  @Test func theSaverNeverWaitsForTheDelegate() throws {
    let context = WatcherFixtures.context()
    let gate = DispatchSemaphore(value: 0)
    let delivered = LockedState<[Int]>([])
    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: .queue(DispatchQueue(label: "slow"))) { changes in
        gate.wait()
        delivered.withLock { $0.append(changes.sequenceNumber) }
      })
    let token = try watcher.watch("Person", where: "age > 0")
    // Three saves complete while the first delivery is blocked.
    for age in 1...3 {
      try context.run { context in
        try context.insert("Person", values: ["name": "P", "age": .int(Int64(age))])
        try context.save()
      }
    }
    #expect(delivered.withLock { $0 }.isEmpty)
    #expect(watcher.backlog == 3)
    for _ in 1...3 { gate.signal() }
    watcher.flush()
    #expect(delivered.withLock { $0 } == [1, 2, 3])
    withExtendedLifetime(token) {}
  }

  @Test(arguments: ["queue", "immediate"])
  func aSaveInsideACallbackIsDeliveredAfterTheCurrentOne(scheduler name: String) throws {
    let context = WatcherFixtures.context()
    let log = LockedState<[String]>([])
    let scheduler: DeliveryScheduler = name == "queue" ? .queue(DispatchQueue(label: "d")) : .immediate
    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: scheduler) { [context] changes in
        log.withLock { $0.append("begin \(changes.sequenceNumber)") }
        if changes.sequenceNumber == 1 {
          context.performAndWait { context in
            _ = try? context.insert("Person", values: ["name": "Echo", "age": 5])
            _ = try? context.save()
          }
        }
        log.withLock { $0.append("end \(changes.sequenceNumber)") }
      })
    let token = try watcher.watch("Person", where: "age > 0")
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann", "age": 1])
      try context.save()
    }
    watcher.flush()
    watcher.flush()
    #expect(log.withLock { $0 } == ["begin 1", "end 1", "begin 2", "end 2"])
    withExtendedLifetime(token) {}
  }

  @Test func watchesMayBeAddedAndRemovedDuringADelivery() throws {
    let context = WatcherFixtures.context()
    let added = LockedState<[WatchToken]>([])
    let seen = LockedState<[[String]]>([])
    let holder = LockedState<ContextWatcher?>(nil)
    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: .queue(DispatchQueue(label: "d"))) { changes in
        seen.withLock { $0.append(changes.names(.inserted)) }
        guard let watcher = holder.withLock({ $0 }) else { return }
        if let token = try? watcher.watch("Person", where: "name == 'Bob'") { added.withLock { $0.append(token) } }
      })
    holder.withLock { $0 = watcher }
    var first: WatchToken? = try watcher.watch("Person", where: "name == 'Ann'")
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann"])
      try context.save()
    }
    watcher.flush()
    first = nil
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann"])
      try context.insert("Person", values: ["name": "Bob"])
      try context.save()
    }
    watcher.flush()
    #expect(seen.withLock { $0 } == [["Ann"], ["Bob"]])
    #expect(first == nil)
    holder.withLock { $0 = nil }
  }

  @Test func delegatesAreHeldWeaklyAndWatchersLeakNothing() throws {
    let context = WatcherFixtures.context()
    weak var weakWatcher: ContextWatcher?
    weak var weakDelegate: Recorder?
    do {
      let recorder = Recorder()
      weakDelegate = recorder
      let watcher = ContextWatcher(context: context, target: .delegate(recorder, on: .queue(DispatchQueue(label: "d"))))
      weakWatcher = watcher
      let token = try watcher.watch("Person", where: "age > 0")
      try context.run { context in
        try context.insert("Person", values: ["name": "Ann", "age": 3])
        try context.save()
      }
      watcher.flush()
      #expect(recorder.all.count == 1)
      withExtendedLifetime(token) {}
    }
    #expect(weakDelegate == nil)
    #expect(weakWatcher == nil)
    // The context goes on saving without its watcher.
    try context.run { context in
      try context.insert("Person", values: ["name": "Bob", "age": 3])
      try context.save()
    }
  }

  /// A token outlives its watcher without keeping it: the watcher goes
  /// when released, and cancelling or dropping the token afterwards is
  /// safe and changes nothing.
  @Test func tokensDoNotKeepTheirWatcher() throws {
    weak var weakWatcher: ContextWatcher?
    var token: WatchToken?
    do {
      let watcher = ContextWatcher(schema: WatcherFixtures.schema, target: .handler(on: .immediate) { _ in })
      weakWatcher = watcher
      token = try watcher.watch("Person", where: "age > 0")
      _ = try watcher.watch("Person", where: "city == 'Oslo'")
      #expect(watcher.watchCount == 1)  // the second token was dropped at once
    }
    #expect(weakWatcher == nil && token != nil)
    token?.cancel()
    token?.cancel()
    token = nil
  }

  @Test func aDelegateThatGoesAwayIsNotCalled() throws {
    let context = WatcherFixtures.context()
    var recorder: Recorder? = Recorder()
    weak let released = recorder
    let watcher = ContextWatcher(context: context, target: .delegate(recorder!, on: .immediate))
    let token = try watcher.watch("Person", where: "age > 0")
    recorder = nil
    #expect(released == nil)  // the watcher did not keep it
    // A save with a matching object is delivered to nobody, and does not crash.
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann", "age": 3])
      try context.save()
    }
    watcher.flush()
    #expect(watcher.backlog == 0)
    withExtendedLifetime(token) {}
  }

  @Test func savesByIgnoredAuthorsAreSkipped() throws {
    let rig = Rig(options: WatcherOptions(ignoredAuthors: ["sync"]))
    let token = try rig.watcher.watch("Person", where: "age > 0")
    #expect(try rig.save(author: "sync") { try $0.insert("Person", values: ["name": "A", "age": 1]) } == nil)
    let own = try #require(try rig.save(author: "user") { try $0.insert("Person", values: ["name": "B", "age": 1]) })
    #expect(own.author == "user" && own.sequenceNumber == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aFullBufferDropsDeliveriesAndSignalsTheOverflow() throws {
    let context = WatcherFixtures.context()
    let gate = DispatchSemaphore(value: 0)
    let delivered = LockedState<[ContextChanges]>([])
    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: .queue(DispatchQueue(label: "slow"))) { changes in
        gate.wait()
        delivered.withLock { $0.append(changes) }
      },
      options: WatcherOptions(bufferLimit: 3))
    let token = try watcher.watch("Person", where: "age > 0")
    for age in 1...10 {
      try context.run { context in
        try context.insert("Person", values: ["name": "P", "age": .int(Int64(age))])
        try context.save()
      }
    }
    #expect(watcher.backlog == 3)  // bounded: saves 4…10 were dropped
    for _ in 0..<4 { gate.signal() }
    watcher.flush()
    let all = delivered.withLock { $0 }
    #expect(all.map(\.sequenceNumber) == [1, 2, 3, 10])
    #expect(all[3].isOverflow && all[3].missedSaves == 4...10 && all[3].isEmpty)
    #expect(all[0..<3].allSatisfy { !$0.isOverflow && $0.inserted.count == 1 })
    // After the signal, deliveries flow again.
    try context.run { context in
      try context.insert("Person", values: ["name": "Q", "age": 1])
      try context.save()
    }
    gate.signal()
    watcher.flush()
    #expect(delivered.withLock { $0.last?.sequenceNumber } == 11)
    withExtendedLifetime(token) {}
  }

  @Test(.timeLimit(.minutes(1)))
  func deliversAsAnAsyncSequence() async throws {
    let context = WatcherFixtures.context()
    var watcher: ContextWatcher? = ContextWatcher(context: context, target: .asyncSequence)
    let token = try watcher!.watch("Person", where: "age > 30")
    let changes = watcher!.changes
    let consumer = Task {
      var received: [Int] = []
      for await delivery in changes { received.append(delivery.sequenceNumber) }
      return received
    }
    for (index, age) in [40, 10, 50].enumerated() {
      let sequence = try await context.perform { context in
        try context.insert("Person", values: ["name": "P", "age": .int(Int64(age))])
        return try context.save()?.sequenceNumber
      }
      #expect(sequence == index + 1)
    }
    await watcher!.flush()
    withExtendedLifetime(token) {}
    watcher = nil  // ends the sequence
    #expect(await consumer.value == [1, 3])
  }

  /// The sequence buffers from the watcher's creation, not from when it is
  /// read or iterated: saves made before any loop are delivered to the
  /// first one. Released, the watcher ends the sequence once the buffered
  /// deliveries are taken, and a loop started after that ends at once.
  @Test(.timeLimit(.minutes(1)))
  func theSequenceKeepsSavesMadeBeforeIterationAndEndsWithTheWatcher() async throws {
    let context = WatcherFixtures.context()
    var watcher: ContextWatcher? = ContextWatcher(context: context, target: .asyncSequence)
    let token = try watcher!.watch("Person", where: "age > 30")
    for age in [40, 50] {
      try context.run { context in
        try context.insert("Person", values: ["name": "P", "age": .int(Int64(age))])
        try context.save()
      }
    }
    let changes = watcher!.changes
    watcher = nil
    var received: [Int] = []
    for await delivery in changes { received.append(delivery.sequenceNumber) }
    #expect(received == [1, 2])
    var again = changes.makeAsyncIterator()
    #expect(await again.next() == nil)
    withExtendedLifetime(token) {}
  }

  @Test(.timeLimit(.minutes(1)))
  func cancellingTheConsumerEndsItsIteration() async throws {
    let context = WatcherFixtures.context()
    let watcher = ContextWatcher(context: context, target: .asyncSequence)
    let token = try watcher.watch("Person", where: "age > 0")
    let changes = watcher.changes
    let consumer = Task {
      var count = 0
      for await _ in changes { count += 1 }
      return count
    }
    try await Task.sleep(for: .milliseconds(50))  // let it wait for a delivery
    consumer.cancel()
    #expect(await consumer.value == 0)
    withExtendedLifetime((watcher, token)) {}
  }

  @Test func flushInsideAnImmediateDeliveryReturns() throws {
    let context = WatcherFixtures.context()
    let holder = LockedState<ContextWatcher?>(nil)
    let flushed = LockedState(false)
    let watcher = ContextWatcher(
      context: context,
      target: .handler(on: .immediate) { _ in
        holder.withLock { $0 }?.flush()
        flushed.withLock { $0 = true }
      })
    holder.withLock { $0 = watcher }
    let token = try watcher.watch("Person", where: "age > 0")
    try context.run { context in
      try context.insert("Person", values: ["name": "Ann", "age": 1])
      try context.save()
    }
    #expect(flushed.withLock { $0 })
    holder.withLock { $0 = nil }
    withExtendedLifetime(token) {}
  }

  @MainActor
  @Test(.timeLimit(.minutes(1)))
  func deliversOnTheMainActor() async throws {
    let context = WatcherFixtures.context()
    let received = LockedState<[Int]>([])
    let watcher = ContextWatcher(
      context: context,
      target: .mainActor { changes in
        MainActor.preconditionIsolated()
        received.withLock { $0.append(changes.sequenceNumber) }
      })
    let token = try watcher.watch("Person", where: "age > 0")
    let sequence = try await context.perform { context in
      try context.insert("Person", values: ["name": "P", "age": 1])
      return try context.save()?.sequenceNumber
    }
    #expect(sequence == 1)
    await watcher.flush()
    #expect(received.withLock { $0 } == [1])
    withExtendedLifetime(token) {}
  }
}
