import ObjectGraph

/// The objects of one timed watch that will cross a threshold, by the time
/// of their next crossing: a binary min-heap with the position of each
/// object, so that an object's time is updated or removed in O(log n).
struct CrossingQueue {
  struct Element {
    var time: Double
    var snapshot: ObjectSnapshot
    var objectID: ObjectID { snapshot.objectID }
  }

  private(set) var elements: [Element] = []
  private var positions: [ObjectID: Int] = [:]

  var count: Int { elements.count }
  var isEmpty: Bool { elements.isEmpty }
  /// The earliest crossing.
  var first: Element? { elements.first }

  /// The time of an object's next crossing, if it has one.
  func time(of objectID: ObjectID) -> Double? { positions[objectID].map { elements[$0].time } }

  /// Sets an object's next crossing (and the snapshot it is judged on),
  /// or removes it for nil.
  ///
  /// - Complexity: O(log n).
  mutating func set(_ snapshot: ObjectSnapshot, crossingAt time: Double?) {
    let objectID = snapshot.objectID
    guard let time else {
      remove(objectID)
      return
    }
    if let position = positions[objectID] {
      let earlier = time < elements[position].time
      elements[position] = Element(time: time, snapshot: snapshot)
      if earlier { siftUp(position) } else { siftDown(position) }
    } else {
      elements.append(Element(time: time, snapshot: snapshot))
      positions[objectID] = elements.count - 1
      siftUp(elements.count - 1)
    }
  }

  /// Removes an object.
  ///
  /// - Complexity: O(log n).
  mutating func remove(_ objectID: ObjectID) {
    guard let position = positions.removeValue(forKey: objectID) else { return }
    let last = elements.removeLast()
    guard position < elements.count else { return }
    elements[position] = last
    positions[last.objectID] = position
    if position > 0 && last.time < elements[(position - 1) / 2].time { siftUp(position) } else { siftDown(position) }
  }

  /// Removes and returns the earliest crossing if it is at or before `time`.
  ///
  /// - Complexity: O(log n).
  mutating func popDue(at time: Double) -> Element? {
    guard let first = elements.first, first.time <= time else { return nil }
    remove(first.objectID)
    return first
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child].time < elements[parent].time else { break }
      swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < elements.count else { return }
      var smallest = left
      if left + 1 < elements.count && elements[left + 1].time < elements[left].time { smallest = left + 1 }
      guard elements[smallest].time < elements[parent].time else { return }
      swapAt(parent, smallest)
      parent = smallest
    }
  }

  private mutating func swapAt(_ a: Int, _ b: Int) {
    elements.swapAt(a, b)
    positions[elements[a].objectID] = a
    positions[elements[b].objectID] = b
  }

  /// Whether the heap order and the positions agree (for tests).
  var isValid: Bool {
    for index in elements.indices {
      if positions[elements[index].objectID] != index { return false }
      if index > 0 && elements[index].time < elements[(index - 1) / 2].time { return false }
    }
    return positions.count == elements.count
  }
}
