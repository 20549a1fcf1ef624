import PredicateDSL

/// A value as an attribute index files it: two keys are equal exactly when
/// a predicate's `==` without options holds between their values, so that
/// an index's bucket holds the objects such an `==` selects, no more.
///
/// Strings are equal by their code units, as predicates compare them
/// (`FilterValue`'s own equality is Unicode canonical equivalence, under
/// which `"é"` precomposed and decomposed are one value); every other value
/// as `FilterValue` compares it, which for the values of one attribute type
/// is the predicate's equality. NaN is never a key: it equals nothing.
struct AttributeIndexKey: Hashable {
  let value: FilterValue

  init(_ value: FilterValue) { self.value = value }

  static func == (lhs: AttributeIndexKey, rhs: AttributeIndexKey) -> Bool {
    switch (lhs.value, rhs.value) {
    case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
    case (.string, _), (_, .string): false
    default: lhs.value == rhs.value
    }
  }

  func hash(into hasher: inout Hasher) {
    guard case .string(var text) = value else {
      value.hash(into: &hasher)
      return
    }
    // A string's bytes, then their count (the separator `Array` hashing
    // also uses), so that no run of strings collides by concatenation.
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    hasher.combine(text.utf8.count)
  }
}
