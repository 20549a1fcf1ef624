public import ObjectGraph

/// What an ``ObjectMonitor`` reports, for closure observers and its async
/// sequence of events: the calls of ``ObjectObserver`` as values.
public enum ObjectMonitorEvent: Sendable, Hashable {
  /// A save changed the object; the monitor still holds this snapshot
  /// (before the save).
  case willUpdate(ObjectSnapshot)
  /// The monitor now holds this snapshot; the save changed these keys.
  case didUpdate(ObjectSnapshot, changedKeys: [String])
  /// A save deleted the object; its last saved values. The last event.
  case didDelete(ObjectSnapshot)
}
