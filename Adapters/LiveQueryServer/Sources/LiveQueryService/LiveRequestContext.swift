import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The server's request context: Hummingbird's basic WebSocket context,
/// with the connection's channel, so that a WebSocket's frames can be
/// written on its event loop in batches (``FrameSender``).
struct LiveRequestContext: RequestContext, WebSocketRequestContext {
  var coreContext: CoreRequestContextStorage
  let webSocket: WebSocketHandlerReference<Self>
  /// The connection's channel (after an upgrade, the WebSocket's).
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    webSocket = .init()
    channel = source.channel
  }
}
