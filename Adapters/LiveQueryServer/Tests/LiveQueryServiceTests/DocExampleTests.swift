import LiveQueryCore
import LiveQueryService
import ObjectGraph
import Testing

/// The embedding example of docs/live-queries.md, as written there: it
/// compiles here, and the server tests run the same calls as a process.
func runServer(context: ObjectContext, policyText: String, secret: String) async throws {
  let policy = try ReadPolicy.parse(policyText, schema: context.schema)
  let server = LiveServer(
    context: context, policy: policy, verifier: try await TokenVerifier(hs256Secret: secret),
    configuration: LiveServerConfiguration(host: "0.0.0.0", port: 8080))
  try await server.run { port in print("listening on \(port)") }
}

@Suite struct DocExampleTests {
  @Test func aShortSecretIsRefusedWithTheReason() async throws {
    await #expect(throws: TokenKeyError(message: "the HS256 secret has 6 bytes; use at least 32 random bytes")) {
      try await runServer(
        context: ObjectContext(schema: DemoData.schema), policyText: DemoData.policyText, secret: "secret")
    }
  }
}
