public import PredicateDSL

/// One section of a list: its value, display name and object count.
public struct ListSectionInfo: Hashable, Sendable {
  /// The section key's value its objects share.
  public var value: FilterValue
  /// The value as the request's section name closure tells it (by default
  /// the value as text; nil for nil).
  public var name: String?
  /// The number of objects listed in the section.
  public var count: Int

  /// Creates a section description.
  public init(value: FilterValue, name: String?, count: Int) {
    self.value = value
    self.name = name
    self.count = count
  }
}
