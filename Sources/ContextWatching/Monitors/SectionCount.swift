import PredicateDSL

/// The number of listed objects that share one section value.
struct SectionCount: Sendable, OrderStatisticElement {
  var key: SectionKey
  var count: Int

  var value: FilterValue { key.value }

  /// The section's objects: a section's start is the weight before it.
  var weight: Int { count }
}

/// A section's value with its encoded form, as ``ListOrder`` compares
/// sections.
struct SectionKey: Sendable {
  var value: FilterValue
  /// The first sort key's word (see ``ListSortKey``).
  var word: UInt64
}
