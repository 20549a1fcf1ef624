import ObjectGraph

/// The registrations of a monitor's observers, whatever their types: the
/// state of an ``ObserverList``, kept apart from the list's generic
/// parameters so that its registration list is of one concrete type. The
/// reads a delivery makes (``count``, ``forEach(_:)``) are this module's
/// own loops over the list's entries: a call into `RegistrationList`'s
/// generic members from here runs unspecialized, and looks the entries'
/// type up at run time on each delivery.
///
/// Entries are in registration order. Adding and removing an observer
/// object, and removing a closure's registration, cost O(log *n*)
/// amortized (``RegistrationList``, and a map from an observer object's
/// identity to its registration).
struct ObserverRegistry {
  /// One observer: an object held weakly, or a closure in a box.
  struct Entry {
    /// The observer object (nil for a closure, or once it is released).
    weak var object: AnyObject?
    /// The observer object's identity, kept after it is released so that
    /// its entry in `byObject` can be found and dropped; nil for a
    /// closure.
    let key: ObjectIdentifier?
    /// The closure's box (the list's `Handler`); nil for an object.
    let handler: AnyObject?

    /// Whether the entry is an observer object that was released.
    var isReleased: Bool { handler == nil && object == nil }
  }

  /// The observers, in registration order.
  private(set) var entries = RegistrationList<Entry>()
  /// The registration of each observer object. An identity whose object
  /// was released may be another object's later: an entry counts as that
  /// object's only while its weak reference is the object.
  private var byObject: [ObjectIdentifier: UInt64] = [:]
  /// The entry count at which `add(object:)` drops released observer
  /// objects: twice the count after the last drop, so that dropping costs
  /// O(1) amortized per addition.
  private var pruneAt = 16

  /// The registered entries (released observer objects not yet dropped
  /// count).
  var count: Int { entries.entries.count - entries.vacant }

  /// Calls `body` with each registered entry, in registration order.
  func forEach(_ body: (Entry) -> Void) {
    for entry in entries.entries {
      if let element = entry.element { body(element) }
    }
  }

  /// Adds an observer object, held weakly; adding one already there
  /// changes nothing.
  mutating func add(object: AnyObject) {
    let key = ObjectIdentifier(object)
    if let id = byObject[key] {
      if entries[id]?.object === object { return }
      // A released object's entry under a reused identity.
      entries.remove(id)
    }
    // Dropping released observers, once the list has doubled since the
    // last drop, keeps it from growing with observers that come and go
    // without being removed.
    if entries.count >= pruneAt {
      dropReleased()
      pruneAt = max(16, 2 * entries.count)
    }
    byObject[key] = entries.append(Entry(object: object, key: key, handler: nil))
  }

  /// Removes an observer object; removing one that is not there changes
  /// nothing.
  mutating func remove(object: AnyObject) {
    let key = ObjectIdentifier(object)
    guard let id = byObject[key], entries[id]?.object === object else { return }
    entries.remove(id)
    byObject[key] = nil
  }

  /// Adds a closure's box.
  ///
  /// - Returns: Its registration, for `remove(_:)`.
  mutating func add(handler: AnyObject) -> UInt64 {
    entries.append(Entry(object: nil, key: nil, handler: handler))
  }

  /// Removes a registration; removing one that is gone changes nothing.
  ///
  /// - Returns: The entry removed, for the caller to release after its
  ///   lock.
  mutating func remove(_ id: UInt64) -> Entry? {
    entries.remove(id)
  }

  /// Drops the entries of released observer objects.
  mutating func dropReleased() {
    var released: [ObjectIdentifier] = []
    entries.removeAll { entry in
      guard entry.isReleased else { return false }
      if let key = entry.key { released.append(key) }
      return true
    }
    for key in released {
      // The identity may be a live object's by now, registered since.
      if let id = byObject[key], entries[id] == nil { byObject[key] = nil }
    }
  }
}
