public import ObjectGraph

/// What a ``RecordObjectMonitor`` reports, for closure observers and its
/// async sequence of events: ``ObjectMonitorEvent`` with the object read as
/// a record, or why it cannot be.
///
/// ```swift
/// for await event in monitor.events {
///   if case .didUpdate(.success(let person), let changedKeys) = event { print(person.name, changedKeys) }
/// }
/// ```
public enum RecordObjectMonitorEvent<Record: EntityRecord & Sendable>: Sendable {
  /// A save changed the object; the monitor still holds this record (as
  /// before the save).
  case willUpdate(Result<Record, ObjectGraphError>)
  /// The monitor now holds this record; the save changed these keys.
  case didUpdate(Result<Record, ObjectGraphError>, changedKeys: [String])
  /// A save deleted the object; its last saved values. The last event.
  case didDelete(Result<Record, ObjectGraphError>)
}
