extension String {
  /// The components of a key path stored in the syntax tree, split at its
  /// dots: `"address.city"` gives `["address", "city"]`, and a path without
  /// dots is its own single component (no new string is made).
  ///
  /// Splits on UTF-8 code units: a dot is ASCII, so every cut falls on a
  /// character boundary, without `Character`-by-`Character` iteration.
  package var keyPathComponents: [String] {
    let utf8 = self.utf8
    // Most paths are one key: a scan of contiguous bytes says so cheaply.
    let hasDot = utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: ".")) } ?? utf8.contains(UInt8(ascii: "."))
    guard hasDot, var dot = utf8.firstIndex(of: UInt8(ascii: ".")) else { return [self] }
    var components: [String] = []
    var start = utf8.startIndex
    while true {
      components.append(String(self[start..<dot]))
      start = utf8.index(after: dot)
      guard let next = utf8[start...].firstIndex(of: UInt8(ascii: ".")) else { break }
      dot = next
    }
    components.append(String(self[start...]))
    return components
  }
}
