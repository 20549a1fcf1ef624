import ObjectGraph
import PredicateDSL

/// An object on one side of a save: what watch predicates evaluate.
struct WatchImage: GraphObject {
  let snapshot: ObjectSnapshot
  let graph: SaveGraph

  var layout: EntityLayout { snapshot.layout }
  func attribute(_ slot: Int) -> FilterValue { snapshot.values[slot] }
  /// An attribute as a range index compares it (nil for nil, strings and
  /// other values without a numeric order), read in place: no copy of the
  /// value.
  func rangeKey(_ slot: Int) -> RangeKey? {
    snapshot.values.withUnsafeBufferPointer { values in
      // Checked in release builds too, as the array's subscript would be:
      // a snapshot of another schema must trap, not read past its values.
      precondition(slot < values.count, "attribute slot \(slot) is past the snapshot's \(values.count) values")
      return RangeKey(values[slot])
    }
  }
  /// Calls `body` with an attribute read in place (no copy of the value).
  @inline(__always)
  func withAttribute<Result>(_ slot: Int, _ body: (borrowing FilterValue) -> Result) -> Result {
    snapshot.values.withUnsafeBufferPointer { values in
      precondition(slot < values.count, "attribute slot \(slot) is past the snapshot's \(values.count) values")
      // Through the pointer's addressor: the buffer's subscript would copy
      // the value (a retain of a string's storage).
      return body(values.baseAddress.unsafelyUnwrapped[slot])
    }
  }
  func targets(_ slot: Int) -> RelationshipTargets { snapshot.relationships[slot] }
  func related(_ id: ObjectID) -> WatchImage? {
    graph.snapshot(of: id).map { WatchImage(snapshot: $0, graph: graph) }
  }
  static var followsRelationships: Bool { true }
}
