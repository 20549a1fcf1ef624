import Foundation
import JWTKit
import PredicateDSL

/// A token's payload as the server reads it: every claim whose value is a
/// string, a number or a Boolean, as a predicate value (`$sub`, `$role` in
/// read predicates), plus the registered times it checks. Claims of other
/// JSON types (arrays, objects, null) are left out.
struct TokenClaims: JWTPayload {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  var claims: [String: FilterValue]

  init(claims: [String: FilterValue]) { self.claims = claims }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    var claims: [String: FilterValue] = [:]
    for key in container.allKeys {
      if let value = try? container.decode(Int64.self, forKey: key) {
        claims[key.stringValue] = .int(value)
      } else if let value = try? container.decode(Double.self, forKey: key) {
        claims[key.stringValue] = .double(value)
      } else if let value = try? container.decode(Bool.self, forKey: key) {
        claims[key.stringValue] = .bool(value)
      } else if let value = try? container.decode(String.self, forKey: key) {
        claims[key.stringValue] = .string(value)
      }
    }
    self.claims = claims
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    for (name, value) in claims {
      let key = Key(stringValue: name)
      switch value {
      case .int(let number): try container.encode(number, forKey: key)
      case .double(let number): try container.encode(number, forKey: key)
      case .bool(let flag): try container.encode(flag, forKey: key)
      case .string(let text): try container.encode(text, forKey: key)
      default: continue
      }
    }
  }

  /// The `exp` claim as a date; nil when the token has none.
  var expiresAt: Date? { Self.date(claims["exp"]) }
  /// The `nbf` claim as a date; nil when the token has none.
  var notBefore: Date? { Self.date(claims["nbf"]) }

  func verify(using algorithm: some JWTAlgorithm) throws {
    let now = Date()
    if let expiresAt, expiresAt <= now {
      throw TokenRefusal(.expired, message: "the token expired at \(Self.format(expiresAt)); sign in again")
    }
    if let notBefore, notBefore > now {
      throw TokenRefusal(
        .notYetValid, message: "the token is not valid before \(Self.format(notBefore)); check the clocks")
    }
  }

  private static func date(_ value: FilterValue?) -> Date? {
    switch value {
    case .int(let seconds): Date(timeIntervalSince1970: Double(seconds))
    case .double(let seconds): Date(timeIntervalSince1970: seconds)
    default: nil
    }
  }

  static func format(_ date: Date) -> String {
    date.formatted(.iso8601)
  }
}
