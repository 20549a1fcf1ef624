public import ObjectGraph

/// The kinds of change a watch follows: saves, pending changes (made and
/// not saved yet), or both.
///
/// ```swift
/// var options = WatchOptions()
/// options.follows = .pending      // Core Data's objects-did-change, not its did-save
/// let token = try watcher.watch("Person", where: "age > 30", options: options)
/// ```
public struct ChangeKinds: OptionSet, Hashable, Sendable {
  /// The bits.
  public let rawValue: UInt8

  /// Creates a set from its bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Saves: `ContextSave.Kind.save`. What a watch follows by default.
  public static let saves = ChangeKinds(rawValue: 1 << 0)
  /// Pending changes, as the context publishes them (see
  /// `ObjectContext.processPendingChanges()`): `ContextSave.Kind.pending`.
  public static let pending = ChangeKinds(rawValue: 1 << 1)
  /// Saves and pending changes.
  public static let all: ChangeKinds = [.saves, .pending]

  /// The set holding one kind.
  public init(_ kind: ContextSave.Kind) {
    switch kind {
    case .save: self = .saves
    case .pending: self = .pending
    }
  }
}
