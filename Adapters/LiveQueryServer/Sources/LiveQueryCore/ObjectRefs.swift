public import ObjectGraph

/// How objects are named to clients: a keyed SipHash-2-4 of the object's
/// identifier, as 16 hexadecimal digits. Identifiers count up, so sending
/// them would tell a client how many objects were made between two it may
/// read; a ref tells it nothing about objects it may not read. Sessions of
/// one server share one key, so an object has the same ref on each.
/// Distinct objects share a ref with a probability of about 2⁻⁶⁴ per pair.
public struct ObjectRefs: Sendable {
  private let key0: UInt64
  private let key1: UInt64

  /// Refs under a fixed 128-bit key (for tests and for instances that
  /// must agree).
  public init(key0: UInt64, key1: UInt64) {
    self.key0 = key0
    self.key1 = key1
  }

  /// Refs under a random key.
  public init() {
    var generator = SystemRandomNumberGenerator()
    self.init(key0: generator.next(), key1: generator.next())
  }

  /// The ref of an object.
  public func ref(for id: ObjectID) -> String {
    let hash = siphash(id.rawValue)
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// SipHash-2-4 of one 8-byte little-endian message.
  private func siphash(_ message: UInt64) -> UInt64 {
    var v0: UInt64 = 0x736f_6d65_7073_6575 ^ key0
    var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ key1
    var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ key0
    var v3: UInt64 = 0x7465_6462_7974_6573 ^ key1
    func round() {
      v0 &+= v1
      v1 = v1.rotatedLeft(13) ^ v0
      v0 = v0.rotatedLeft(32)
      v2 &+= v3
      v3 = v3.rotatedLeft(16) ^ v2
      v0 &+= v3
      v3 = v3.rotatedLeft(21) ^ v0
      v2 &+= v1
      v1 = v1.rotatedLeft(17) ^ v2
      v2 = v2.rotatedLeft(32)
    }
    for block in [message, UInt64(8) << 56] {
      v3 ^= block
      round()
      round()
      v0 ^= block
    }
    v2 ^= 0xff
    for _ in 0..<4 { round() }
    return v0 ^ v1 ^ v2 ^ v3
  }
}

extension UInt64 {
  fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}
