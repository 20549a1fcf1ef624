extension MasterFilter {
  /// Results of shared predicates for the current image, by predicate
  /// slot, stamped with a generation so that moving to the next image is
  /// one increment. Raw storage: the hot path reads and writes it without
  /// uniqueness checks.
  final class Memo {
    // Invariants 1 and 5 in ScratchBuffer.swift: run-time exclusivity
    // checks would cost more than the memo saves.
    @exclusivity(unchecked) private var generations: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var results: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var generation: UInt32 = 1

    init() {
      generations = .allocate(capacity: capacity)
      generations.initialize(repeating: 0, count: capacity)
      results = .allocate(capacity: capacity)
      results.initialize(repeating: false, count: capacity)
    }

    deinit {
      generations.deallocate()
      results.deallocate()
    }

    func grow(to count: Int) {
      guard count > capacity else { return }
      let newCapacity = max(count, capacity * 2)
      generations = generations.regrown(from: capacity, to: newCapacity, filling: 0)
      results = results.regrown(from: capacity, to: newCapacity, filling: false)
      capacity = newCapacity
    }

    @inline(__always)
    func next() {
      generation &+= 1
      if generation == 0 {
        generations.update(repeating: 0, count: capacity)
        generation = 1
      }
    }

    @inline(__always)
    func result(_ slot: Int) -> Bool? { generations[slot] == generation ? results[slot] : nil }

    @inline(__always)
    func record(_ slot: Int, _ result: Bool) {
      generations[slot] = generation
      results[slot] = result
    }
  }
}
