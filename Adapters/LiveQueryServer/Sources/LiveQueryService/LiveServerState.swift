import ContextWatching
import Dispatch
import LiveQueryCore
import ObjectGraph

/// What every connection of a server shares: the objects, the watcher
/// whose master filter holds every session's watches, the policy, the
/// token keys, the counters.
struct LiveServerState: Sendable {
  let context: ObjectContext
  let watcher: ContextWatcher
  let policy: ReadPolicy
  let verifier: TokenVerifier
  let refs: ObjectRefs
  let configuration: LiveServerConfiguration
  let metrics: LiveMetrics
  let connections: LiveConnections
  let replicaLag: @Sendable () async -> Int?

  var limits: LiveLimits { configuration.limits }
}
