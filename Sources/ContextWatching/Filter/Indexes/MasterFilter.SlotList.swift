extension MasterFilter {
  /// Watch slots in an array, for fast iteration, with O(1) removal: a
  /// short list (most index keys hold one watch) is searched on removal; a
  /// long one keeps a map of positions.
  struct SlotList {
    private(set) var slots: [Int] = []
    private var positions: [Int: Int]?

    private static let mapThreshold = 16

    var isEmpty: Bool { slots.isEmpty }

    mutating func insert(_ slot: Int) {
      if positions == nil && slots.count >= Self.mapThreshold {
        positions = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1, $0) })
      }
      if positions != nil {
        guard positions![slot] == nil else { return }
        positions![slot] = slots.count
      } else if slots.contains(slot) {
        return
      } else if slots.count == 1 {
        // A second watch under a key makes room for four: growing one at a
        // time allocates at 2, 4 and 8. (Most keys hold one watch, in an
        // array of one.)
        slots.reserveCapacity(4)
      }
      slots.append(slot)
    }

    mutating func remove(_ slot: Int) {
      let position: Int
      if positions != nil {
        guard let found = positions!.removeValue(forKey: slot) else { return }
        position = found
      } else {
        guard let found = slots.firstIndex(of: slot) else { return }
        position = found
      }
      let last = slots.removeLast()
      if position < slots.count {
        slots[position] = last
        positions?[last] = position
      }
    }
  }
}
