import ContextWatching
public import ObjectGraph
import PredicateDSL
import WatchFormats

/// Row security: per entity, the rows a session may read (a read predicate
/// over the object and the token's claims) and the attributes each role
/// may read. An entity without a policy is not readable at all.
///
/// The JSON file:
///
/// ```json
/// {
///   "roleClaim": "role",
///   "entities": {
///     "Task": {
///       "read": "owner == $sub OR $role == 'admin'",
///       "attributes": {"admin": ["title", "owner", "cost"], "*": ["title", "owner"]}
///     }
///   }
/// }
/// ```
public struct ReadPolicy: Sendable {
  /// The claim whose string value is the session's role (`role` by
  /// default).
  public var roleClaim: String
  /// The policies by entity name.
  public var entities: [String: EntityReadPolicy]

  /// Creates a policy, checked against `schema`: each entity exists, each
  /// attribute is one of the entity's (inherited ones included) and each
  /// read predicate applies to the entity with its claims as nil.
  ///
  /// - Throws: ``ReadPolicyError`` listing every problem.
  public init(
    roleClaim: String = "role", entities: [String: EntityReadPolicy], schema: ObjectSchema
  )
    throws(ReadPolicyError)
  {
    self.roleClaim = roleClaim
    self.entities = entities
    var problems: [String] = []
    let checker = ContextWatcher(schema: schema, target: .watchHandlers(on: .immediate))
    for name in entities.keys.sorted() {
      let policy = entities[name]!
      guard let attributes = Self.attributes(of: name, in: schema) else {
        problems.append("entities.\(name): the schema has no entity '\(name)'")
        continue
      }
      for role in policy.attributes.keys.sorted() {
        for (index, key) in policy.attributes[role]!.enumerated() where !attributes.contains(key) {
          problems.append("entities.\(name).attributes.\(role)[\(index)]: \(name) has no attribute '\(key)'")
        }
      }
      let unbound = Dictionary(uniqueKeysWithValues: policy.read.variables.map { ($0, FilterValue.null) })
      do {
        _ = try checker.watch(name, predicate: policy.read.substituting(unbound), source: policy.readSource)
      } catch {
        problems.append("entities.\(name).read: \(error.detailedDescription())")
      }
    }
    guard problems.isEmpty else { throw ReadPolicyError(messages: problems) }
  }

  /// Reads a policy from its JSON text, checked against `schema`.
  ///
  /// - Throws: ``ReadPolicyError`` listing every problem, unknown fields
  ///   included.
  public static func parse(_ text: String, schema: ObjectSchema) throws(ReadPolicyError) -> ReadPolicy {
    let value: JSONValue
    do {
      value = try JSONValue.parse(Array(text.utf8))
    } catch {
      throw ReadPolicyError(messages: [error.description])
    }
    guard case .object = value else { throw ReadPolicyError(messages: ["a policy is an object, not \(value.phrase)"]) }
    var problems = value.unknownFieldMessages(allowed: ["roleClaim", "entities"])
    var roleClaim = "role"
    switch value["roleClaim"] {
    case nil: break
    case .string(let name)?: roleClaim = name
    case let other?: problems.append("roleClaim: a string, not \(other.phrase)")
    }
    var entities: [String: EntityReadPolicy] = [:]
    guard case .object(let members)? = value["entities"] else {
      throw ReadPolicyError(messages: problems + ["entities: an object of entity policies is required"])
    }
    for (name, entity) in members {
      let place = "entities.\(name)"
      problems += entity.unknownFieldMessages(allowed: ["read", "attributes"]).map { "\(place): \($0)" }
      guard case .string(let read)? = entity["read"] else {
        problems.append("\(place).read: a predicate string is required")
        continue
      }
      var attributes: [String: [String]] = [:]
      guard case .object(let roles)? = entity["attributes"] else {
        problems.append("\(place).attributes: an object from role to attribute names is required")
        continue
      }
      for (role, list) in roles {
        guard case .array(let names) = list else {
          problems.append("\(place).attributes.\(role): an array of attribute names, not \(list.phrase)")
          continue
        }
        attributes[role] = names.compactMap { if case .string(let key) = $0 { key } else { nil } }
        if attributes[role]!.count != names.count {
          problems.append("\(place).attributes.\(role): attribute names are strings")
        }
      }
      do {
        entities[name] = try EntityReadPolicy(read: read, attributes: attributes)
      } catch {
        problems.append("\(place).read: \(error.detailedDescription())")
      }
    }
    guard problems.isEmpty else { throw ReadPolicyError(messages: problems) }
    return try ReadPolicy(roleClaim: roleClaim, entities: entities, schema: schema)
  }

  /// The attribute names of an entity and its ancestors; nil for an entity
  /// the schema lacks.
  static func attributes(of entity: String, in schema: ObjectSchema) -> [String]? {
    guard var description = schema.entity(named: entity) else { return nil }
    var names = description.attributes.map(\.name)
    while let parent = description.parent, let next = schema.entity(named: parent) {
      names = next.attributes.map(\.name) + names
      description = next
    }
    return names
  }
}
