import ObjectGraph

/// The watcher the monitors of one context ride on: one per context and
/// clock (the system's, unless a list monitor names another), found
/// through a process-wide registry keyed weakly by the context, and kept
/// alive by its monitors alone (it goes with the last). Its target is its
/// watches' handlers alone: each monitor adds its watch with a
/// `WatchRoute` to its own `MonitorDeliveryQueue`
/// (`watcher.watch(_:predicate:options:route:)`), and holds the hub.
///
/// An object monitor's watch is `TRUEPREDICATE` on the object's entity,
/// with the object as its instance filter: the watcher matches it through
/// its instance index, so a save costs one lookup per changed object
/// however many objects are monitored.
final class MonitorHub: Sendable {
  /// One context's hub, as the registry holds it: weakly, with the
  /// context (an identifier alone could be a dead context's, reused).
  private struct Entry {
    weak var context: ObjectContext?
    weak var hub: MonitorHub?
    let number: UInt64
  }

  /// A context and a clock, by identity. A live hub's watcher holds its
  /// clock, so a clock's identifier cannot be reused while the entry's
  /// hub lives.
  private struct Key: Hashable {
    let context: ObjectIdentifier
    let clock: ObjectIdentifier
  }

  private struct Registry {
    var entries: [Key: Entry] = [:]
    var nextNumber: UInt64 = 0
  }

  private static let registry = LockedState(Registry())

  let watcher: ContextWatcher
  private let key: Key
  /// Tells this hub's registry entry from a later hub's for the same key.
  private let number: UInt64

  private init(context: ObjectContext, clock: any WatchClock, key: Key, number: UInt64) {
    watcher = ContextWatcher(
      context: context, target: .watchHandlers(on: .immediate), options: WatcherOptions(clock: clock))
    self.key = key
    self.number = number
  }

  deinit {
    // Only its own entry: a new hub may have replaced it already.
    Self.registry.withLock { registry in
      if registry.entries[key]?.number == number { registry.entries[key] = nil }
    }
  }

  /// The hub of `context`'s monitors on `clock`, made if it has none.
  ///
  /// No hub is released under the registry's lock (its `deinit` takes the
  /// lock): hubs found there are returned, and a hub made by a caller that
  /// lost a race is released by that caller, after the lock.
  static func hub(for context: ObjectContext, clock: any WatchClock = SystemWatchClock.shared) -> MonitorHub {
    let key = Key(context: ObjectIdentifier(context), clock: ObjectIdentifier(clock))
    let (found, number) = registry.withLock { registry -> (MonitorHub?, UInt64) in
      if let entry = registry.entries[key], entry.context === context, let hub = entry.hub { return (hub, 0) }
      registry.nextNumber += 1
      return (nil, registry.nextNumber)
    }
    if let found { return found }
    // Made outside the lock: the watcher registers a save observer.
    let made = MonitorHub(context: context, clock: clock, key: key, number: number)
    let winner = registry.withLock { registry -> MonitorHub? in
      if let entry = registry.entries[key], entry.context === context, let hub = entry.hub { return hub }
      registry.entries[key] = Entry(context: context, hub: made, number: number)
      return nil
    }
    return winner ?? made
  }
}
