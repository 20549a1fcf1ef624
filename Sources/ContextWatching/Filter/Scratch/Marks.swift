/// Marks per watch slot in raw storage: the classifier sets and clears
/// them for every match, without the uniqueness check that every write to
/// an array in the filter's struct costs.
final class Marks {
  // Invariants 1 and 4 in ScratchBuffer.swift.
  @exclusivity(unchecked) private(set) var storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var capacity = 16

  init() {
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: 0, count: capacity)
  }

  deinit { storage.deallocate() }

  /// Makes room for slots below `count`; new marks are clear.
  func grow(to count: Int) {
    guard count > capacity else { return }
    let newCapacity = max(count, capacity * 2)
    storage = storage.regrown(from: capacity, to: newCapacity, filling: 0)
    capacity = newCapacity
  }
}
