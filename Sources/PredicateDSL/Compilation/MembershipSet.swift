/// The constant right side of `IN`, hashed: numbers by value, strings by
/// code units, folded when the comparison has options.
struct MembershipSet: Sendable {
  private let keys: Set<MembershipKey>
  private let folding: StringFolding?

  init(_ elements: [FilterValue], folding: StringFolding?) {
    self.folding = folding
    keys = Set(
      elements.map { element in
        if let folding, case .string(let text) = element { return MembershipKey(.string(folding.fold(text))) }
        return MembershipKey(element)
      })
  }

  func contains(_ value: FilterValue) -> Bool {
    if let folding, case .string(let text) = value {
      return keys.contains(.string(LiteralString(folding.fold(text))))
    }
    return keys.contains(MembershipKey(value))
  }
}
