import Foundation
import LiveQueryCore
import Testing
import WatchFormats

/// The load tool against a server process, small: it measures what it
/// says, and the polling baseline serves the same subscriptions with
/// whole snapshots.
@Suite(.serialized) struct LoadToolTests {
  static var loadExecutable: URL { ServerProcess.buildDirectory.appendingPathComponent("live-query-load") }

  /// Runs `live-query-load` against `server` and returns its figures.
  static func load(_ server: ServerProcess, _ arguments: [String]) throws -> JSONValue {
    let process = Process()
    process.executableURL = loadExecutable
    process.arguments = ["--port", String(server.port), "--secret-env", "LIVE_TEST_SECRET"] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["LIVE_TEST_SECRET": ServerProcess.secret, "SWIFT_BACKTRACE": "enable=no"]) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw ServerProcessError(message: "live-query-load exited \(process.terminationStatus): \(problems)")
    }
    return try JSONValue.parse(Array(data))
  }

  static func number(_ figures: JSONValue, _ key: String) -> Double {
    switch figures[key] {
    case .int(let value): Double(value)
    case .double(let value): value
    default: .nan
    }
  }

  @Test func theLoadToolMeasuresLatencyAndTheServer() async throws {
    let server = try await ServerProcess([
      "--rate", "100", "--owners", "10", "--priorities", "100", "--objects", "500",
    ])
    let figures = try Self.load(
      server,
      [
        "--connections", "10", "--subscriptions", "100", "--owners", "10", "--priorities", "100", "--seconds", "2",
        "--warmup", "0.5",
      ])
    #expect(figures["subscriptions"] == .int(100))
    #expect(Self.number(figures, "changes_timed") > 10)
    let p50 = Self.number(figures, "p50_ms")
    let p99 = Self.number(figures, "p99_ms")
    #expect(p50 > 0 && p50 <= p99 && p99 < 1000, "\(figures.serialized)")
    #expect(Self.number(figures, "server_cpu_cores") > 0)
    #expect(Self.number(figures, "server_rss_mb") > 1)
  }

  @Test func thePollingBaselineSendsWholeSnapshotsWhenAListChanges() async throws {
    let server = try await ServerProcess(["--rate", "50", "--owners", "1", "--poll-interval", "0.2"])
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    client.send(#"{"op":"subscribe","id":"p","entity":"Task","sort":[{"key":"priority"},{"key":"title"}]}"#)
    #expect(
      try await client.waitFor { $0.filter { if case .snapshot = $0 { true } else { false } }.count >= 3 })
    #expect(!client.messages.contains { if case .changes = $0 { true } else { false } })
    client.send(#"{"op":"update","id":"p","limit":3}"#)
    #expect(
      try await client.waitFor {
        $0.contains(
          .error(LiveError(id: "p", code: .invalidRequest, message: "the polling baseline does not serve update")))
      })
    #expect(try server.get("/metrics").body.contains("\nlive_subscriptions 1\n"))
  }
}
