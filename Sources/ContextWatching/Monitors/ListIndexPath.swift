/// A place in a sectioned list: the section, then the object's place in it.
///
/// A list without sections has one section, 0.
public struct ListIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The section's index.
  public var section: Int
  /// The object's index in its section.
  public var item: Int

  /// Creates an index path.
  public init(item: Int, section: Int) {
    self.section = section
    self.item = item
  }

  /// Orders by section, then item.
  public static func < (lhs: ListIndexPath, rhs: ListIndexPath) -> Bool {
    (lhs.section, lhs.item) < (rhs.section, rhs.item)
  }

  /// `[1, 3]`.
  public var description: String { "[\(section), \(item)]" }
}
