import PredicateDSL

/// A section's value with its encoded form, as ``ListOrder`` compares
/// sections.
struct SectionKey: Sendable {
  var value: FilterValue
  /// The first sort key's word (see ``ListSortKey``).
  var word: UInt64
}
