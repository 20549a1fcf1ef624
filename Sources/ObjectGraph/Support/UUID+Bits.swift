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
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: bits >> (8 * (15 - index))) }
    self.init(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}
