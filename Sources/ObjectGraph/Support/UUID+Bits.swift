package import Foundation

extension UInt128 {
  /// The UUID's 16 bytes, the first the most significant.
  package init(uuid: UUID) {
    var value: UInt128 = 0
    withUnsafeBytes(of: uuid.uuid) { bytes in
      for byte in bytes { value = value << 8 | UInt128(byte) }
    }
    self = value
  }
}

extension UUID {
  /// The UUID of 128 bits, the most significant byte first.
  package init(bits: UInt128) {
    // The big-endian form of the bits is the UUID's byte order.
    self = withUnsafeBytes(of: bits.bigEndian) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
  }
}
