import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL
import Testing

@Suite("Context: queue confinement")
struct ConcurrencyTests {
  @Test func usingAContextOffItsQueueTraps() async throws {
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let queue = DispatchQueue(label: "com.example.confined")
      let context = ObjectContext(schema: Fixtures.schema, queue: queue, name: "people", notificationCenter: nil)
      _ = try? context.insert("Person", values: ["name": "Ann"])
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(
      message.contains(
        "ObjectContext 'people' used off its queue in insert(_:values:): it is confined to queue "
          + "'com.example.confined', but this code runs on"))
    #expect(message.contains("Use perform(_:) or performAndWait(_:)."))
  }

  /// The thread that ran `performAndWait`'s work is on the queue only
  /// while it runs: afterwards, touching the context from it traps.
  @Test func theThreadThatRanWorkIsOffTheQueueAfterwards() async throws {
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let context = ObjectContext(schema: Fixtures.schema, name: "people", notificationCenter: nil)
      try? context.performAndWait { context in _ = try context.insert("Person", values: ["name": "Ann"]) }
      _ = try? context.insert("Person", values: ["name": "Bob"])
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains("ObjectContext 'people' used off its queue in insert(_:values:)"))
  }

  /// While one thread runs the context's work, another thread touching the
  /// context still traps.
  @Test func anotherThreadTouchingTheContextDuringWorkTraps() async throws {
    let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let context = ObjectContext(schema: Fixtures.schema, name: "people", notificationCenter: nil)
      context.performAndWait { context in
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
          _ = try? context.insert("Person", values: ["name": "Bob"])
          done.signal()
        }
        done.wait()
      }
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains("ObjectContext 'people' used off its queue in insert(_:values:)"))
  }

  @Test func performAndWaitRunsOnTheQueueAndNests() throws {
    let context = Fixtures.context()
    let count = try context.performAndWait { context in
      dispatchPrecondition(condition: .onQueue(context.queue))
      try context.insert("Person", values: ["name": "Ann"])
      // Nested: runs inline rather than deadlocking.
      return try context.performAndWait { try $0.objects(of: "Person").count }
    }
    #expect(count == 1)
    #expect(!context.isOnQueue)
  }

  @Test func asyncPerformReturnsResults() async throws {
    let context = Fixtures.context()
    let save = try await context.perform { context in
      try context.insert("Person", values: ["name": "Ann"])
      return try context.save()
    }
    #expect(save?.inserted.count == 1)
    let done = LockedState(false)
    await withCheckedContinuation { continuation in
      context.perform { context in
        done.withLock { $0 = context.isOnQueue }
        continuation.resume()
      }
    }
    #expect(done.withLock { $0 })
  }

  /// Several contexts on several queues save at once, each with observers
  /// added and removed from other threads; every save reaches its context's
  /// observer once, in order, and the sequence numbers have no gaps.
  @Test(.timeLimit(.minutes(1)))
  func manyContextsSaveConcurrently() async throws {
    let contextCount = 4
    let savesPerContext = 200
    let contexts = (0..<contextCount).map { Fixtures.context("c\($0)") }
    let seen = LockedState<[[Int]]>(Array(repeating: [], count: contextCount))
    let tokens = contexts.enumerated().map { index, context in
      context.addSaveObserver { save in
        #expect(save.inserted.count == 3 && save.updated.count <= 1)
        seen.withLock { $0[index].append(save.sequenceNumber) }
      }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for context in contexts {
        group.addTask {
          try await context.perform { context in
            var previous: ManagedObject?
            for round in 0..<savesPerContext {
              let company = try context.insert("Company", values: ["name": .string("C\(round)")])
              for person in 0..<2 {
                let object = try context.insert("Person", values: ["name": .string("P\(round).\(person)")])
                try company.add(object, to: "employees")
              }
              if let previous { try previous.setValue(.string("renamed \(round)"), forKey: "name") }
              previous = company
              try context.save()
            }
          }
        }
        // Churn observers from other threads while saving.
        group.addTask {
          for _ in 0..<100 {
            let token = context.addSaveObserver { _ in }
            token.cancel()
          }
        }
      }
      try await group.waitForAll()
    }
    let sequences = seen.withLock { $0 }
    for (index, sequence) in sequences.enumerated() {
      #expect(sequence == Array(1...savesPerContext), "context \(index)")
      try contexts[index].run { context throws in
        #expect(try context.objects(of: "Person").count == savesPerContext * 2)
      }
    }
    withExtendedLifetime(tokens) {}
  }
}
