import ContextWatching
import Dispatch
import Foundation
import ObjectGraph
import PredicateDSL

/// `context-watch demo --saves N`: a generated workload. 10,000 people, 1,000
/// watches (city equality, age ranges, both), then N saves that each update
/// ten people; prints the saves' throughput and the latency from the start
/// of each save to the start of its delegate callback on a DispatchQueue.
enum WorkloadDemo {
  /// The numbers of saves `--saves` accepts: at least one, and at most a
  /// million, so that the latencies kept for the percentiles stay small.
  static let saveRange = 1...1_000_000

  static let cities: [FilterValue] = (0..<50).map { .string("city\($0)") }

  final class Clock: ContextWatcherDelegate, Sendable {
    let starts = LockedState<[Int: UInt64]>([:])
    let latencies = LockedState<[UInt64]>([])
    let objects = LockedState(0)

    func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
      let now = DispatchTime.now().uptimeNanoseconds
      if let start = starts.withLock({ $0[changes.sequenceNumber] }) {
        latencies.withLock { $0.append(now - start) }
      }
      objects.withLock { $0 += changes.attribution.count }
    }
  }

  static func run(saves: Int) -> Int32 {
    var random = SystemRandomNumberGenerator()
    let context = ObjectContext(schema: DemoCommand.schema, name: "workload", notificationCenter: nil)
    let clock = Clock()
    let watcher = ContextWatcher(
      context: context, target: .delegate(clock, on: .queue(DispatchQueue(label: "workload"))))
    var tokens: [WatchToken] = []
    do {
      for index in 0..<1_000 {
        let low = Int64.random(in: 0...80, using: &random)
        let token =
          switch index % 3 {
          case 0: try watcher.watch("Person", where: "name == %@", cities.randomElement(using: &random)!)
          case 1: try watcher.watch("Person", where: "age BETWEEN {%@, %@}", .int(low), .int(low + 5))
          default:
            try watcher.watch(
              "Person", where: "name == %@ AND age > %@", cities.randomElement(using: &random)!, .int(low))
          }
        tokens.append(token)
      }
      let people: [ManagedObject] = try context.performAndWait { context in
        let people = try (0..<10_000).map { _ in
          try context.insert(
            "Person",
            values: [
              "name": cities.randomElement(using: &random)!, "age": .int(Int64.random(in: 0...90, using: &random)),
            ])
        }
        try context.save()
        return people
      }
      watcher.flush()
      clock.latencies.withLock { $0 = [] }
      clock.objects.withLock { $0 = 0 }

      let start = DispatchTime.now().uptimeNanoseconds
      for _ in 0..<saves {
        try context.performAndWait { context in
          for _ in 0..<10 {
            try people.randomElement(using: &random)!.setValue(
              .int(Int64.random(in: 0...90, using: &random)), forKey: "age")
          }
          let sequence = context.sequenceNumber + 1
          clock.starts.withLock { $0[sequence] = DispatchTime.now().uptimeNanoseconds }
          try context.save()
        }
      }
      let saving = DispatchTime.now().uptimeNanoseconds - start
      watcher.flush()
      let latencies = clock.latencies.withLock { $0 }.sorted()
      func percentile(_ p: Double) -> String {
        guard !latencies.isEmpty else { return "n/a" }
        let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        return String(format: "%.1f µs", Double(value) / 1_000)
      }
      print(
        """
        workload: 10,000 people, \(watcher.watchCount) watches (name equality, age ranges, both),
                  \(saves) saves of 10 updated people each
        saves:    \(String(format: "%.0f", Double(saves) / (Double(saving) / 1e9))) saves/s, \
        \(String(format: "%.0f", Double(saves * 10) / (Double(saving) / 1e9))) changed objects/s \
        (watching included)
        delivered: \(latencies.count) deliveries, \(clock.objects.withLock { $0 }) objects
        latency from save to delegate callback: p50 \(percentile(0.5)), p99 \(percentile(0.99)), \
        max \(latencies.last.map { String(format: "%.1f µs", Double($0) / 1_000) } ?? "n/a")
        """)
    } catch {
      Console.error("demo failed: \(error)")
      return 1
    }
    withExtendedLifetime(tokens) {}
    return 0
  }
}
