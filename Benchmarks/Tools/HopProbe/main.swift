// How long a `DispatchQueue.async` hop takes on this machine, by how long
// the queue's worker thread has been idle: the floor under the watcher's
// save-to-delegate latency (issue #5), which no library code can lower.
//
//   swift run -c release HopProbe
//
// Each sample takes a timestamp, then enqueues a block that stores its own
// timestamp into an atomic the caller spins on (so the caller is never the
// one woken); the sample is the difference. The queue is a serial queue
// that targets another serial queue, as the watcher's delivery queue
// targets the delegate's. Between samples the caller sleeps for the gap,
// so the worker may go idle. 50 warm-up samples, then 3,000 (500 for the
// longest gap). Figures: docs/benchmarks.md.

import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

let received = Atomic<UInt64>(0)

func percentiles(gap: UInt32, on queue: DispatchQueue, samples: Int = 3_000) -> [UInt64] {
  var latencies: [UInt64] = []
  latencies.reserveCapacity(samples)
  for index in 0..<(samples + 50) {
    received.store(0, ordering: .relaxed)
    let start = DispatchTime.now().uptimeNanoseconds
    queue.async { received.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
    var end: UInt64 = 0
    repeat { end = received.load(ordering: .acquiring) } while end == 0
    if index >= 50 { latencies.append(end - start) }
    if gap > 0 { usleep(gap) }
  }
  latencies.sort()
  return [0, 50, 90, 99].map { latencies[min(latencies.count - 1, latencies.count * $0 / 100)] }
}

let delegateQueue = DispatchQueue(label: "delegate")
let deliveryQueue = DispatchQueue(label: "delivery", target: delegateQueue)
print("idle gap (µs) | p0 | p50 | p90 | p99 (ns)")
for gap: UInt32 in [0, 20, 100, 1_000, 10_000] {
  let figures = percentiles(gap: gap, on: deliveryQueue, samples: gap >= 10_000 ? 500 : 3_000)
  print("\(gap) | " + figures.map(String.init).joined(separator: " | "))
}
