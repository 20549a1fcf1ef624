extension String {
  /// The components of a key path stored in the syntax tree, split at its
  /// dots: `"address.city"` gives `["address", "city"]`, and a path without
  /// dots is its own single component (no new string is made).
  ///
  /// Splits on UTF-8 code units: a dot is ASCII, so every cut falls on a
  /// character boundary, without `Character`-by-`Character` iteration.
  package var keyPathComponents: [String] {
    let utf8 = self.utf8
    guard containsKeyPathDot, var dot = utf8.firstIndex(of: UInt8(ascii: ".")) else { return [self] }
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

  /// Replaces the contents of `components` with ``keyPathComponents``: a
  /// key without dots after a key without dots replaces the one component
  /// in place, so that every simple key of a compile after the first reuses
  /// the array's storage.
  func storeKeyPathComponents(in components: inout [String]) {
    if components.count == 1, !containsKeyPathDot {
      components[0] = self
    } else {
      components = keyPathComponents
    }
  }

  /// Whether the key path has more than one component. Most paths are one
  /// key: a scan of contiguous bytes says so cheaply.
  private var containsKeyPathDot: Bool {
    utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: ".")) } ?? utf8.contains(UInt8(ascii: "."))
  }
}
