public import Foundation
import JWTKit
public import PredicateDSL

/// Verifies clients' JSON Web Tokens: the signature (HS256 with a shared
/// secret, RS256 with a public key, or both), `exp` and `nbf`, and hands
/// back the claims that read predicates use.
///
/// ```swift
/// let verifier = try await TokenVerifier(hs256Secret: "a long random secret")
/// let token = try await verifier.verify(bearer)
/// print(token.claims["sub"] ?? .null)
/// ```
public struct TokenVerifier: Sendable {
  /// The keys by algorithm (`HS256`, `RS256`): a token is verified with
  /// the key of the algorithm its header names, never another.
  private let keys: [String: JWTKeyCollection]
  /// Whether the verifier can sign tokens too (it has an HS256 secret).
  public var canSign: Bool { keys["HS256"] != nil }

  /// Creates a verifier with an HS256 secret, an RS256 public key in PEM
  /// form, or both.
  ///
  /// - Throws: ``TokenKeyError`` when neither is given, the secret is
  ///   shorter than 32 bytes, or the PEM text is not an RSA public key.
  public init(hs256Secret: String? = nil, rs256PublicKeyPEM: String? = nil) async throws(TokenKeyError) {
    guard hs256Secret != nil || rs256PublicKeyPEM != nil else {
      throw TokenKeyError(message: "no token key: give an HS256 secret or an RS256 public key")
    }
    var keys: [String: JWTKeyCollection] = [:]
    if let hs256Secret {
      guard hs256Secret.utf8.count >= 32 else {
        throw TokenKeyError(
          message: "the HS256 secret has \(hs256Secret.utf8.count) bytes; use at least 32 random bytes")
      }
      keys["HS256"] = await JWTKeyCollection().add(hmac: HMACKey(from: hs256Secret), digestAlgorithm: .sha256)
    }
    if let rs256PublicKeyPEM {
      let key: Insecure.RSA.PublicKey
      do {
        key = try Insecure.RSA.PublicKey(pem: rs256PublicKeyPEM)
      } catch {
        throw TokenKeyError(message: "the RS256 key is not an RSA public key in PEM form (\(error))")
      }
      keys["RS256"] = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256)
    }
    self.keys = keys
  }

  /// Verifies a token and returns its claims.
  ///
  /// - Throws: ``TokenRefusal`` saying why: not a JWT, a bad signature or
  ///   algorithm, expired, not yet valid.
  public func verify(_ token: String) async throws(TokenRefusal) -> VerifiedToken {
    guard let algorithm = Self.algorithm(of: token) else {
      throw TokenRefusal(.invalid, message: "the token is not a JWT (three base64url parts separated by dots)")
    }
    guard let keys = keys[algorithm] else {
      let accepted = self.keys.keys.sorted().joined(separator: " or ")
      throw TokenRefusal(
        .invalid, message: "the token is signed with \(algorithm); this server accepts \(accepted); sign in again")
    }
    let payload: TokenClaims
    do {
      payload = try await keys.verify(token, as: TokenClaims.self)
    } catch let refusal as TokenRefusal {
      throw refusal
    } catch {
      throw TokenRefusal(.invalid, message: Self.describe(error))
    }
    return VerifiedToken(claims: payload.claims, expiresAt: payload.expiresAt)
  }

  /// Signs `claims` with the HS256 secret, for demos and tests.
  ///
  /// - Throws: ``TokenKeyError`` when the verifier has no HS256 secret.
  public func sign(_ claims: [String: FilterValue]) async throws(TokenKeyError) -> String {
    guard canSign else { throw TokenKeyError(message: "signing needs an HS256 secret") }
    do {
      return try await keys["HS256"]!.sign(TokenClaims(claims: claims))
    } catch {
      throw TokenKeyError(message: "the token could not be signed: \(error)")
    }
  }

  /// The `alg` of a token's header; nil when the header cannot be read.
  private static func algorithm(of token: String) -> String? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    var base64 = parts[0].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64),
      let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return nil }
    return header["alg"] as? String
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? JWTError else { return "the token is not a valid JWT; sign in again" }
    switch error.errorType {
    case .signatureVerificationFailed:
      return "the token's signature does not verify with this server's keys; sign in again"
    case .unknownKID, .missingKIDHeader:
      return "the token names a key this server does not have; sign in again"
    case .malformedToken:
      return "the token is not a JWT (three base64url parts separated by dots)"
    default:
      return "the token is not valid (\(error.reason ?? "\(error.errorType)")); sign in again"
    }
  }
}

/// A verified token's claims and expiry.
public struct VerifiedToken: Sendable {
  /// Every claim that is a string, a number or a Boolean.
  public var claims: [String: FilterValue]
  /// When the token expires (its `exp`); nil when it does not.
  public var expiresAt: Date?

  /// Creates a verified token.
  public init(claims: [String: FilterValue], expiresAt: Date?) {
    self.claims = claims
    self.expiresAt = expiresAt
  }
}

/// A token key that cannot be used: a problem of the server's
/// configuration, reported at start.
public struct TokenKeyError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong and what to do.
  public var message: String

  /// Creates an error.
  public init(message: String) { self.message = message }

  /// The message.
  public var description: String { message }
}
