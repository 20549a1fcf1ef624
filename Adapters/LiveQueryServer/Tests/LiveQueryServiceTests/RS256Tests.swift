import Foundation
import JWTKit
import LiveQueryCore
import Testing
import _CryptoExtras

/// RS256: the server verifies tokens with a public key from a file, and
/// refuses a token signed another way, naming both algorithms.
@Suite(.serialized) struct RS256Tests {
  struct Claims: JWTPayload {
    var sub: String
    var role: String
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) throws { try exp.verifyNotExpired() }
  }

  @Test func aTokenSignedWithThePrivateKeyOpensTheConnection() async throws {
    let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rs256-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let publicKeyFile = directory.appendingPathComponent("public.pem")
    try key.publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)
    let server = try await ServerProcess(
      ["--rate", "1"], replacingKeyWith: ["--rs256-public-key", publicKeyFile.path])
    let signer = await JWTKeyCollection().add(
      rsa: try Insecure.RSA.PrivateKey(pem: key.pemRepresentation), digestAlgorithm: .sha256)
    let token = try await signer.sign(
      Claims(sub: "u1", role: "user", exp: ExpirationClaim(value: Date().addingTimeInterval(600))))
    let client = LiveClient(url: server.webSocketURL, bearer: token)
    #expect(try await client.waitFor { $0.contains { if case .ready = $0 { true } else { false } } })

    let hs256 = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    try await hs256.waitForEnd()
    #expect(hs256.close?.code == 4001, "client: \(hs256.failure ?? "-"), \(hs256.frames); server: \(server.log)")
    #expect(hs256.close?.reason == "the token is signed with HS256; this server accepts RS256; sign in again")
  }
}
