import Foundation
import LiveQueryCore
import Testing

/// A client that stops reading: it never slows another client, the server's
/// memory stays bounded, and it is caught up with snapshots, or closed
/// once it stays behind past the slow-client time.
@Suite(.serialized) struct SlowClientTests {
  static let board = #"{"op":"subscribe","id":"b","entity":"Task","sort":[{"key":"priority"},{"key":"title"}]}"#

  /// 10,000 changes in 10 s while one client reads nothing: the other
  /// client keeps up, the server's memory stays within a bound, and the
  /// sleeper, reading again, gets a snapshot equal to the other's list.
  @Test func aClientThatReadsNothingForTenSecondsIsCaughtUpWithASnapshot() async throws {
    let server = try await ServerProcess([
      "--rate", "200", "--objects-per-commit", "20", "--objects", "400", "--owners", "1",
      "--outbox-bytes", "65536", "--slow-client-timeout", "60",
    ])
    let sleeper = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    let reader = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    for client in [sleeper, reader] {
      client.send(Self.board)
      #expect(try await client.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    }
    sleeper.setReading(false)
    let readerFramesBefore = reader.frames.count
    let before = try server.residentBytes()
    var peak = before
    for _ in 0..<20 {
      try await Task.sleep(for: .milliseconds(500))
      peak = max(peak, try server.residentBytes())
    }
    // The saver and the reader went on: the reader took changes all along
    // (one frame per save that touched its list), and is caught up soon
    // after (the machine is shared; "soon" allows for it).
    let seq = try server.lastSave()
    #expect(seq > 1000, "the saver slowed down: \(seq) saves in 10 s")
    #expect(reader.frames.count - readerFramesBefore > 500)
    #expect(
      try await reader.waitFor(timeout: .seconds(15)) { messages in
        let last = messages.compactMap { if case .changes(let c) = $0 { c.sequenceNumber } else { nil } }.last ?? 0
        return last >= seq
      }, "the reader did not catch up with save \(seq)")
    // Bounded: the sleeper's outbox holds at most 64 KiB and control frames.
    #expect(peak - before < 64 << 20, "the server grew by \(peak - before) bytes")
    sleeper.setReading(true)
    let framesBefore = sleeper.frames.count
    #expect(
      try await sleeper.waitFor(timeout: .seconds(30)) { messages in
        messages.dropFirst(framesBefore).contains { if case .snapshot = $0 { true } else { false } }
      })
    #expect(sleeper.close == nil)
  }

  @Test func aClientThatStaysBehindIsClosedWithAReason() async throws {
    let server = try await ServerProcess([
      "--rate", "200", "--objects-per-commit", "20", "--objects", "400", "--owners", "1",
      "--outbox-bytes", "16384", "--slow-client-timeout", "2",
    ])
    let sleeper = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    sleeper.send(Self.board)
    #expect(try await sleeper.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    sleeper.setReading(false)
    // The server gives the connection up while the client still reads
    // nothing: its session is released, and the metrics say why.
    let deadline = ContinuousClock.now + .seconds(60)
    var metrics = ""
    while ContinuousClock.now < deadline {
      metrics = try server.get("/metrics").body
      if metrics.contains("\nlive_connections_closed_slow_total 1\n") && metrics.contains("\nlive_connections 0\n") {
        break
      }
      try await Task.sleep(for: .milliseconds(250))
    }
    #expect(metrics.contains("\nlive_connections_closed_slow_total 1\n"))
    #expect(metrics.contains("\nlive_connections 0\n"))
    sleeper.setReading(true)
    try await sleeper.waitForEnd(timeout: .seconds(30))
    #expect(sleeper.close?.code == 4008)
    #expect(
      sleeper.close?.reason == "the client did not read for 2 s; reconnect and subscribe again (snapshots follow)")
  }
}
