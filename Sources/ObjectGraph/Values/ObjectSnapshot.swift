public import PredicateDSL

/// An immutable copy of an object's values at one moment: what saves report,
/// what watchers deliver, and what crosses queues.
///
/// A snapshot holds the object's identity, its entity, every attribute value
/// and every relationship's destinations as object identifiers. Creating one
/// is cheap: it shares the object's storage until the object changes.
///
/// ```swift
/// let snapshot = ann.snapshot()
/// DispatchQueue.global().async { print(snapshot["name"] ?? "none") }
/// ```
///
/// Snapshots encode with `Codable`. Decoding needs the schema, passed in the
/// decoder's `userInfo` under ``ObjectSnapshot/schemaUserInfoKey``:
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo[ObjectSnapshot.schemaUserInfoKey] = schema
/// let copy = try decoder.decode(ObjectSnapshot.self, from: data)
/// ```
public struct ObjectSnapshot: Sendable {
  /// The object's identity.
  public let objectID: ObjectID
  package let layout: EntityLayout
  package let values: [FilterValue]
  package let relationships: [RelationshipTargets]

  package init(
    objectID: ObjectID, layout: EntityLayout, values: [FilterValue], relationships: [RelationshipTargets]
  ) {
    self.objectID = objectID
    self.layout = layout
    self.values = values
    self.relationships = relationships
  }

  /// The entity's name: `"Person"`.
  public var entityName: String { layout.name }

  /// Whether the object is of `entity` or one of its sub-entities.
  public func isKind(of entity: String) -> Bool {
    layout.ancestorNames.contains(entity)
  }

  /// The value of an attribute; nil for a key that is not an attribute of
  /// the entity.
  public subscript(key: String) -> FilterValue? {
    guard case .attribute(let slot) = layout.slot(key) else { return nil }
    return values[slot]
  }

  /// The destinations of a relationship; nil for a key that is not a
  /// relationship of the entity.
  public func targets(of relationship: String) -> RelationshipTargets? {
    guard case .relationship(let slot) = layout.slot(relationship) else { return nil }
    return relationships[slot]
  }

  /// The value of any key: an attribute's value or a relationship's
  /// destinations; nil for a key the entity does not have.
  public func property(_ key: String) -> PropertyValue? {
    switch layout.slot(key) {
    case .attribute(let slot): .attribute(values[slot])
    case .relationship(let slot): .relationship(relationships[slot])
    case nil: nil
    }
  }

  /// Every attribute, by key.
  public var attributeValues: [String: FilterValue] {
    Dictionary(uniqueKeysWithValues: zip(layout.attributes.lazy.map(\.name), values))
  }

  /// Every relationship's destinations, by key.
  public var relationshipTargets: [String: RelationshipTargets] {
    Dictionary(uniqueKeysWithValues: zip(layout.relationships.lazy.map(\.name), relationships))
  }

  /// The keys of the entity, attributes then relationships, in schema order.
  public var keys: [String] { layout.keys }
}

extension ObjectSnapshot: Hashable {
  /// Snapshots are equal when they show the same object of the same entity
  /// with the same values.
  public static func == (lhs: ObjectSnapshot, rhs: ObjectSnapshot) -> Bool {
    lhs.objectID == rhs.objectID && lhs.layout.name == rhs.layout.name && lhs.values == rhs.values
      && lhs.relationships == rhs.relationships
  }

  /// Hashes the identity and the values.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(objectID)
    hasher.combine(values)
  }
}

extension ObjectSnapshot: CustomStringConvertible {
  /// `Person #3 {name: "Ann", age: 31, employer: #1}`: every non-empty key
  /// in schema order.
  public var description: String {
    var parts: [String] = []
    for (attribute, value) in zip(layout.attributes, values) where !value.isNull {
      parts.append("\(attribute.name): \(value)")
    }
    for (relationship, targets) in zip(layout.relationships, relationships) where !targets.isEmpty {
      parts.append("\(relationship.name): \(PropertyValue.relationship(targets))")
    }
    return "\(layout.name) \(objectID) {" + parts.joined(separator: ", ") + "}"
  }
}

extension ObjectSnapshot: Codable {
  /// The `userInfo` key under which a decoder finds the ``ObjectSchema`` that
  /// snapshots are decoded against.
  public static let schemaUserInfoKey = CodingUserInfoKey(rawValue: "ObjectGraph.ObjectSchema")!

  private enum CodingKeys: String, CodingKey {
    case objectID = "id", entity, values, relationships
  }

  /// Reads a snapshot against the schema found in the decoder's `userInfo`.
  ///
  /// - Throws: `DecodingError` when no schema is given, the entity is not in
  ///   it, a key is unknown or a value has the wrong type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard let schema = decoder.userInfo[Self.schemaUserInfoKey] as? ObjectSchema else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "decoding an ObjectSnapshot needs the ObjectSchema in userInfo[ObjectSnapshot.schemaUserInfoKey]"))
    }
    let entity = try container.decode(String.self, forKey: .entity)
    guard let layout = schema.layout(named: entity) else {
      throw DecodingError.dataCorruptedError(
        forKey: .entity, in: container, debugDescription: "unknown entity '\(entity)'")
    }
    var values = layout.initialValues.map { _ in FilterValue.null }
    for (key, value) in try container.decode([String: FilterValue].self, forKey: .values) {
      guard case .attribute(let slot) = layout.slot(key),
        let coerced = AttributeValues.coerce(value, to: layout.attributes[slot].type)
      else {
        throw DecodingError.dataCorruptedError(
          forKey: .values, in: container,
          debugDescription: "'\(key)' is not a \(entity) attribute that takes \(value.typeName) values")
      }
      values[slot] = coerced
    }
    var relationships = layout.initialRelationships
    let decoded =
      try container.decodeIfPresent([String: [ObjectID]].self, forKey: .relationships) ?? [:]
    for (key, ids) in decoded {
      guard case .relationship(let slot) = layout.slot(key),
        layout.relationships[slot].isToMany || ids.count <= 1
      else {
        throw DecodingError.dataCorruptedError(
          forKey: .relationships, in: container,
          debugDescription: "'\(key)' is not a \(entity) relationship that holds \(ids.count) objects")
      }
      relationships[slot] = layout.relationships[slot].isToMany ? .toMany(Set(ids)) : .toOne(ids.first)
    }
    self.init(
      objectID: try container.decode(ObjectID.self, forKey: .objectID), layout: layout, values: values,
      relationships: relationships)
  }

  /// Writes the identity, the entity's name, the non-nil attributes and the
  /// non-empty relationships (destinations in ascending order).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(objectID, forKey: .objectID)
    try container.encode(layout.name, forKey: .entity)
    var values: [String: FilterValue] = [:]
    for (attribute, value) in zip(layout.attributes, self.values) where !value.isNull {
      values[attribute.name] = value
    }
    try container.encode(values, forKey: .values)
    var relationships: [String: [ObjectID]] = [:]
    for (relationship, targets) in zip(layout.relationships, self.relationships) where !targets.isEmpty {
      relationships[relationship.name] = targets.objectIDs
    }
    try container.encode(relationships, forKey: .relationships)
  }
}
