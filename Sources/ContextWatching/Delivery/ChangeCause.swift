/// Why a delivery was made: a save changed objects, or time passed and
/// objects crossed the thresholds of predicates that compare with `now()`.
///
/// ```swift
/// func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
///   if changes.cause == .timePassed { print("due now:", changes.entered.map(\.objectID)) }
/// }
/// ```
public enum ChangeCause: Hashable, Sendable {
  /// A save changed the objects delivered.
  case save
  /// Time passed: the objects delivered entered or exited a watch whose
  /// predicate compares a key with `now()`, without any save touching them.
  /// Such a delivery holds entered and exited objects only, each with the
  /// same values before and after and no changed keys.
  case timePassed
}
