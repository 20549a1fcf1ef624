import ContextWatching
import Dispatch
import Foundation
import HummingbirdWebSocket
import LiveQueryCore
import Logging
import NIOCore
import NIOWebSocket
import ObjectGraph
import PredicateDSL
import Synchronization
import WatchFormats

/// One client's WebSocket: authenticates it, runs its ``LiveSession``, and
/// moves frames both ways until the client leaves or the server closes it.
///
/// Four tasks share the connection: the reader hands the client's frames
/// to the session, pausing while the outbox is full (so a client that
/// does not read cannot make the server answer without end); the writer
/// waits for the end of the ``FrameSender``, which drains the outbox on the
/// channel's event loop whenever frames arrive in it; the watchdog closes
/// a client that has not taken a write for the slow-client time; the
/// expiry closes the connection when the token expires. The first to end
/// ends the others.
struct LiveConnection: Sendable {
  let server: LiveServerState
  let logger: Logger
  /// The WebSocket's channel: the session's frames are written to it on
  /// its event loop, in batches.
  let channel: any Channel

  func run(
    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, authorization: String?
  ) async throws {
    var frames = inbound.makeAsyncIterator()
    let token: VerifiedToken
    let resume: ResumeRequest?
    do {
      (token, resume) = try await authenticate(authorization: authorization, frames: &frames)
    } catch {
      server.metrics.tokenRefused()
      logger.info("refused a connection", metadata: ["reason": "\(error.reason)"])
      if authorization != nil {
        // Refused from the header, before the client sent anything: a close
        // frame in the same packet as the upgrade's response can be lost by
        // a client still switching protocols, so it follows a moment later.
        try? await Task.sleep(for: .milliseconds(100))
      }
      try await close(outbound, error)
      return
    }
    // A session parked by a lost connection of the same user, or a new one.
    let resumed = resume.flatMap { server.connections.resume($0.session, claims: token.claims) }
    let session =
      resumed?.session
      ?? LiveSession(
        context: server.context, watcher: server.watcher, policy: server.policy, claims: token.claims,
        refs: server.refs, limits: server.limits, pollingInterval: server.configuration.pollingInterval)
    let replay = resumed?.replay ?? ReplayLog(limit: server.configuration.replayBytes)
    let sessionID = resumed != nil ? resume!.session : Self.newSessionID()
    let subject = token.claims["sub"].map { "\($0)" } ?? "-"
    var logger = logger
    logger[metadataKey: "sub"] = "\(subject)"
    server.metrics.connectionOpened()
    logger.info(resumed != nil ? "connection resumed a session" : "connection opened")
    // The channel counts as unwritable while any byte of a batch waits:
    // the WebSocket's own writes (the close frame) then wait behind the
    // batch, outside the channel, as they did behind frames written one at
    // a time, instead of being queued in the channel of a client that may
    // never read.
    _ = try? await channel.setOption(
      ChannelOptions.writeBufferWaterMark, value: ChannelOptions.Types.WriteBufferWaterMark(low: 1, high: 1)
    ).get()
    let writes = WriteClock()
    // Ends the writer: a failed write (its error), or a reason to close
    // from outside (shutdown), which finishes the stream.
    let (stopped, stop) = AsyncStream.makeStream(of: (any Error).self)
    let sender = FrameSender(
      channel: channel, session: session, writes: writes, replay: replay, metrics: server.metrics
    ) { error in
      stop.yield(error)
      stop.finish()
    }
    let ending = EndingReason()
    server.connections.add(session) { reason in
      ending.set(reason)
      stop.finish()
    }
    let reason: CloseReason?
    do {
      try await outbound.write(
        .text(
          ServerMessage.ready(sequenceNumber: server.metrics.lastSave, session: sessionID, resumed: resumed != nil)
            .text))
      if resumed != nil, let resume {
        // The frames the client may have missed, from the log; a fresh
        // snapshot for what the log no longer holds. Then what waited in
        // the outbox while the client was away.
        let plan = replay.plan(positions: resume.positions, live: session.subscriptionIDs)
        session.resynchronize(plan.resynchronize)
        for text in plan.resend { try await outbound.write(.text(text)) }
      }
      // The outbox rings on the session's queue when a frame arrives in it
      // empty. The ring is queued behind the deliveries already waiting
      // there (the other lists' changes of the same save), so that they go
      // to the event loop, and to the socket, in one batch. A frame that
      // fills the outbox alone (a large snapshot) is sent at once instead:
      // behind it, the next change would find the outbox full and drop it.
      let queue = session.queue
      session.outbox.onFrames { [weak outbox = session.outbox] in
        if outbox?.acceptsRequests ?? false {
          queue.async { sender.ring() }
        } else {
          sender.ring()
        }
      }
      // Only now may the sender write: its frames follow `ready` and what
      // the log sent again. Those that arrived before wait in the outbox.
      sender.ring()
      reason = try await withThrowingTaskGroup(of: CloseReason?.self) { group in
        let iterator = Transfer(frames)
        group.addTask { try await read(iterator.take(), into: session) }
        group.addTask {
          for await error in stopped { throw error }
          return ending.reason ?? .shuttingDown
        }
        group.addTask { try await watch(writes) }
        if let expiresAt = token.expiresAt {
          group.addTask { try await expire(at: expiresAt) }
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
      }
    } catch is CancellationError {
      reason = nil
    } catch {
      logger.debug("connection failed", metadata: ["error": "\(error)"])
      reason = nil
    }
    // Nothing more is written but the close frame; frames the session
    // adds from now on wait in its outbox (for a resume) or go with it.
    session.outbox.onFrames {}
    await sender.stop()
    server.connections.remove(session)
    server.metrics.connectionClosed(slow: reason?.code == 4008)
    // A client that went away may come back: its session waits, still
    // subscribed, for the resume window.
    let window = server.configuration.resumeWindow
    if reason == nil, window > .zero {
      server.connections.park(
        LiveConnections.Parked(session: session, replay: replay, claims: token.claims), id: sessionID, window: window)
    } else {
      session.close()
    }
    logger.info("connection closed", metadata: ["code": "\(reason?.code ?? 1000)"])
    if let reason { try? await close(outbound, reason, limit: reason.code == 4008 ? .seconds(1) : .seconds(5)) }
  }

  /// The token from the `Authorization` header, or else from the first
  /// frame, which must then be `{"op":"auth","token":"…"}` and arrive
  /// within the server's authentication time.
  private func authenticate(
    authorization: String?, frames: inout WebSocketInboundStream.AsyncIterator
  ) async throws(CloseReason) -> (VerifiedToken, ResumeRequest?) {
    if let authorization {
      guard authorization.lowercased().hasPrefix("bearer ") else {
        throw .tokenRefused(TokenRefusal(.invalid, message: "the Authorization header is not 'Bearer <token>'"))
      }
      do {
        return (try await server.verifier.verify(String(authorization.dropFirst(7))), nil)
      } catch {
        throw .tokenRefused(error)
      }
    }
    let text: String
    do {
      text = try await firstFrame(&frames)
    } catch let reason as CloseReason {
      throw reason
    } catch {
      throw .authenticateFirst("the connection ended before an auth frame")
    }
    let token: String
    let resume: ResumeRequest?
    switch try? JSONValue.parse(Array(text.utf8)) {
    case .some(let value):
      guard case .string("auth") = value["op"] else {
        throw .authenticateFirst("the first frame is not an auth frame")
      }
      guard case .string(let found) = value["token"] else {
        throw .authenticateFirst("the auth frame has no \"token\" string")
      }
      token = found
      resume = try ResumeRequest(value["resume"])
    case nil:
      throw .authenticateFirst("the first frame is not JSON")
    }
    do {
      return (try await server.verifier.verify(token), resume)
    } catch {
      throw .tokenRefused(error)
    }
  }

  /// The first text message, within the authentication time.
  private func firstFrame(_ frames: inout WebSocketInboundStream.AsyncIterator) async throws -> String {
    let limit = server.configuration.authenticationTimeout
    let iterator = Transfer(frames)
    let message = try await withThrowingTaskGroup(of: (String?, Transfer<WebSocketInboundStream.AsyncIterator>?).self) {
      group in
      group.addTask {
        var reader = iterator.take()
        var assembler = FrameAssembler(limit: 16 * 1024)
        while let frame = try await reader.next() {
          switch assembler.add(frame) {
          case .message(let text): return (text, Transfer(reader))
          case .oversized: throw CloseReason.authenticateFirst("the first frame is too large")
          case .partial: continue
          }
        }
        return (nil, nil)
      }
      group.addTask {
        try await Task.sleep(for: limit)
        throw CloseReason.authenticateFirst("no auth frame within \(CloseReason.seconds(limit)) s")
      }
      let first = try await group.next()!
      group.cancelAll()
      return first
    }
    guard let text = message.0, let rest = message.1 else {
      throw CloseReason.authenticateFirst("the connection ended before an auth frame")
    }
    frames = rest.take()
    return text
  }

  /// Reads the client's frames into the session until the client closes.
  /// (`@concurrent`: the iterator, which is not `Sendable`, is this task's
  /// alone, and its `next()` runs on the global executor too.)
  @concurrent private func read(
    _ frames: WebSocketInboundStream.AsyncIterator, into session: LiveSession
  ) async throws -> CloseReason? {
    var frames = frames
    var assembler = FrameAssembler(limit: server.limits.maximumFrameBytes)
    while let frame = try await frames.next() {
      switch assembler.add(frame) {
      case .partial: continue
      case .oversized:
        server.metrics.received()
        session.receiveOversizedFrame()
      case .message(let text):
        server.metrics.received()
        // Backpressure: no request is read while the outbox is at its
        // bound; the client must read first.
        while !session.outbox.acceptsRequests { try await Task.sleep(for: .milliseconds(5)) }
        session.receive(text)
      }
    }
    return nil
  }

  /// Closes a client one of whose writes has waited longer than the
  /// slow-client time: its socket took nothing for that long. (Its outbox
  /// stays bounded meanwhile: the session drops what does not fit.)
  private func watch(_ writes: WriteClock) async throws -> CloseReason? {
    let timeout = server.configuration.slowClientTimeout
    let nanoseconds =
      UInt64(timeout.components.seconds) * 1_000_000_000
      + UInt64(timeout.components.attoseconds / 1_000_000_000)
    // Wakes when the write in progress, if it goes on stalling, would
    // pass the limit (a whole limit from now between writes): once per
    // slow-client time on a healthy connection, and as soon as a stalled
    // client passes the limit.
    var stalled: UInt64 = 0
    while true {
      try await Task.sleep(for: .nanoseconds(Int64(nanoseconds - stalled) + 1_000_000))
      stalled = writes.stalled
      if stalled > nanoseconds { return .tooSlow(seconds: CloseReason.seconds(timeout)) }
    }
  }

  private func expire(at date: Date) async throws -> CloseReason? {
    try await Task.sleep(for: .seconds(max(0, date.timeIntervalSinceNow)))
    return .tokenExpired(
      TokenRefusal(.expired, message: "the token expired at \(TokenClaims.format(date)); sign in again"))
  }

  /// Sends a close frame. With `limit`, gives up after it: a client that
  /// does not read may never take the frame. Without, waits for the write:
  /// before the session starts nothing else is waiting in the socket, and
  /// a close cut short could leave the client without its reason.
  private func close(
    _ outbound: WebSocketOutboundWriter, _ reason: CloseReason, limit: Duration? = nil
  ) async throws {
    var text = reason.reason
    // A close frame's reason holds at most 123 bytes.
    while text.utf8.count > 123 { text.removeLast() }
    let reasonText = text
    guard let limit else {
      try await outbound.close(reason.errorCode, reason: reasonText)
      return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await outbound.close(reason.errorCode, reason: reasonText) }
      group.addTask { try await Task.sleep(for: limit) }
      _ = try await group.next()
      group.cancelAll()
    }
  }
}

/// When the write in progress started, shared by the writer and the
/// watchdog: a write waits only while the client's socket takes nothing,
/// so a long one means a client that does not read.
final class WriteClock: Sendable {
  /// The start of the write in progress; 0 between writes.
  private let started = Atomic<UInt64>(0)

  func begin() { started.store(LiveMetrics.now(), ordering: .relaxed) }

  func end() { started.store(0, ordering: .relaxed) }

  /// Nanoseconds the write in progress has waited; 0 between writes.
  var stalled: UInt64 {
    let started = started.load(ordering: .relaxed)
    return started == 0 ? 0 : LiveMetrics.now() &- started
  }
}

extension LiveConnection {
  /// A new session's id: 128 random bits in hexadecimal, not guessable.
  static func newSessionID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }.joined()
  }
}

/// What an `auth` frame's `resume` asks: the session to resume, and the
/// last `seq` the client saw of each of its subscriptions and watches.
struct ResumeRequest {
  var session: String
  var positions: [String: Int]

  /// Reads `{"session": "…", "seqs": {"id": 41, …}}`; nil when absent.
  ///
  /// - Throws: ``CloseReason`` when it is there but malformed.
  init?(_ value: JSONValue?) throws(CloseReason) {
    guard let value, value != .null else { return nil }
    guard case .string(let session) = value["session"] else {
      throw .authenticateFirst("the auth frame's \"resume\" has no \"session\" string")
    }
    var positions: [String: Int] = [:]
    switch value["seqs"] {
    case nil: break
    case .object(let members)?:
      for (id, seq) in members {
        guard case .int(let number) = seq, let position = Int(exactly: number) else {
          throw .authenticateFirst("the auth frame's \"resume\".seqs.\(id) is not an integer")
        }
        positions[id] = position
      }
    default:
      throw .authenticateFirst("the auth frame's \"resume\".seqs is not an object of integers")
    }
    self.session = session
    self.positions = positions
  }
}

/// The reason a connection was asked to close from outside, if it was.
final class EndingReason: Sendable {
  private let value = Mutex<CloseReason?>(nil)

  func set(_ reason: CloseReason) { value.withLock { $0 = reason } }

  var reason: CloseReason? { value.withLock { $0 } }
}

/// Moves a value that is not `Sendable` into a child task that alone uses
/// it from then on.
struct Transfer<Value>: @unchecked Sendable {
  // @unchecked Sendable: the value is taken once, by the one task it is
  // handed to; the task that made the transfer no longer touches it.
  private let value: Value
  init(_ value: Value) { self.value = value }
  func take() -> Value { value }
}
