// The list monitor's ordered index (through @testable import), against a
// sorted array.

import TestSupport
import Testing

@testable import ContextWatching

extension Int: OrderStatisticElement {
  /// The value itself, so that the tests check weighted sums too.
  var weight: Int { self }
}

@Suite("List monitor: order-statistics tree")
struct OrderStatisticTreeTests {
  /// The tree's count, and its element and weight before a random
  /// position, against the array.
  static func spotCheck(
    _ tree: OrderStatisticTree<Int>, against array: [Int], random: inout SeededGenerator, _ context: String
  ) {
    #expect(tree.count == array.count, "count, \(context)")
    guard !array.isEmpty else { return }
    let index = Int.random(in: 0..<array.count, using: &random)
    #expect(tree[index] == array[index], "element at \(index), \(context)")
    #expect(tree.weight(before: index) == array[..<index].reduce(0, +), "weight before \(index), \(context)")
  }

  @Test func randomInsertsRemovalsAndUpdatesMatchASortedArray() {
    let seed = SeededGenerator.seed(default: 0x7EE)
    var random = SeededGenerator(seed: seed)
    var tree = OrderStatisticTree<Int>()
    var array: [Int] = []
    var versions: [(OrderStatisticTree<Int>, [Int])] = []
    for step in 0..<20_000 {
      let value = Int.random(in: 0..<3_000, using: &random)
      let position = array.firstIndex { $0 >= value } ?? array.count
      let present = position < array.count && array[position] == value
      // Grow to about 1,500 elements, then churn around that size.
      if !present && (array.count < 1_500 || Bool.random(using: &random)) {
        let at = tree.insert(value, at: { $0.pointee < value })
        array.insert(value, at: position)
        #expect(at == position, "insert at step \(step), seed \(seed)")
      } else if present {
        let removed = tree.remove(at: { $0.pointee < value }, where: { $0.pointee == value })
        array.remove(at: position)
        #expect(removed?.0 == position && removed?.1 == value, "remove at step \(step), seed \(seed)")
      } else {
        #expect(tree.remove(at: { $0.pointee < value }, where: { $0.pointee == value }) == nil)
      }
      if step % 997 == 0 { versions.append((tree, array)) }
      if step % 101 == 0 { Self.spotCheck(tree, against: array, random: &random, "step \(step), seed \(seed)") }
    }
    #expect(Array(tree) == array)
    #expect(tree.checkInvariants(<=))
    // Copies taken along the way kept their content while the tree moved on.
    for (version, expected) in versions {
      #expect(Array(version) == expected)
      #expect(version.checkInvariants(<=))
    }
  }

  @Test func updatesInPlaceAndEmptying() {
    var tree = OrderStatisticTree(sorted: 0..<100)
    #expect(tree.count == 100)
    #expect(tree.checkInvariants(<=))
    let copy = tree
    #expect(tree.update(at: { $0.pointee < 40 }, where: { $0.pointee == 40 }) { $0 = 40 } == 40)
    #expect(tree.update(at: { $0.pointee < 400 }, where: { $0.pointee == 400 }) { $0 = 1 } == nil)
    for value in (0..<100).reversed() {
      #expect(tree.remove(at: { $0.pointee < value }, where: { $0.pointee == value })?.0 == value)
    }
    #expect(tree.isEmpty && Array(tree).isEmpty)
    #expect(Array(copy) == Array(0..<100))
    #expect(copy.partitionPoint { $0.pointee < 57 } == 57)
  }

  /// Removals and updates found by position alone (no comparison), mixed
  /// with inserts, against a sorted array; copies keep their content.
  @Test func removalsAndUpdatesByPositionMatchASortedArray() {
    let seed = SeededGenerator.seed(default: 0x905)
    var random = SeededGenerator(seed: seed)
    var array = (0..<1_200).map { $0 * 5 }
    var tree = OrderStatisticTree(sorted: array)
    let copy = tree
    for step in 0..<6_000 {
      let position = array.isEmpty ? 0 : Int.random(in: 0..<array.count, using: &random)
      switch Int.random(in: 0..<3, using: &random) {
      case 0 where !array.isEmpty:
        let removed = tree.remove(at: position)
        #expect(removed == array.remove(at: position), "remove at \(position), step \(step), seed \(seed)")
      case 1 where !array.isEmpty:
        // A value between the neighbours, so that the order holds.
        let low = position > 0 ? array[position - 1] + 1 : 0
        let high = position + 1 < array.count ? array[position + 1] - 1 : array[position] + 10
        let value = Int.random(in: low...Swift.max(low, high), using: &random)
        tree.update(at: position) { $0 = value }
        array[position] = value
      default:
        let value = Int.random(in: 0..<7_000, using: &random)
        let at = array.firstIndex { $0 >= value } ?? array.count
        guard at == array.count || array[at] != value else { continue }
        tree.insert(value, at: { $0.pointee < value })
        array.insert(value, at: at)
      }
      if step % 97 == 0 { Self.spotCheck(tree, against: array, random: &random, "step \(step), seed \(seed)") }
    }
    #expect(Array(tree) == array)
    #expect(tree.checkInvariants(<=))
    #expect(Array(copy) == (0..<1_200).map { $0 * 5 })
    #expect(copy.checkInvariants(<=))
  }

  /// The element covering each weight, and the weight before it, equal a
  /// scan of the running sums, for trees of one leaf and of several levels
  /// (elements weigh their value; zero-weight elements are passed over).
  @Test func findsTheElementCoveringAWeight() {
    var random = SeededGenerator(seed: SeededGenerator.seed(default: 0xC0))
    for size in [1, 3, 28, 29, 300, 2_000] {
      let values = (0..<size).map { _ in Int.random(in: 0..<6, using: &random) }.sorted()
      let tree = OrderStatisticTree(sorted: values)
      let total = values.reduce(0, +)
      var position = 0
      var before = 0
      for weight in 0..<total {
        while before + values[position] <= weight {
          before += values[position]
          position += 1
        }
        let found = tree.position(coveringWeight: weight)
        #expect(found.position == position && found.weightBefore == before, "size \(size), weight \(weight)")
      }
    }
  }

  /// Every position of trees of 1 to 300 elements (one leaf, several,
  /// several levels): the element at a partition point and a position's
  /// neighbours read in one descent equal the array's, at leaf edges too.
  @Test func readsAtAPartitionPointAndANeighbourhoodInOneDescent() {
    for size in [1, 2, 27, 28, 29, 57, 300] {
      let values = (0..<size).map { $0 * 2 }
      let tree = OrderStatisticTree(sorted: values)
      for position in 0..<size {
        let probe = values[position] - 1  // between the elements before and at `position`
        let found = tree.partitionPoint({ $0.pointee < probe }, reading: { $0.pointee })
        #expect(found.position == position && found.result == values[position], "size \(size), position \(position)")
        let (before, after) = tree.readNeighbours(of: position) { $0?.pointee }
        #expect(before == (position > 0 ? values[position - 1] : nil), "size \(size), position \(position)")
        #expect(after == (position + 1 < size ? values[position + 1] : nil), "size \(size), position \(position)")
      }
    }
  }

  @Test func longestIncreasingRunIsLongestAndIncreasing() {
    #expect(ListState.longestIncreasingRun([3, 1, 2, 5, 4, 6]) == [1, 2, 4, 6])
    #expect(ListState.longestIncreasingRun([]) == [])
    #expect(ListState.longestIncreasingRun([5, 4, 3]).count == 1)
  }
}
