extension ListContent {
  /// The entries of the section index (the letters down a table view's
  /// side): each section's title, by the request's
  /// ``ListRequest/sectionIndexTitle`` (by default its name's first letter,
  /// capitalised), each title once, in the order of its first section.
  /// Empty for a list without sections.
  ///
  /// ```swift
  /// people.sectionIndexTitles   // ["A", "B", "D"] for sections Ada, Ann, Bea, Dan
  /// ```
  ///
  /// - Complexity: O(*s* log *n*) for *s* sections.
  public var sectionIndexTitles: [String] { sectionIndex().map(\.title) }

  /// The section a section index entry leads to: the first section with
  /// `title` (UIKit's `tableView(_:sectionForSectionIndexTitle:at:)`).
  ///
  /// - Parameters:
  ///   - title: An entry of ``sectionIndexTitles``.
  ///   - index: The entry's position in ``sectionIndexTitles``: when the
  ///     entry there is `title`, its section is found without a search.
  /// - Returns: The section's index; nil when no section has the title.
  /// - Complexity: O(*s* log *n*) for *s* sections.
  public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
    let entries = sectionIndex()
    if entries.indices.contains(index), entries[index].title == title { return entries[index].section }
    return entries.first { $0.title == title }?.section
  }

  /// Each distinct title and the first section that has it, in order.
  private func sectionIndex() -> [(title: String, section: Int)] {
    guard order.isSectioned else { return [] }
    var entries: [(title: String, section: Int)] = []
    var seen: Set<String> = []
    for index in 0..<numberOfSections {
      guard let name = section(at: index).name, let title = sectionIndexTitle(name) else { continue }
      if seen.insert(title).inserted { entries.append((title, index)) }
    }
    return entries
  }
}
