import Foundation
import LiveQueryService
import PredicateDSL

/// Tokens signed with the test secret.
enum TestTokens {
  static func token(
    sub: String, role: String = "user", expiresIn seconds: Double = 3600, secret: String = ServerProcess.secret
  ) async throws -> String {
    let signer = try await TokenVerifier(hs256Secret: secret)
    return try await signer.sign([
      "sub": .string(sub), "role": .string(role),
      "exp": .double(Date().timeIntervalSince1970 + seconds),
    ])
  }
}
