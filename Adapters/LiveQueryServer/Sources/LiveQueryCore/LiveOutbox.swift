import Synchronization

/// A session's outgoing frames, bounded, drained by the transport from any
/// thread.
///
/// Data frames (`snapshot`, `changes`, `event`) are accepted while the
/// outbox holds fewer than ``LiveLimits/outboxBytes`` bytes; the session
/// handles a refusal by dropping that subscription's pending frames and
/// sending it a fresh snapshot once the client drains. Control frames
/// (`error`, `pong`) may use ``LiveLimits/controlReserveBytes`` more; past
/// that they are dropped and counted in ``droppedControlFrames``. So the
/// outbox never holds more than the two bounds plus one frame.
public final class LiveOutbox: Sendable {
  /// A frame waiting, with what the transport measures by.
  public struct Frame: Sendable {
    /// The frame's JSON text.
    public var text: String
    /// The save whose changes the frame carries (`changes` and `event`);
    /// nil for snapshots and control frames.
    public var save: Int?
    /// The subscription or watch a data frame, or an `eventsDropped`
    /// error, is about; nil for other control frames.
    public var subscription: String?
    /// The `seq` of a data frame (a snapshot's too): what a resuming
    /// client says it has seen; for an `eventsDropped` error the last save
    /// it names; nil for other control frames.
    public var position: Int?
    var bytes: Int
  }

  private struct State {
    var frames: [Frame] = []
    var bytes = 0
    var droppedControlFrames = 0
    var needsCatchUp = false
  }

  private let state = Mutex(State())
  private let dataBound: Int
  private let controlBound: Int
  /// A callback held by reference: read from its lock without converting
  /// the closure on every read.
  private final class Callback: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }

  /// Called, outside the lock, by the first drain after a refusal.
  private let catchUp = Mutex<Callback?>(nil)
  /// Called, outside the lock, when a frame arrives in an empty outbox.
  private let doorbell = Mutex<Callback?>(nil)

  init(limits: LiveLimits) {
    dataBound = limits.outboxBytes
    controlBound = limits.outboxBytes + limits.controlReserveBytes
  }

  /// Takes every waiting frame, oldest first. When the session dropped
  /// changes since the last drain, this schedules its catch-up snapshots,
  /// which a later drain takes.
  public func drain() -> [String] { drainFrames().map(\.text) }

  /// Takes every waiting frame, oldest first, with the save each carries,
  /// as ``drain()`` does.
  public func drainFrames() -> [Frame] {
    let (frames, wake) = state.withLock { state in
      defer {
        state.frames = []
        state.bytes = 0
        state.needsCatchUp = false
      }
      return (state.frames, state.needsCatchUp)
    }
    if wake, let catchUp = catchUp.withLock({ $0 }) { catchUp.body() }
    return frames
  }

  /// Calls `body` whenever a frame arrives in an empty outbox (outside the
  /// outbox's lock, on the thread that added it): a transport's signal to
  /// drain. Replaces the previous one.
  public func onFrames(_ body: @escaping @Sendable () -> Void) {
    let callback = Callback(body)
    doorbell.withLock { $0 = callback }
  }

  /// The bytes waiting.
  public var byteCount: Int { state.withLock { $0.bytes } }
  /// The frames waiting.
  public var frameCount: Int { state.withLock { $0.frames.count } }
  /// Control frames dropped because the client did not read.
  public var droppedControlFrames: Int { state.withLock { $0.droppedControlFrames } }
  /// Whether the transport should read the client's next frame: false once
  /// the waiting frames reach the data bound, so that a client that does
  /// not read cannot make the session answer without end.
  public var acceptsRequests: Bool { state.withLock { $0.bytes < dataBound } }

  func onCatchUp(_ body: @escaping @Sendable () -> Void) {
    let callback = Callback(body)
    catchUp.withLock { $0 = callback }
  }

  /// Adds a data frame of `subscription`, carrying the changes of `save`
  /// (nil for a snapshot), unless the outbox is at its bound. A refusal
  /// asks the next drain for a catch-up under the same lock, so that a
  /// drain between the refusal and the session's handling of it cannot
  /// leave the catch-up waiting for a frame that may never come.
  func pushData(_ text: String, subscription: String, save: Int?, position: Int) -> Bool {
    let bytes = text.utf8.count
    let (accepted, wasEmpty) = state.withLock { state -> (Bool, Bool) in
      guard state.bytes < dataBound else {
        state.needsCatchUp = true
        return (false, false)
      }
      state.frames.append(
        Frame(text: text, save: save, subscription: subscription, position: position, bytes: bytes))
      state.bytes += bytes
      return (true, state.frames.count == 1)
    }
    if wasEmpty { ring() }
    return accepted
  }

  private func ring() {
    if let callback = doorbell.withLock({ $0 }) { callback.body() }
  }

  /// Adds a control frame unless the outbox is past its control bound.
  /// One about a watch's events (`eventsDropped`) names the watch and the
  /// last save it covers, so that a resuming client that did not receive
  /// it gets it again with the events that followed.
  func pushControl(_ text: String, about subscription: String? = nil, position: Int? = nil) {
    let bytes = text.utf8.count
    let wasEmpty = state.withLock { state -> Bool in
      guard state.bytes < controlBound else {
        state.droppedControlFrames += 1
        return false
      }
      state.frames.append(Frame(text: text, save: nil, subscription: subscription, position: position, bytes: bytes))
      state.bytes += bytes
      return state.frames.count == 1
    }
    if wasEmpty { ring() }
  }

  /// Removes the waiting frames of `subscription` and asks the next drain
  /// to schedule a catch-up.
  func dropFrames(of subscription: String) {
    state.withLock { state in
      state.frames.removeAll { $0.subscription == subscription }
      state.bytes = state.frames.reduce(0) { $0 + $1.bytes }
      state.needsCatchUp = true
    }
  }

  /// Asks the next drain to schedule a catch-up, keeping the waiting
  /// frames (a watch's events before the first one dropped).
  func requestCatchUp() {
    state.withLock { $0.needsCatchUp = true }
  }

  /// Removes the waiting frames of `subscription` (when it ends).
  func removeFrames(of subscription: String) {
    state.withLock { state in
      state.frames.removeAll { $0.subscription == subscription }
      state.bytes = state.frames.reduce(0) { $0 + $1.bytes }
    }
  }
}
