/// Where a key is stored.
package enum PropertySlot: Hashable, Sendable {
  case attribute(Int)
  case relationship(Int)
}
