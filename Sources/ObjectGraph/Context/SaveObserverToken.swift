/// Keeps a save observer registered: cancel it, or let it go, to unregister.
///
/// ```swift
/// let token = context.addSaveObserver { save in print(save.sequenceNumber) }
/// // …
/// token.cancel()
/// ```
public final class SaveObserverToken: Sendable {
  private let registry: SaveObserverRegistry
  private let id: UInt64

  init(registry: SaveObserverRegistry, id: UInt64) {
    self.registry = registry
    self.id = id
  }

  /// Unregisters the observer. Saves that already started may still call
  /// it; later ones do not. Cancelling twice changes nothing.
  public func cancel() { registry.remove(id) }

  deinit { registry.remove(id) }
}
