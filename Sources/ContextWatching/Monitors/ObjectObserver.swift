public import ObjectGraph

/// Observes one object through an ``ObjectMonitor``: told before and after
/// each saved change of the object, and when it is deleted.
///
/// The monitor holds its observers weakly, and calls them on its scheduler,
/// one save at a time, in save order. Each method has a default empty
/// implementation: implement the ones you need. A `@MainActor` type
/// conforms with `nonisolated` methods that call `MainActor.assumeIsolated`
/// when the monitor's scheduler is ``DeliveryScheduler/mainActor``.
///
/// ```swift
/// final class Badge: ObjectObserver {
///   func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {
///     print(object["name"] ?? "?", "changed", changedKeys)
///   }
///   func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot) {
///     print("gone:", object.objectID)
///   }
/// }
/// ```
public protocol ObjectObserver: AnyObject, Sendable {
  /// Called before the monitor takes a save's change of the object: the
  /// monitor's ``ObjectMonitor/object`` is still `object`, the snapshot
  /// before the save.
  func objectMonitor(_ monitor: ObjectMonitor, willUpdate object: ObjectSnapshot)

  /// Called after the monitor took a save's change of the object: its
  /// ``ObjectMonitor/object`` is now `object`. `changedKeys` names the
  /// attributes and relationships the save changed, in schema order
  /// (every observer gets them).
  func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String])

  /// Called once the object was deleted by a save, with its last saved
  /// values; the monitor's ``ObjectMonitor/object`` is nil by then, and
  /// nothing more is reported.
  func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot)
}

extension ObjectObserver {
  /// Does nothing.
  public func objectMonitor(_ monitor: ObjectMonitor, willUpdate object: ObjectSnapshot) {}

  /// Does nothing.
  public func objectMonitor(_ monitor: ObjectMonitor, didUpdate object: ObjectSnapshot, changedKeys: [String]) {}

  /// Does nothing.
  public func objectMonitor(_ monitor: ObjectMonitor, didDelete object: ObjectSnapshot) {}
}
