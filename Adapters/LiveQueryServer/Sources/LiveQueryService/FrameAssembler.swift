import NIOCore
import WSCore

/// Joins a WebSocket message's frames into its text, up to a limit: past
/// the limit the rest of the message is skipped and the message reported
/// as oversized, so that one oversized request ends nothing but itself.
struct FrameAssembler {
  enum Outcome {
    case partial
    case message(String)
    /// A message over the limit; its text is not kept.
    case oversized
  }

  let limit: Int
  private var buffer: [UInt8] = []
  private var skipping = false

  init(limit: Int) { self.limit = limit }

  mutating func add(_ frame: WebSocketDataFrame) -> Outcome {
    let bytes = frame.data.readableBytesView
    if skipping {
      guard frame.fin else { return .partial }
      skipping = false
      return .oversized
    }
    if buffer.count + bytes.count > limit {
      buffer = []
      if frame.fin { return .oversized }
      skipping = true
      return .partial
    }
    buffer.append(contentsOf: bytes)
    guard frame.fin else { return .partial }
    defer { buffer = [] }
    return .message(String(decoding: buffer, as: UTF8.self))
  }
}
