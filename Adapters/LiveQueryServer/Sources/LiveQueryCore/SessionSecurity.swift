import ObjectGraph
import PredicateDSL

/// A session's view of the policy: each readable entity's access, built
/// once from the claims when the session is created.
struct SessionSecurity: Sendable {
  private let access: [String: EntityAccess]

  init(policy: ReadPolicy, claims: [String: FilterValue], schema: ObjectSchema) {
    var role: String?
    if case .string(let name)? = claims[policy.roleClaim] { role = name }
    var access: [String: EntityAccess] = [:]
    for (entity, rules) in policy.entities {
      let readable = rules.readableAttributes(role: role)
      guard !readable.isEmpty, let attributes = ReadPolicy.attributes(of: entity, in: schema) else { continue }
      var values = claims
      for name in rules.read.variables where values[name] == nil { values[name] = .null }
      let ordered = attributes.filter(Set(readable).contains)
      access[entity] = EntityAccess(
        entity: entity, read: PredicateFolding.fold(rules.read.substituting(values)), readable: ordered,
        readableSet: Set(ordered))
    }
    self.access = access
  }

  /// The access to `entity`, or the refusal a client gets, the same for an
  /// entity without a policy, one the role may not read and one the schema
  /// lacks.
  func access(_ entity: String, id: String) throws(LiveError) -> EntityAccess {
    guard let access = access[entity] else {
      throw LiveError(id: id, code: .entityNotReadable, message: "there is no readable entity '\(entity)'")
    }
    return access
  }
}
