import Foundation
import LiveQueryCore
import LiveQueryService
import Logging
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import ServiceLifecycle

/// Starts the server the options describe and runs it until SIGTERM or
/// SIGINT; prints `{"listening":"http://HOST:PORT"}` on standard output
/// once it listens.
struct ServerCommand {
  let options: ServerOptions

  func run() async throws -> Int32 {
    let logger = Logger(label: "live-query-server")
    // The objects served, what saves them, and how far behind they are.
    let context: ObjectContext
    let services: [any Service]
    var replicaLag: (@Sendable () async -> Int?)?
    if options.postgres, let schemaPath = options.schemaPath {
      let mapping: ReplicaMapping
      do {
        mapping = try ReplicaMapping.read(schemaFile: schemaPath)
      } catch {
        return fail("\(schemaPath): \(error.description)")
      }
      let replica: PostgresReplica
      do {
        replica = PostgresReplica(
          configuration: .init(
            connection: try .fromEnvironment(), slot: options.slot, mapping: mapping, contextName: "live-query-server"))
        try await replica.start()
      } catch {
        return fail((error as? PostgresReplicaError)?.message ?? "\(error)")
      }
      context = replica.context
      services = [ReplicaService(replica: replica)]
      replicaLag = { (try? await replica.lag()).map { Int($0.unacknowledgedBytes) } }
    } else {
      context = ObjectContext(schema: DemoData.schema, name: "demo", notificationCenter: nil)
      do {
        services = [
          try DemoWriter(
            context: context,
            options: .init(
              rate: options.rate, objects: options.objects, owners: options.owners,
              objectsPerCommit: options.objectsPerCommit, seed: options.seed, commits: options.commits,
              priorities: options.priorities))
        ]
      } catch {
        return fail("the demo data could not be saved: \(error)")
      }
    }
    let policy: ReadPolicy
    let verifier: TokenVerifier
    var issuesDemoTokens = options.demoTokens
    do {
      let policyText = try options.policyPath.map { try read($0, what: "the policy") } ?? DemoData.policyText
      do {
        policy = try ReadPolicy.parse(policyText, schema: context.schema)
      } catch {
        return fail("\(options.policyPath ?? "the demo policy"): \(error.messages.joined(separator: "\n"))")
      }
      var secret = try options.secretPath.map { try read($0, what: "the HS256 secret") }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
      if let name = options.secretVariable {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
          return fail("--hs256-secret-env: the environment variable \(name) is not set")
        }
        secret = value
      }
      let publicKey = try options.publicKeyPath.map { try read($0, what: "the RS256 public key") }
      if secret == nil && publicKey == nil {
        secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        issuesDemoTokens = true
      }
      verifier = try await TokenVerifier(hs256Secret: secret, rs256PublicKeyPEM: publicKey)
    } catch let error as ReadFailure {
      return fail(error.message)
    } catch let error as TokenKeyError {
      return fail(error.message)
    }
    let configuration = LiveServerConfiguration(
      host: options.host, port: options.port,
      limits: LiveLimits(maximumSubscriptions: options.maximumSubscriptions, outboxBytes: options.outboxBytes),
      slowClientTimeout: .milliseconds(Int(options.slowClientSeconds * 1000)),
      authenticationTimeout: .milliseconds(Int(options.authenticationSeconds * 1000)),
      issuesDemoTokens: issuesDemoTokens, pollingInterval: options.pollSeconds.map { .milliseconds(Int($0 * 1000)) },
      resumeWindow: .milliseconds(Int(options.resumeSeconds * 1000)), replayBytes: options.replayBytes)
    let server = LiveServer(
      context: context, policy: policy, verifier: verifier, configuration: configuration, services: services,
      replicaLag: replicaLag, logger: logger)
    let host = options.host
    do {
      try await server.run { port in
        FileHandle.standardOutput.write(Data("{\"listening\":\"http://\(host):\(port)\"}\n".utf8))
      }
    } catch {
      return fail("\(error)")
    }
    return 0
  }

  private struct ReadFailure: Error {
    var message: String
  }

  private func read(_ path: String, what: String) throws -> String {
    do {
      return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw ReadFailure(message: "\(path): \(what) cannot be read (\(error.localizedDescription))")
    }
  }

  private func fail(_ message: String) -> Int32 {
    FileHandle.standardError.write(Data("live-query-server: \(message)\n".utf8))
    return 1
  }
}
