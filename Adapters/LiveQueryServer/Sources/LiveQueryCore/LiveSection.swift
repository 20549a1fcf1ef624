/// A section as a message carries it: its index, its name (the section
/// value as text; nil for a list without sections or a nil value) and its
/// number of objects.
public struct LiveSection: Hashable, Sendable {
  /// Where the section is: in a snapshot and among inserted sections, in
  /// the new list.
  public var index: Int
  /// The section's name.
  public var name: String?
  /// How many objects it holds.
  public var count: Int

  /// Creates a section.
  public init(index: Int, name: String?, count: Int) {
    self.index = index
    self.name = name
    self.count = count
  }
}
