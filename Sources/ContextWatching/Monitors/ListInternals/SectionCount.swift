import PredicateDSL

/// The number of listed objects that share one section value.
struct SectionCount: Sendable, OrderStatisticElement {
  var key: SectionKey
  var count: Int

  var value: FilterValue { key.value }

  /// The section's objects: a section's start is the weight before it.
  var weight: Int { count }
}
