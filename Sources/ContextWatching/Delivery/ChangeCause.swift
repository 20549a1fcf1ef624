import ObjectGraph

/// What a delivery reports: a save, a context's pending (unsaved) changes,
/// or time passing, when objects crossed the thresholds of predicates that
/// compare with `now()`.
///
/// ```swift
/// func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
///   if changes.cause == .timePassed { print("due now:", changes.entered.map(\.objectID)) }
/// }
/// ```
public enum ChangeCause: Hashable, Sendable {
  /// A save changed the objects delivered.
  case save
  /// Changes the context published before saving them (see
  /// `ObjectContext.processPendingChanges()`), to a watch or monitor that
  /// follows them (``ChangeKinds/pending``).
  case pending
  /// Time passed: the objects delivered entered or exited a watch whose
  /// predicate compares a key with `now()`, without any save touching them.
  /// Such a delivery holds entered and exited objects only, each with the
  /// same values before and after and no changed keys.
  case timePassed
}

extension ChangeCause {
  /// The cause of a delivery of `kind`'s change value.
  init(_ kind: ContextSave.Kind) {
    self = kind == .pending ? .pending : .save
  }
}
