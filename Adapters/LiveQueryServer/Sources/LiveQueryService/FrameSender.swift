import LiveQueryCore
import NIOCore
import NIOWebSocket

/// Writes a session's outbox to its WebSocket on the connection's event
/// loop, a batch at a time: every frame waiting is written, then flushed
/// once, so the frames of a save (and of saves made while the previous
/// batch was being written) cost one hop to the event loop and one
/// system call between them.
///
/// One batch is in flight at a time: the next drain waits until the
/// socket has taken the last one, so memory stays bounded by the outbox,
/// and ``WriteClock`` times how long the client's socket takes nothing.
/// Every frame is written once, in the order the outbox took it.
final class FrameSender: @unchecked Sendable {
  // @unchecked Sendable: `isWriting` and `isStopped` are read and written
  // only on `eventLoop` (`ring()` and `stop()` hop there; `pump()` and the
  // batch's completion run there, and `pump()` checks it); the other
  // properties are immutable and Sendable.
  private let channel: any Channel
  private let eventLoop: any EventLoop
  private let session: LiveSession
  private let writes: WriteClock
  private let replay: ReplayLog
  private let metrics: LiveMetrics
  private let failed: @Sendable (any Error) -> Void
  /// A batch is written and its flush not yet complete.
  private var isWriting = false
  /// The connection ends: nothing more is written.
  private var isStopped = false

  /// Creates a sender of `session`'s outbox to `channel`, a WebSocket
  /// channel; `failed` is called (on the event loop) when a write fails.
  init(
    channel: any Channel, session: LiveSession, writes: WriteClock, replay: ReplayLog, metrics: LiveMetrics,
    failed: @escaping @Sendable (any Error) -> Void
  ) {
    self.channel = channel
    eventLoop = channel.eventLoop
    self.session = session
    self.writes = writes
    self.replay = replay
    self.metrics = metrics
    self.failed = failed
  }

  /// Frames wait in the outbox: writes them from the event loop, unless a
  /// batch is in flight (its completion drains them).
  func ring() { eventLoop.execute { self.pump() } }

  /// Stops writing; returns once no batch will start after it (a batch in
  /// flight stays ahead of whatever the channel writes next).
  func stop() async {
    try? await eventLoop.submit { self.isStopped = true }.get()
  }

  private func pump() {
    eventLoop.preconditionInEventLoop()
    guard !isWriting, !isStopped else { return }
    let frames = session.outbox.drainFrames()
    guard !frames.isEmpty else { return }
    // Logged before they are written: a write that fails loses the batch,
    // which a resuming client then gets from the log.
    replay.record(frames)
    isWriting = true
    writes.begin()
    let written = eventLoop.makePromise(of: Void.self)
    for (index, frame) in frames.enumerated() {
      let data = channel.allocator.buffer(string: frame.text)
      // The last write's promise completes once the socket took them all:
      // a channel writes its pending writes in order.
      channel.write(
        WebSocketFrame(fin: true, opcode: .text, data: data), promise: index == frames.count - 1 ? written : nil)
    }
    channel.flush()
    written.futureResult.whenComplete { result in
      self.writes.end()
      self.isWriting = false
      switch result {
      case .success:
        self.metrics.sent(frames)
        // Frames that arrived while the batch was in flight.
        self.pump()
      case .failure(let error):
        self.isStopped = true
        self.failed(error)
      }
    }
  }
}
