import Dispatch
import LiveQueryCore
import Synchronization

/// The server's counters, for `/metrics` in Prometheus' text format.
///
/// Commit-to-send latency: a save observer registered before any watcher
/// notes each save's time (``noteSave(_:)``), and a connection observes,
/// for each `changes` or `event` frame, the time from its save until the
/// socket took the batch it was written in.
/// The notes are a ring of the last ``savesRemembered`` saves, so memory
/// stays bounded.
final class LiveMetrics: Sendable {
  static let savesRemembered = 4096

  private struct State {
    var connections = 0
    var connectionsOpened = 0
    var closedSlow = 0
    var refusedTokens = 0
    var framesSent = 0
    var bytesSent = 0
    var framesReceived = 0
    var latency = LatencyHistogram()
    var lastSave = 0
    /// Save times by `sequenceNumber % savesRemembered`, with the number.
    var saves = [(sequenceNumber: Int, nanoseconds: UInt64)](
      repeating: (-1, 0), count: LiveMetrics.savesRemembered)
  }

  private let state = Mutex(State())

  func noteSave(_ sequenceNumber: Int) {
    let now = Self.now()
    state.withLock {
      $0.saves[sequenceNumber % Self.savesRemembered] = (sequenceNumber, now)
      $0.lastSave = max($0.lastSave, sequenceNumber)
    }
  }

  /// The last save noted (0 before the first).
  var lastSave: Int { state.withLock { $0.lastSave } }

  func connectionOpened() {
    state.withLock {
      $0.connections += 1
      $0.connectionsOpened += 1
    }
  }

  func connectionClosed(slow: Bool) {
    state.withLock {
      $0.connections -= 1
      if slow { $0.closedSlow += 1 }
    }
  }

  func tokenRefused() { state.withLock { $0.refusedTokens += 1 } }

  func received() { state.withLock { $0.framesReceived += 1 } }

  /// Counts a batch of frames written, and the latency of the saves they
  /// carry, under one lock.
  func sent(_ frames: [LiveOutbox.Frame]) {
    let now = Self.now()
    state.withLock { state in
      for frame in frames {
        state.framesSent += 1
        state.bytesSent += frame.text.utf8.count
        guard let save = frame.save else { continue }
        let note = state.saves[save % Self.savesRemembered]
        guard note.sequenceNumber == save, now >= note.nanoseconds else { continue }
        state.latency.observe(Double(now - note.nanoseconds) / 1e9)
      }
    }
  }

  /// The text `/metrics` serves.
  func render(subscriptions: Int, bufferedBytes: Int, replicaLagBytes: Int?) -> String {
    let state = state.withLock { $0 }
    var lines: [String] = []
    func metric(_ name: String, _ type: String, _ help: String, _ value: Int) {
      lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
    }
    metric("live_connections", "gauge", "Open WebSocket connections.", state.connections)
    metric("live_connections_opened_total", "counter", "WebSocket connections accepted.", state.connectionsOpened)
    metric(
      "live_connections_closed_slow_total", "counter", "Connections closed for staying behind.", state.closedSlow)
    metric("live_tokens_refused_total", "counter", "Connections refused for their token.", state.refusedTokens)
    metric("live_subscriptions", "gauge", "Subscriptions and watches of the open connections.", subscriptions)
    metric("live_frames_sent_total", "counter", "Frames written to clients.", state.framesSent)
    metric("live_bytes_sent_total", "counter", "Bytes of frames written to clients.", state.bytesSent)
    metric("live_frames_received_total", "counter", "Frames read from clients.", state.framesReceived)
    metric("live_buffered_bytes", "gauge", "Bytes waiting in the connections' outboxes.", bufferedBytes)
    if let replicaLagBytes {
      metric(
        "live_replica_lag_bytes", "gauge", "Bytes of WAL between the server's end and the replica.", replicaLagBytes)
    }
    if let usage = ProcessUsage.read() {
      lines += [
        "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
        "# TYPE process_cpu_seconds_total counter", "process_cpu_seconds_total \(usage.cpuSeconds)",
        "# HELP process_resident_memory_bytes Resident memory size in bytes.",
        "# TYPE process_resident_memory_bytes gauge", "process_resident_memory_bytes \(usage.residentBytes)",
      ]
    }
    lines += [
      "# HELP live_commit_to_send_seconds From a save to the write of a frame that carries it.",
      "# TYPE live_commit_to_send_seconds histogram",
    ]
    lines += state.latency.lines(name: "live_commit_to_send_seconds")
    return lines.joined(separator: "\n") + "\n"
  }

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
