import Foundation
import HummingbirdWSClient
import Logging
import Synchronization
import WatchFormats

/// One connection of the load: signs in, subscribes, and records, for each
/// object it receives whose `updatedAt` is newer than the last it saw of
/// that object, the time from that commit to now.
final class LoadConnection: Sendable {
  private struct State {
    var snapshots = 0
    var frames = 0
    var errors: [String] = []
    var latencies: [Double] = []
    var recording = false
    var lastSeen: [String: Double] = [:]
    var closed: String?
  }

  private let state = Mutex(State())

  var snapshots: Int { state.withLock { $0.snapshots } }
  var frames: Int { state.withLock { $0.frames } }
  var errors: [String] { state.withLock { $0.errors } }
  var closed: String? { state.withLock { $0.closed } }

  func startRecording() { state.withLock { $0.recording = true } }

  /// Stops recording and returns the latencies recorded, in seconds.
  func stopRecording() -> [Double] {
    state.withLock {
      $0.recording = false
      return $0.latencies
    }
  }

  /// Runs the connection until the task is cancelled.
  func run(url: String, token: String, subscribeFrames: [String]) async {
    do {
      let close = try await WebSocketClient.connect(
        url: url, configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "live-query-load")
      ) { inbound, outbound, _ in
        try await outbound.write(.text(#"{"op":"auth","token":"\#(token)"}"#))
        for frame in subscribeFrames { try await outbound.write(.text(frame)) }
        for try await message in inbound.messages(maxSize: 1 << 24) {
          guard case .text(let text) = message else { continue }
          self.receive(text)
        }
      }
      state.withLock { $0.closed = close.map { "\($0.closeCode): \($0.reason ?? "")" } ?? "closed" }
    } catch is CancellationError {
    } catch {
      state.withLock { $0.closed = "\(error)" }
    }
  }

  private func receive(_ text: String) {
    let now = Date().timeIntervalSinceReferenceDate
    guard let frame = try? JSONValue.parse(Array(text.utf8)), case .string(let op) = frame["op"] else { return }
    var objects: [JSONValue] = []
    switch op {
    case "snapshot":
      if case .array(let list) = frame["objects"] { objects = list }
    case "changes":
      for key in ["inserted", "moved", "updated"] {
        if case .array(let list) = frame[key] { objects += list }
      }
    case "error":
      state.withLock { $0.errors.append(text) }
      return
    default:
      return
    }
    state.withLock { state in
      state.frames += 1
      if op == "snapshot" { state.snapshots += 1 }
      for object in objects {
        guard case .string(let ref) = object["ref"] else { continue }
        let committed: Double
        switch object["values"]?["updatedAt"]?["$date"] {
        case .double(let seconds): committed = seconds
        case .int(let seconds): committed = Double(seconds)
        default: continue
        }
        if let last = state.lastSeen[ref], last >= committed { continue }
        state.lastSeen[ref] = committed
        if state.recording { state.latencies.append(now - committed) }
      }
    }
  }
}
