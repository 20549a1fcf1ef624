public import ObjectGraph

/// A listed object's record with its identifier, so that a SwiftUI
/// `ForEach` tells rows apart by object, whatever the record holds.
public struct ListedRecord<Record: Sendable>: Identifiable, Sendable {
  /// The object's identifier.
  public let id: ObjectID
  /// The object read as a record.
  public let record: Record
}
