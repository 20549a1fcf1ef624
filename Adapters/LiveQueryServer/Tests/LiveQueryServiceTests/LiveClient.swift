import Foundation
import HTTPTypes
import HummingbirdWSClient
import LiveQueryCore
import Logging
import NIOWebSocket
import Synchronization

/// A WebSocket client of the server for tests, in the test process: the
/// server is another process. It collects the text frames it receives, can
/// stop reading (a slow client), and reports the close frame it got.
final class LiveClient: Sendable {
  private struct State {
    var frames: [String] = []
    var close: (code: Int, reason: String)?
    var ended = false
    var failure: String?
  }

  private let state = Locked(State())
  private let outgoing: AsyncStream<String>.Continuation
  private let reading = Locked(true)
  private let task: Task<Void, Never>

  /// Connects to `url`, with an `Authorization: Bearer` header when
  /// `bearer` is given, or the `authorization` header as it is.
  init(url: String, bearer: String? = nil, authorization: String? = nil) {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    outgoing = continuation
    var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
    if let bearer { configuration.additionalHeaders[.authorization] = "Bearer \(bearer)" }
    if let authorization { configuration.additionalHeaders[.authorization] = authorization }
    let state = state
    let reading = reading
    task = Task {
      do {
        let close = try await WebSocketClient.connect(
          url: url, configuration: configuration, logger: Logger(label: "test-client")
        ) { inbound, outbound, _ in
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              for await text in stream { try await outbound.write(.text(text)) }
            }
            var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
            while true {
              while !reading.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
              guard let message = try await messages.next() else { break }
              if case .text(let text) = message { state.withLock { $0.frames.append(text) } }
            }
            group.cancelAll()
          }
        }
        state.withLock {
          if let close { $0.close = (Int(UInt16(webSocketErrorCode: close.closeCode)), close.reason ?? "") }
          $0.ended = true
        }
      } catch {
        state.withLock {
          $0.failure = "\(error)"
          $0.ended = true
        }
      }
    }
  }

  deinit {
    outgoing.finish()
    task.cancel()
  }

  func send(_ text: String) { outgoing.yield(text) }

  func sendAuth(_ token: String) { send(#"{"op":"auth","token":"\#(token)"}"#) }

  /// Stops or resumes reading frames (the server's writes then back up).
  func setReading(_ on: Bool) { reading.withLock { $0 = on } }

  /// Ends the connection from the client's side.
  func disconnect() {
    outgoing.finish()
    task.cancel()
  }

  var frames: [String] { state.withLock { $0.frames } }
  var messages: [ServerMessage] { frames.compactMap { try? ServerMessage.parse($0) } }
  var close: (code: Int, reason: String)? { state.withLock { $0.close } }
  var ended: Bool { state.withLock { $0.ended } }
  var failure: String? { state.withLock { $0.failure } }

  /// Waits until `condition` holds of the frames received, at most
  /// `timeout`; returns whether it did.
  @discardableResult
  func waitFor(
    timeout: Duration = .seconds(30), _ condition: @Sendable ([ServerMessage]) -> Bool
  ) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition(messages) { return true }
      try await Task.sleep(for: .milliseconds(20))
    }
    return condition(messages)
  }

  /// Waits until the connection ends, at most `timeout`.
  func waitForEnd(timeout: Duration = .seconds(30)) async throws {
    let deadline = ContinuousClock.now + timeout
    while !ended, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
  }
}
