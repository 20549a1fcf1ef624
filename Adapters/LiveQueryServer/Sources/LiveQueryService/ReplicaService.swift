public import PostgresChangeSource
public import ServiceLifecycle

/// Runs a started ``PostgresReplica`` beside the server: it applies the
/// database's transactions to the context the server serves until the
/// service group shuts down, then stops the replica (its position stays
/// acknowledged in its slot for the next start).
public struct ReplicaService: Service {
  private let replica: PostgresReplica

  /// Creates the service of a replica already started.
  public init(replica: PostgresReplica) { self.replica = replica }

  /// Applies transactions until shutdown; a failure the replica's policy
  /// stops on ends the service, and with it the server.
  public func run() async throws {
    do {
      try await cancelWhenGracefulShutdown { try await replica.run() }
    } catch is CancellationError {
      // Shut down: the run was cancelled, as it is meant to be.
    } catch {
      await replica.stop()
      throw error
    }
    await replica.stop()
  }
}
