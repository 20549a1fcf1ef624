import ServiceLifecycle

/// On graceful shutdown, closes every connection with 1001 and a reason
/// before the HTTP server stops (the service group shuts its services down
/// in reverse order, and this one comes after the server).
struct ConnectionCloser: Service {
  let connections: LiveConnections

  func run() async throws {
    try? await gracefulShutdown()
    await connections.closeAll(.shuttingDown, timeout: .seconds(5))
  }
}
