public import PredicateDSL

/// One section of a ``RecordListModel``: its value, name and count, and its
/// records in order, identified by the section's value.
public struct RecordListSection<Record: Sendable>: Identifiable, Sendable {
  /// The section's value, name and count.
  public internal(set) var info: ListSectionInfo
  /// The section's records with their objects' identifiers, in order.
  public internal(set) var items: [ListedRecord<Record>]

  /// The section key's value its objects share (nil for a list without
  /// sections).
  public var id: FilterValue { info.value }

  /// The section's records, in order.
  ///
  /// - Complexity: O(*m*) for *m* records.
  public var records: [Record] { items.map(\.record) }
}
