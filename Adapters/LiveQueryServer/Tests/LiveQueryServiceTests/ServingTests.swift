import Foundation
import LiveQueryCore
import Testing
import WatchFormats

/// The server as its clients meet it: subscriptions over a socket, health
/// and metrics, limits, shutdown.
@Suite(.serialized) struct ServingTests {
  static let board =
    #"{"op":"subscribe","id":"b","entity":"Task","sort":[{"key":"status"},{"key":"priority"},{"key":"title"}],"section":"status"}"#

  @Test func aSubscriptionGetsASnapshotThenChangesOfItsOwnRowsOnly() async throws {
    let server = try await ServerProcess(["--rate", "40", "--owners", "3", "--seed", "7"])
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u2"))
    client.send(Self.board)
    #expect(
      try await client.waitFor { messages in
        messages.filter { if case .changes = $0 { true } else { false } }.count >= 10
      })
    var owners: Set<String> = []
    func note(_ object: LiveObject) {
      if case .string(let owner) = object.values?["owner"] { owners.insert(owner) } else { owners.insert("?") }
    }
    for message in client.messages {
      switch message {
      case .snapshot(let snapshot): snapshot.objects.forEach(note)
      case .changes(let changes):
        (changes.inserted + changes.updated).forEach { note($0.object) }
        changes.moved.forEach { note($0.object) }
      default: break
      }
    }
    #expect(owners == ["u2"])
    // No secret reaches a user.
    #expect(!client.frames.contains { $0.contains("secret") })
  }

  @Test func healthAndMetricsReportTheServer() async throws {
    let server = try await ServerProcess(["--rate", "40"])
    let health = try server.get("/health")
    #expect(health.status == 200)
    #expect(health.body.hasPrefix(#"{"status":"ok","seq":"#))
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    client.send(Self.board)
    client.send(#"{"op":"watch","id":"w","entity":"Task"}"#)
    #expect(try await client.waitFor { $0.filter { if case .changes = $0 { true } else { false } }.count >= 3 })
    let metrics = try server.get("/metrics").body
    #expect(metrics.contains("\nlive_connections 1\n"))
    #expect(metrics.contains("\nlive_subscriptions 2\n"))
    #expect(metrics.contains("# TYPE live_commit_to_send_seconds histogram"))
    let count = metrics.split(separator: "\n").first { $0.hasPrefix("live_commit_to_send_seconds_count ") }
    #expect((count?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= 3)
  }

  @Test func anOversizedFrameIsRefusedAndTheConnectionGoesOn() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    client.send(#"{"op":"ping","id":"\#(String(repeating: "x", count: 70_000))"}"#)
    client.send(#"{"op":"ping","id":"after"}"#)
    #expect(try await client.waitFor { $0.contains(.pong(id: "after")) })
    let refusal = client.messages.first { if case .error = $0 { true } else { false } }
    #expect(
      refusal
        == .error(
          LiveError(
            id: nil, code: .frameTooLarge, message: "the frame has more than 65536 bytes, the most a frame may have")))
  }

  @Test func sigtermClosesEveryConnectionWithAReasonAndExits() async throws {
    let server = try await ServerProcess(["--rate", "20"])
    let clients = [
      LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1")),
      LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u2")),
    ]
    for client in clients {
      client.send(Self.board)
      #expect(try await client.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    }
    #expect(try await server.terminate() == 0)
    for client in clients {
      try await client.waitForEnd(timeout: .seconds(10))
      #expect(client.close?.code == 1001)
      #expect(client.close?.reason == "the server is shutting down; reconnect")
    }
  }
}
