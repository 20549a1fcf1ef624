import Foundation
import LiveQueryCore
import Testing

/// Tokens as clients present them: in the header, in the first frame,
/// missing, forged, expired. Each against a server process over loopback.
@Suite(.serialized) struct AuthenticationTests {
  @Test func aTokenInTheHeaderOpensTheConnection() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    #expect(try await client.waitFor { $0.contains { if case .ready = $0 { true } else { false } } })
    client.send(#"{"op":"ping","id":"p"}"#)
    #expect(try await client.waitFor { $0.contains(.pong(id: "p")) })
  }

  @Test func aTokenInTheFirstFrameOpensTheConnection() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL)
    client.sendAuth(try await TestTokens.token(sub: "u1"))
    #expect(try await client.waitFor { $0.contains { if case .ready = $0 { true } else { false } } })
  }

  @Test func aForgedHeaderTokenClosesWithTheReason() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let forged = try await TestTokens.token(sub: "admin", secret: String(repeating: "x", count: 40))
    let client = LiveClient(url: server.webSocketURL, bearer: forged)
    try await client.waitForEnd()
    #expect(client.close?.code == 4001, "client: \(client.failure ?? "no failure"); server log:\n\(server.log)")
    #expect(client.close?.reason == "the token's signature does not verify with this server's keys; sign in again")
    #expect(client.messages.isEmpty)
    #expect(try server.get("/metrics").body.contains("\nlive_tokens_refused_total 1\n"))
  }

  @Test func aHeaderThatIsNotBearerClosesWithTheReason() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL, authorization: "Basic dTE6cGFzc3dvcmQ=")
    try await client.waitForEnd()
    #expect(client.close?.code == 4001)
    #expect(client.close?.reason == "the Authorization header is not 'Bearer <token>'")
  }

  @Test func aForgedFrameTokenClosesWithTheReason() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL)
    client.sendAuth(try await TestTokens.token(sub: "admin", secret: String(repeating: "y", count: 40)))
    try await client.waitForEnd()
    #expect(client.close?.code == 4001)
    #expect(client.close?.reason == "the token's signature does not verify with this server's keys; sign in again")
    #expect(client.messages.isEmpty)
  }

  @Test func aFirstFrameThatIsNotAuthClosesTheConnection() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL)
    client.send(#"{"op":"subscribe","id":"s","entity":"Task","sort":[{"key":"title"}]}"#)
    try await client.waitForEnd()
    #expect(client.close?.code == 4001)
    #expect(
      client.close?.reason
        == #"the first frame is not an auth frame; send {"op":"auth","token":"…"} first, or an Authorization header"#)
  }

  @Test func noAuthFrameInTimeClosesTheConnection() async throws {
    let server = try await ServerProcess(["--rate", "1", "--auth-timeout", "0.5"])
    let client = LiveClient(url: server.webSocketURL)
    try await client.waitForEnd()
    #expect(client.close?.code == 4001)
    #expect(client.close?.reason.hasPrefix("no auth frame within 0.5 s; send") == true)
  }

  @Test func anExpiredTokenIsRefused() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL)
    client.sendAuth(try await TestTokens.token(sub: "u1", expiresIn: -5))
    try await client.waitForEnd()
    #expect(client.close?.code == 4001)
    #expect(client.close?.reason.hasPrefix("the token expired at ") == true)
    #expect(client.close?.reason.hasSuffix("; sign in again") == true)
  }

  @Test func aTokenThatExpiresClosesTheOpenConnection() async throws {
    let server = try await ServerProcess(["--rate", "1"])
    let client = LiveClient(url: server.webSocketURL)
    client.sendAuth(try await TestTokens.token(sub: "u1", expiresIn: 1.5))
    #expect(try await client.waitFor { $0.contains { if case .ready = $0 { true } else { false } } })
    #expect(client.close == nil)
    try await client.waitForEnd(timeout: .seconds(10))
    #expect(client.close?.code == 4002)
    #expect(client.close?.reason.hasPrefix("the token expired at ") == true)
  }

  @Test func demoTokensAreServedOnlyWithoutAKeyOrWhenAsked() async throws {
    let keyed = try await ServerProcess(["--rate", "1"])
    #expect(try keyed.get("/demo-token?sub=u1").status == 404)
    let demo = try await ServerProcess(["--rate", "1", "--demo-tokens"])
    let response = try demo.get("/demo-token?sub=u2&role=user")
    #expect(response.status == 200)
    #expect(response.body.hasPrefix(#"{"token":"ey"#))
  }

  @Test func realDataIsNeverServedBehindTheDemosKeys() throws {
    let postgres = ["--postgres", "--schema", "schema.json", "--policy", "policy.json"]
    let withoutKey = try Self.refusal(postgres)
    #expect(withoutKey.status == 2)
    #expect(
      withoutKey.message.hasPrefix(
        "live-query-server: --postgres needs the tokens' key: --hs256-secret-env NAME, --hs256-secret-file FILE or --rs256-public-key FILE\n"
      ), "\(withoutKey.message)")
    let withDemoTokens = try Self.refusal(postgres + ["--hs256-secret-env", "LIVE_TEST_SECRET", "--demo-tokens"])
    #expect(withDemoTokens.status == 2)
    #expect(
      withDemoTokens.message.hasPrefix(
        "live-query-server: --demo-tokens signs any claims a client asks for: it is refused with --postgres\n"),
      "\(withDemoTokens.message)")
  }

  /// Runs the server with `arguments` it refuses before listening: its
  /// exit status and standard error.
  private static func refusal(_ arguments: [String]) throws -> (status: Int32, message: String) {
    let process = Process()
    process.executableURL = ServerProcess.executable
    process.arguments = ["--port", "0"] + arguments
    process.environment = ["LIVE_TEST_SECRET": ServerProcess.secret, "SWIFT_BACKTRACE": "enable=no"]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, message)
  }
}
