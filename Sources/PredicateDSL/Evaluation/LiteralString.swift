/// A string that is equal to another only when their code units are, and
/// hashes accordingly.
package struct LiteralString: Hashable, Sendable {
  var string: String

  init(_ string: String) { self.string = string }

  package static func == (lhs: LiteralString, rhs: LiteralString) -> Bool {
    TextComparison.literalEqual(lhs.string, rhs.string)
  }

  package func hash(into hasher: inout Hasher) {
    TextComparison.withUTF8(string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}
