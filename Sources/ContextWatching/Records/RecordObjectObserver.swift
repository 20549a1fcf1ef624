public import ObjectGraph

/// Observes one object through a ``RecordObjectMonitor``, as a record:
/// ``ObjectObserver`` for a record type. Each method has an empty default.
///
/// The record is the object's snapshot decoded once per save for every
/// observer, or why it cannot be read. The monitor holds its observers
/// weakly and calls them on its scheduler, one save at a time.
///
/// ```swift
/// final class Badge: RecordObjectObserver {
///   func objectMonitor(
///     _ monitor: RecordObjectMonitor<Person>, didUpdate record: Result<Person, ObjectGraphError>,
///     changedKeys: [String]
///   ) {
///     if case .success(let person) = record { print(person.name, "changed", changedKeys) }
///   }
/// }
/// ```
public protocol RecordObjectObserver<Record>: AnyObject, Sendable {
  /// The record type the monitor reads.
  associatedtype Record: EntityRecord & Sendable

  /// A save changed the object: the monitor's record is still `record`,
  /// as before the save.
  func objectMonitor(_ monitor: RecordObjectMonitor<Record>, willUpdate record: Result<Record, ObjectGraphError>)

  /// The monitor took a save's change of the object: its record is now
  /// `record`; `changedKeys` names the keys the save changed, in schema
  /// order.
  func objectMonitor(
    _ monitor: RecordObjectMonitor<Record>, didUpdate record: Result<Record, ObjectGraphError>, changedKeys: [String])

  /// A save deleted the object: its last saved values. The monitor's
  /// record is nil by then, and nothing more is reported.
  func objectMonitor(_ monitor: RecordObjectMonitor<Record>, didDelete record: Result<Record, ObjectGraphError>)
}

extension RecordObjectObserver {
  /// Does nothing.
  public func objectMonitor(
    _ monitor: RecordObjectMonitor<Record>, willUpdate record: Result<Record, ObjectGraphError>
  ) {}

  /// Does nothing.
  public func objectMonitor(
    _ monitor: RecordObjectMonitor<Record>, didUpdate record: Result<Record, ObjectGraphError>, changedKeys: [String]
  ) {}

  /// Does nothing.
  public func objectMonitor(
    _ monitor: RecordObjectMonitor<Record>, didDelete record: Result<Record, ObjectGraphError>
  ) {}
}
