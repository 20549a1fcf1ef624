/// `ContextSave` encodes as one JSON object whose keys are fixed:
///
/// ```json
/// {"sequenceNumber": 3, "author": "importer", "context": "replica",
///  "inserted": [SNAPSHOT, …],
///  "updated": [{"before": SNAPSHOT, "after": SNAPSHOT, "changedKeys": ["age"]}, …],
///  "deleted": [SNAPSHOT, …]}
/// ```
///
/// Snapshots take the form of ``ObjectSnapshot``'s encoding (`id`, `entity`,
/// `values`, `relationships`), so decoding needs the schema in the decoder's
/// `userInfo` under ``ObjectSnapshot/schemaUserInfoKey``. A nil author is
/// written as `null`; every key is always present, except `"kind"`, written
/// (as `"pending"`) only for pending changes.
extension ContextSave: Codable {
  private enum CodingKeys: String, CodingKey {
    case sequenceNumber, author, contextName = "context", inserted, updated, deleted, kind
  }

  /// Reads a save written by ``encode(to:)``, against the schema found in the
  /// decoder's `userInfo` under ``ObjectSnapshot/schemaUserInfoKey``.
  ///
  /// - Throws: `DecodingError` when a key is missing, no schema is given, a
  ///   snapshot does not fit the schema, or the kind is neither `"save"` nor
  ///   `"pending"`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let kind: Kind
    switch try container.decodeIfPresent(String.self, forKey: .kind) {
    case nil, "save": kind = .save
    case "pending": kind = .pending
    case let other?:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: container, debugDescription: "unknown kind '\(other)' (expected 'save' or 'pending')")
    }
    self.init(
      sequenceNumber: try container.decode(Int.self, forKey: .sequenceNumber),
      author: try container.decodeIfPresent(String.self, forKey: .author),
      contextName: try container.decode(String.self, forKey: .contextName),
      inserted: try container.decode([ObjectSnapshot].self, forKey: .inserted),
      updated: try container.decode([ObjectUpdate].self, forKey: .updated),
      deleted: try container.decode([ObjectSnapshot].self, forKey: .deleted), kind: kind)
  }

  /// Writes every key, the author as `null` when there is none.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(sequenceNumber, forKey: .sequenceNumber)
    try container.encode(author, forKey: .author)
    try container.encode(contextName, forKey: .contextName)
    try container.encode(inserted, forKey: .inserted)
    try container.encode(updated, forKey: .updated)
    try container.encode(deleted, forKey: .deleted)
    if kind == .pending { try container.encode("pending", forKey: .kind) }
  }
}

/// `ObjectUpdate` encodes as `{"before": SNAPSHOT, "after": SNAPSHOT,
/// "changedKeys": [KEY, …]}`, the changed keys in ``ObjectUpdate/changedKeys``
/// order.
extension ObjectUpdate: Codable {
  private enum CodingKeys: String, CodingKey {
    case before, after, changedKeys
  }

  /// Reads an update written by ``encode(to:)``, against the schema found in
  /// the decoder's `userInfo` under ``ObjectSnapshot/schemaUserInfoKey``.
  ///
  /// - Throws: `DecodingError` when a key is missing, the two snapshots show
  ///   different objects, or a changed key is not a key of the entity.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let before = try container.decode(ObjectSnapshot.self, forKey: .before)
    let after = try container.decode(ObjectSnapshot.self, forKey: .after)
    guard before.objectID == after.objectID, before.entityName == after.entityName else {
      throw DecodingError.dataCorruptedError(
        forKey: .after, in: container,
        debugDescription:
          "'after' shows \(after.entityName) \(after.objectID), 'before' \(before.entityName) \(before.objectID)")
    }
    let changedKeys = try container.decode([String].self, forKey: .changedKeys)
    if let unknown = changedKeys.first(where: { after.property($0) == nil }) {
      throw DecodingError.dataCorruptedError(
        forKey: .changedKeys, in: container,
        debugDescription: "'\(unknown)' is not a key of \(after.entityName)")
    }
    self.init(before: before, after: after, changedKeys: changedKeys)
  }

  /// Writes both snapshots and the changed keys.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(before, forKey: .before)
    try container.encode(after, forKey: .after)
    try container.encode(changedKeys, forKey: .changedKeys)
  }
}
