import ContextWatching
public import LiveQueryCore

/// What a client holds of one subscription, built from its snapshot and
/// changed by each `changes` as a table view applies a batch update: the
/// tests' model of a client.
public struct ClientMirror: Equatable, CustomStringConvertible {
  /// A section and its objects.
  public struct Section: Equatable {
    /// The section's name.
    public var name: String?
    /// Its objects, in order.
    public var objects: [LiveObject]

    /// Creates a section.
    public init(name: String?, objects: [LiveObject]) {
      self.name = name
      self.objects = objects
    }
  }

  /// The sections, in order.
  public var sections: [Section]
  /// The save of the last snapshot or changes applied.
  public var sequenceNumber: Int

  /// The list a snapshot gives.
  public init(_ snapshot: SnapshotMessage) {
    var rest = snapshot.objects[...]
    sections = snapshot.sections.map { section in
      defer { rest = rest.dropFirst(section.count) }
      return Section(name: section.name, objects: Array(rest.prefix(section.count)))
    }
    sequenceNumber = snapshot.sequenceNumber
  }

  /// Removals in old coordinates (objects, then sections, from the end),
  /// then insertions in new ones (sections, then objects, from the start),
  /// then updates in new ones.
  public mutating func apply(_ changes: ChangesMessage) {
    let removals = (changes.deleted.map(\.path) + changes.moved.map(\.from)).sorted(by: >)
    for path in removals {
      guard path.section < sections.count, path.item < sections[path.section].objects.count else {
        sections = [Section(name: "cannot apply \(ServerMessage.changes(changes).text)", objects: [])]
        return
      }
      sections[path.section].objects.remove(at: path.item)
    }
    for index in changes.deletedSections.sorted(by: >) {
      guard index < sections.count, sections[index].objects.isEmpty else {
        sections = [Section(name: "cannot apply \(ServerMessage.changes(changes).text)", objects: [])]
        return
      }
      sections.remove(at: index)
    }
    for section in changes.insertedSections.sorted(by: { $0.index < $1.index }) {
      sections.insert(Section(name: section.name, objects: []), at: section.index)
    }
    let insertions = (changes.inserted.map { ($0.path, $0.object) } + changes.moved.map { ($0.to, $0.object) })
      .sorted { $0.0 < $1.0 }
    for (path, object) in insertions {
      guard path.section < sections.count, path.item <= sections[path.section].objects.count else {
        sections = [Section(name: "cannot apply \(ServerMessage.changes(changes).text)", objects: [])]
        return
      }
      sections[path.section].objects.insert(strip(object), at: path.item)
    }
    for row in changes.updated {
      guard row.path.section < sections.count, row.path.item < sections[row.path.section].objects.count else {
        sections = [Section(name: "cannot apply \(ServerMessage.changes(changes).text)", objects: [])]
        return
      }
      sections[row.path.section].objects[row.path.item] = strip(row.object)
    }
    sequenceNumber = changes.sequenceNumber
  }

  private func strip(_ object: LiveObject) -> LiveObject { LiveObject(ref: object.ref, values: object.values) }

  /// The list without sequence numbers, for comparing with a fresh one.
  public var rows: [Section] { sections }

  /// The sections and their refs.
  public var description: String {
    sections.map { "\($0.name ?? "nil"): \($0.objects.map(\.ref))" }.joined(separator: " | ")
  }
}
