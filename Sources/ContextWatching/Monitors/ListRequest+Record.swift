public import ObjectGraph
public import PredicateDSL

extension ListRequest {
  /// A list of the record's entity (and its sub-entities), parsed from
  /// format text; its objects read as records with
  /// `ObjectSnapshot.decode(_:)`.
  ///
  /// ```swift
  /// let request = try ListRequest(Person.self, where: "age >= %d", arguments: [18], sortedBy: [.ascending("name")])
  /// ```
  ///
  /// - Throws: ``WatchError`` as `init(_:where:arguments:sortedBy:sectionedBy:sectionName:limit:offset:label:)`.
  public init<Record: EntityRecord>(
    _ type: Record.Type, where format: String, arguments: [FilterValue] = [],
    sortedBy sortKeys: [ObjectFetchRequest.SortKey], sectionedBy sectionKey: String? = nil,
    sectionName: (@Sendable (FilterValue) -> String?)? = nil, limit: Int? = nil, offset: Int = 0,
    label: String? = nil
  ) throws(WatchError) {
    try self.init(
      Record.entityName, where: format, arguments: arguments, sortedBy: sortKeys, sectionedBy: sectionKey,
      sectionName: sectionName, limit: limit, offset: offset, label: label)
  }
}
