import PredicateDSL

/// One key's old and new value in an update.
public struct PropertyChange: Sendable, Hashable, CustomStringConvertible {
  /// The key.
  public var key: String
  /// The value before the save.
  public var old: PropertyValue
  /// The value after the save.
  public var new: PropertyValue

  /// Creates a change.
  public init(key: String, old: PropertyValue, new: PropertyValue) {
    self.key = key
    self.old = old
    self.new = new
  }

  /// `age: 30 → 31`.
  public var description: String { "\(key): \(old) → \(new)" }
}
