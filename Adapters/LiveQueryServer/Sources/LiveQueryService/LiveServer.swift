import ContextWatching
import Dispatch
import Foundation
import Hummingbird
import HummingbirdWebSocket
public import LiveQueryCore
public import Logging
import NIOCore
public import ObjectGraph
import PredicateDSL
public import ServiceLifecycle
import UnixSignals
import WatchFormats

/// The live-query server: HTTP and WebSocket in front of a context's
/// objects. `GET /` serves the demo page, `/ws` takes WebSocket clients
/// (the protocol of docs/live-queries.md), `/health` and `/metrics` report
/// on it, and `/demo-token` hands out tokens when the configuration asks.
///
/// ```swift
/// let server = LiveServer(
///   context: context, policy: policy, verifier: try await TokenVerifier(hs256Secret: secret),
///   configuration: LiveServerConfiguration(port: 8080))
/// try await server.run()   // until SIGTERM or SIGINT
/// ```
public final class LiveServer: Sendable {
  private let state: LiveServerState
  private let logger: Logger
  private let services: [any Service]
  private let saveObservation: SaveObserverToken

  /// Creates a server over `context`, whose saves it serves.
  ///
  /// - Parameters:
  ///   - context: The objects; another party (a writer, a replica) saves it.
  ///   - policy: What each client may read.
  ///   - verifier: The keys clients' tokens must verify with.
  ///   - configuration: The address and limits.
  ///   - services: Services that run with the server and stop with it (a
  ///     writer, a replica's runner), shut down after the server.
  ///   - replicaLag: How far the source is behind its database, in bytes,
  ///     for `/metrics`; nil for a source without one.
  ///   - logger: Where the server logs, one line per connection event.
  public init(
    context: ObjectContext, policy: ReadPolicy, verifier: TokenVerifier, configuration: LiveServerConfiguration,
    services: [any Service] = [], replicaLag: (@Sendable () async -> Int?)? = nil,
    logger: Logger = Logger(label: "live-query-server")
  ) {
    let metrics = LiveMetrics()
    // Registered before any watcher of the context, so that a save's time
    // is noted before its deliveries can be sent.
    saveObservation = context.addSaveObserver { save in metrics.noteSave(save.sequenceNumber) }
    let watcher = ContextWatcher(
      context: context, target: .watchHandlers(on: .queue(DispatchQueue(label: "live-query-server.watches"))))
    state = LiveServerState(
      context: context, watcher: watcher, policy: policy, verifier: verifier, refs: ObjectRefs(),
      configuration: configuration, metrics: metrics, connections: LiveConnections(),
      replicaLag: replicaLag ?? { nil })
    self.services = services
    self.logger = logger
  }

  /// Runs the server until SIGTERM or SIGINT: then every connection gets a
  /// close frame (1001, the server is shutting down) and the services stop.
  ///
  /// - Parameter onListening: Called with the port once the server
  ///   listens (the one picked when the configuration's port is 0).
  public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
    let configuration = state.configuration
    let router = router()
    let application = Application(
      router: router,
      server: .http1WebSocketUpgrade(
        webSocketRouter: router,
        configuration: .init(ws: .init(maxFrameSize: max(1 << 20, configuration.limits.maximumFrameBytes * 2)))),
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port), serverName: "live-query-server"),
      services: services,
      onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
      logger: logger)
    // Services shut down in reverse order: the connections are closed, with
    // their reason, before the server stops listening.
    let group = ServiceGroup(
      configuration: .init(
        services: [application, ConnectionCloser(connections: state.connections)],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  }

  private func router() -> Router<LiveRequestContext> {
    let router = Router(context: LiveRequestContext.self)
    let state = state
    let logger = logger
    router.get("/") { _, _ in try Self.page("index.html", type: "text/html; charset=utf-8") }
    router.get("/app.js") { _, _ in try Self.page("app.js", type: "text/javascript; charset=utf-8") }
    router.get("/health") { _, _ in
      let body = JSONValue.object([
        ("status", .string("ok")), ("seq", .int(Int64(state.metrics.lastSave))),
      ]).serialized
      return Self.response(body, type: "application/json")
    }
    router.get("/metrics") { _, _ in
      let totals = state.connections.totals()
      let text = state.metrics.render(
        subscriptions: totals.subscriptions, bufferedBytes: totals.bufferedBytes,
        replicaLagBytes: await state.replicaLag())
      return Self.response(text, type: "text/plain; version=0.0.4")
    }
    router.get("/demo-token") { request, _ in
      guard state.configuration.issuesDemoTokens else { throw HTTPError(.notFound) }
      let sub = request.uri.queryParameters["sub"].map(String.init) ?? "u1"
      let role = request.uri.queryParameters["role"].map(String.init) ?? "user"
      let lifetime = request.uri.queryParameters["seconds"].flatMap { Int($0) } ?? 3600
      let token = try await state.verifier.sign([
        "sub": .string(sub), "role": .string(role),
        "exp": .int(Int64(Date().timeIntervalSince1970) + Int64(lifetime)),
      ])
      return Self.response(JSONValue.object([("token", .string(token))]).serialized, type: "application/json")
    }
    // A token in the header is checked after the upgrade, as one in the
    // first frame is: a refused one closes the connection with its reason
    // (a refused upgrade could only say 400).
    router.ws("/ws") { inbound, outbound, context in
      let connection = LiveConnection(server: state, logger: logger, channel: context.requestContext.channel)
      try await connection.run(
        inbound: inbound, outbound: outbound, authorization: context.request.headers[.authorization])
    }
    return router
  }

  private static func page(_ name: String, type: String) throws -> Response {
    guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Page"),
      let body = try? String(contentsOf: url, encoding: .utf8)
    else { throw HTTPError(.notFound) }
    return response(body, type: type)
  }

  private static func response(_ body: String, type: String) -> Response {
    Response(
      status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }
}
