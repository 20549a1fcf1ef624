import Foundation
import LiveQueryCore
import LiveQueryTestSupport
import Testing

/// A connection lost and resumed: the client gets the changes it missed
/// when the server still has them, otherwise fresh snapshots, and never a
/// gap: its list, rebuilt from everything both connections received,
/// equals a fresh snapshot.
@Suite(.serialized) struct ResumeTests {
  static let board =
    #"{"op":"subscribe","id":"b","entity":"Task","sort":[{"key":"status"},{"key":"priority"},{"key":"title"}],"section":"status"}"#

  static func session(_ client: LiveClient) -> String? {
    for message in client.messages {
      if case .ready(_, let session, _) = message { return session }
    }
    return nil
  }

  static func resumed(_ client: LiveClient) -> Bool? {
    for message in client.messages {
      if case .ready(_, _, let resumed) = message { return resumed }
    }
    return nil
  }

  /// The last `seq` of subscription `id` among `messages`.
  static func lastSeq(_ id: String, _ messages: [ServerMessage]) -> Int {
    var last = -1
    for message in messages {
      switch message {
      case .snapshot(let snapshot) where snapshot.id == id: last = snapshot.sequenceNumber
      case .changes(let changes) where changes.id == id: last = changes.sequenceNumber
      default: break
      }
    }
    return last
  }

  static func mirror(of messages: [ServerMessage]) -> ClientMirror? {
    var mirror: ClientMirror?
    for message in messages {
      switch message {
      case .snapshot(let snapshot) where snapshot.id == "b": mirror = ClientMirror(snapshot)
      case .changes(let changes) where changes.id == "b": mirror?.apply(changes)
      default: break
      }
    }
    return mirror
  }

  /// Waits for the writer's last commit, then compares the rebuilt list
  /// with a fresh snapshot.
  static func expectConsistent(
    _ server: ServerProcess, commits: Int, _ messages: @escaping () -> [ServerMessage]
  )
    async throws
  {
    try await server.waitForSave(commits + 1)
    let fresh = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    fresh.send(board)
    try await fresh.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } }
    let expected = mirror(of: fresh.messages)
    var rebuilt = mirror(of: messages())
    for _ in 0..<50 where rebuilt?.rows != expected?.rows {
      try await Task.sleep(for: .milliseconds(100))
      rebuilt = mirror(of: messages())
    }
    #expect(rebuilt?.rows == expected?.rows, "\(rebuilt?.description ?? "none") vs \(expected?.description ?? "none")")
  }

  @Test func aLostConnectionResumesWithTheChangesItMissed() async throws {
    let server = try await ServerProcess(["--rate", "40", "--commits", "400", "--owners", "1", "--seed", "3"])
    let token = try await TestTokens.token(sub: "u1")
    let first = LiveClient(url: server.webSocketURL)
    first.sendAuth(token)
    first.send(Self.board)
    #expect(try await first.waitFor { $0.filter { if case .changes = $0 { true } else { false } }.count >= 5 })
    first.disconnect()
    try await first.waitForEnd()
    let seen = first.messages
    let session = try #require(Self.session(first))
    try await Task.sleep(for: .seconds(1))
    let second = LiveClient(url: server.webSocketURL)
    second.send(
      #"{"op":"auth","token":"\#(token)","resume":{"session":"\#(session)","seqs":{"b":\#(Self.lastSeq("b", seen))}}}"#)
    #expect(try await second.waitFor { _ in Self.resumed(second) != nil })
    #expect(Self.resumed(second) == true)
    #expect(Self.session(second) == session)
    try await Self.expectConsistent(server, commits: 400) { seen + second.messages }
    // `ready` first, then the frames sent again and the live ones, in order.
    guard case .ready = second.messages.first else {
      Issue.record("the first frame after the resume is not ready: \(String(describing: second.messages.first))")
      return
    }
    let positions = second.messages.compactMap { if case .changes(let c) = $0 { c.sequenceNumber } else { nil } }
    #expect(positions == positions.sorted(), "\(positions)")
    #expect(positions.first.map { $0 > Self.lastSeq("b", seen) } ?? false)
    // The changes it missed, not a snapshot.
    #expect(!second.messages.contains { if case .snapshot = $0 { true } else { false } })
    #expect(second.messages.contains { if case .changes = $0 { true } else { false } })
  }

  @Test func aClientThatMissedMoreThanTheLogGetsASnapshot() async throws {
    let server = try await ServerProcess([
      "--rate", "100", "--commits", "300", "--objects-per-commit", "3", "--owners", "1", "--seed", "4",
      "--replay-bytes", "2048",
    ])
    let token = try await TestTokens.token(sub: "u1")
    let first = LiveClient(url: server.webSocketURL)
    first.sendAuth(token)
    first.send(Self.board)
    #expect(try await first.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    // Frames the client never reads are lost with the connection.
    first.setReading(false)
    try await Task.sleep(for: .seconds(1))
    let seen = first.messages
    let session = try #require(Self.session(first))
    first.disconnect()
    try await first.waitForEnd()
    let second = LiveClient(url: server.webSocketURL)
    second.send(
      #"{"op":"auth","token":"\#(token)","resume":{"session":"\#(session)","seqs":{"b":\#(Self.lastSeq("b", seen))}}}"#)
    #expect(try await second.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    #expect(Self.resumed(second) == true)
    try await Self.expectConsistent(server, commits: 300) { seen + second.messages }
  }

  @Test func aResumeTooLateOrByAnotherUserStartsAFreshSession() async throws {
    let server = try await ServerProcess(["--rate", "20", "--owners", "2", "--resume-window", "0.5"])
    let first = LiveClient(url: server.webSocketURL)
    first.sendAuth(try await TestTokens.token(sub: "u1"))
    first.send(Self.board)
    #expect(try await first.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } })
    let session = try #require(Self.session(first))
    first.disconnect()
    try await first.waitForEnd()
    // Another user, within the window: not theirs to resume.
    let other = LiveClient(url: server.webSocketURL)
    other.send(#"{"op":"auth","token":"\#(try await TestTokens.token(sub: "u2"))","resume":{"session":"\#(session)"}}"#)
    #expect(try await other.waitFor { _ in Self.resumed(other) != nil })
    #expect(Self.resumed(other) == false)
    #expect(Self.session(other) != session)
    try await Task.sleep(for: .seconds(1.5))
    let late = LiveClient(url: server.webSocketURL)
    late.send(#"{"op":"auth","token":"\#(try await TestTokens.token(sub: "u1"))","resume":{"session":"\#(session)"}}"#)
    #expect(try await late.waitFor { _ in Self.resumed(late) != nil })
    #expect(Self.resumed(late) == false)
    #expect(try server.get("/metrics").body.contains("\nlive_subscriptions 0\n"))
  }
}
