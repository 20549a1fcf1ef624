public import WatchFormats

/// An object as a message carries it: its ref, its readable values (nil
/// where the message gives none, as for a deletion from a list) and the
/// readable keys a save changed.
public struct LiveObject: Equatable, Sendable {
  /// The object's opaque, stable name (see ``ObjectRefs``).
  public var ref: String
  /// A JSON object of the readable attributes, in schema order, values in
  /// the conventions of `WatchFormats`; nil when the message carries none.
  public var values: JSONValue?
  /// The readable keys the save changed, for updates and moves.
  public var changedKeys: [String]

  /// Creates an object.
  public init(ref: String, values: JSONValue? = nil, changedKeys: [String] = []) {
    self.ref = ref
    self.values = values
    self.changedKeys = changedKeys
  }
}
