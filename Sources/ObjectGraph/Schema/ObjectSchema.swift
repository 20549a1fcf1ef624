import PredicateDSL

/// The entities an ``ObjectContext`` stores, checked once and laid out for
/// fast access.
///
/// Creating a schema validates it and lists every problem at once: duplicate
/// names, unknown parents or destinations, inheritance cycles, a missing or
/// mismatched inverse, a default value of the wrong type.
///
/// ```swift
/// let schema = try ObjectSchema([
///   EntityDescription(
///     "Person", attributes: [.init("name", .string)],
///     relationships: [.toOne("employer", destination: "Company", inverse: "employees")]),
///   EntityDescription(
///     "Company", attributes: [.init("name", .string)],
///     relationships: [.toMany("employees", destination: "Person", inverse: "employer")]),
/// ])
/// ```
///
/// A schema is an immutable value: share it between contexts and threads.
public struct ObjectSchema: Sendable {
  /// The entities, in the order they were given.
  public let entities: [EntityDescription]
  package let layouts: [EntityLayout]
  private let indexesByName: [String: Int]

  /// Validates and lays out a schema.
  ///
  /// - Throws: ``SchemaError`` listing every problem found.
  public init(_ entities: [EntityDescription]) throws(SchemaError) {
    var problems: [String] = []
    var indexesByName: [String: Int] = [:]
    for (index, entity) in entities.enumerated() {
      if !Self.isValidName(entity.name) {
        problems.append("entity name '\(entity.name)' is not a valid name")
      }
      if indexesByName[entity.name] != nil {
        problems.append("entity '\(entity.name)' is defined more than once")
      } else {
        indexesByName[entity.name] = index
      }
    }

    // Parents, and the chain of ancestors of each entity (self first).
    var parentIndexes = [Int?](repeating: nil, count: entities.count)
    for (index, entity) in entities.enumerated() {
      guard let parent = entity.parent else { continue }
      if let parentIndex = indexesByName[parent] {
        parentIndexes[index] = parentIndex
      } else {
        problems.append("entity '\(entity.name)' has an unknown parent '\(parent)'")
      }
    }
    let ancestors = Self.ancestors(of: entities, parents: &parentIndexes, problems: &problems)

    // Properties, inherited first.
    var attributes = [[AttributeDescription]](repeating: [], count: entities.count)
    var relationships = [[RelationshipDescription]](repeating: [], count: entities.count)
    for index in entities.indices {
      for ancestor in ancestors[index].reversed() {
        attributes[index] += entities[ancestor].attributes
        relationships[index] += entities[ancestor].relationships
      }
    }
    for (index, entity) in entities.enumerated() {
      var seen: Set<String> = []
      let names = attributes[index].map(\.name) + relationships[index].map(\.name)
      for name in names {
        if !seen.insert(name).inserted {
          problems.append("entity '\(entity.name)' has more than one property named '\(name)'")
        }
      }
      for attribute in entity.attributes {
        if !Self.isValidName(attribute.name) {
          problems.append("\(entity.name).\(attribute.name): '\(attribute.name)' is not a valid key")
        }
        if let value = attribute.defaultValue, !value.isNull {
          if AttributeValues.coerce(value, to: attribute.type) == nil {
            problems.append(
              "\(entity.name).\(attribute.name): default value \(value.typeName) "
                + "\(value) is not \(attribute.type.withArticle)")
          }
        }
      }
      for key in entity.ignoredKeys where !names.contains(key) {
        problems.append("entity '\(entity.name)' ignores an unknown key '\(key)'")
      }
    }

    // Relationships: destinations and inverses.
    var relationshipLayouts = [[RelationshipLayout]](repeating: [], count: entities.count)
    for (index, entity) in entities.enumerated() {
      for relationship in relationships[index] {
        let owner = "\(entity.name).\(relationship.name)"
        guard let destination = indexesByName[relationship.destination] else {
          if entity.relationships.contains(relationship) {
            problems.append("\(owner): unknown destination entity '\(relationship.destination)'")
          }
          continue
        }
        guard !relationship.inverse.isEmpty else {
          if entity.relationships.contains(relationship) {
            problems.append("\(owner): missing inverse relationship")
          }
          continue
        }
        let inverses = relationships[destination]
        guard let inverseSlot = inverses.firstIndex(where: { $0.name == relationship.inverse }) else {
          if entity.relationships.contains(relationship) {
            problems.append(
              "\(owner): inverse '\(relationship.inverse)' is not a relationship of "
                + "'\(relationship.destination)'")
          }
          continue
        }
        let inverse = inverses[inverseSlot]
        // The declaring entity is the one the inverse must point back to.
        // An inverse that is itself broken was reported on its own entity.
        let declaring = ancestors[index].first { entities[$0].relationships.contains(relationship) } ?? index
        let inverseIsBroken = inverse.inverse.isEmpty || indexesByName[inverse.destination] == nil
        if entity.relationships.contains(relationship), !inverseIsBroken,
          inverse.inverse != relationship.name || indexesByName[inverse.destination] != declaring
        {
          problems.append(
            "\(owner): inverse '\(relationship.destination).\(relationship.inverse)' points to "
              + "'\(inverse.destination).\(inverse.inverse)', not back to '\(owner)'")
          continue
        }
        relationshipLayouts[index].append(
          RelationshipLayout(
            description: relationship, destinationIndex: destination, inverseSlot: inverseSlot))
      }
    }

    guard problems.isEmpty else { throw SchemaError(problems: problems) }

    var descendants = [[Int]](repeating: [], count: entities.count)
    for index in entities.indices {
      for ancestor in ancestors[index] { descendants[ancestor].append(index) }
    }
    var layouts: [EntityLayout] = []
    for (index, entity) in entities.enumerated() {
      var ignored: Set<String> = []
      for ancestor in ancestors[index] { ignored.formUnion(entities[ancestor].ignoredKeys) }
      layouts.append(
        EntityLayout(
          index: index, name: entity.name, parentIndex: parentIndexes[index],
          kindIndexes: descendants[index], ancestorIndexes: ancestors[index],
          ancestorNames: ancestors[index].map { entities[$0].name },
          attributes: attributes[index].map { attribute in
            var attribute = attribute
            attribute.defaultValue = attribute.defaultValue.flatMap {
              AttributeValues.coerce($0, to: attribute.type)
            }
            return attribute
          },
          relationships: relationshipLayouts[index], ignoredKeys: ignored))
    }
    self.entities = entities
    self.layouts = layouts
    self.indexesByName = indexesByName
  }

  /// The most levels of sub-entities below a root entity: 64. Deeper
  /// schemas are refused, which keeps the layouts (every entity stores its
  /// inherited properties) in proportion to the schema's size.
  public static let maximumInheritanceDepth = 64

  /// The chain of ancestors of each entity (itself first), in time and
  /// memory linear in the number of entities: each parent link is followed
  /// once to find cycles and depths. An entity on or below a cycle, or
  /// deeper than ``maximumInheritanceDepth``, is reported, loses its parent
  /// and gets a chain of itself alone, so the checks that follow still run.
  private static func ancestors(
    of entities: [EntityDescription], parents parentIndexes: inout [Int?], problems: inout [String]
  ) -> [[Int]] {
    let count = entities.count
    // Cycles: walk up from each entity not seen yet; a walk that meets
    // itself has found a cycle, and everything on it leads into it.
    var state = [UInt8](repeating: 0, count: count)  // 0 new, 1 on this walk, 2 done
    var broken = [Bool](repeating: false, count: count)
    var walk: [Int] = []
    for start in 0..<count where state[start] == 0 {
      walk.removeAll(keepingCapacity: true)
      var current: Int? = start
      var endsInCycle = false
      while let node = current {
        if state[node] == 2 {
          endsInCycle = broken[node]
          break
        }
        if state[node] == 1 {
          var cycle = [node]
          var member = parentIndexes[node].unsafelyUnwrapped
          while member != node {
            cycle.append(member)
            member = parentIndexes[member].unsafelyUnwrapped
          }
          problems.append(cycleProblem(cycle.map { entities[$0].name }))
          endsInCycle = true
          break
        }
        state[node] = 1
        walk.append(node)
        current = parentIndexes[node]
      }
      for node in walk {
        state[node] = 2
        broken[node] = endsInCycle
      }
    }
    // Depths and roots, each computed once from the parent's.
    var depth = [Int](repeating: -1, count: count)
    var root = Array(0..<count)
    for start in 0..<count where !broken[start] && depth[start] < 0 {
      walk.removeAll(keepingCapacity: true)
      var node = start
      while depth[node] < 0, let parent = parentIndexes[node] {
        walk.append(node)
        node = parent
      }
      if depth[node] < 0 { depth[node] = 0 }
      for child in walk.reversed() {
        let parent = parentIndexes[child].unsafelyUnwrapped
        depth[child] = depth[parent] + 1
        root[child] = root[parent]
        if depth[child] == maximumInheritanceDepth + 1 {
          problems.append(
            "entity '\(entities[child].name)' is more than \(maximumInheritanceDepth) levels of sub-entities "
              + "below '\(entities[root[child]].name)'")
        }
      }
    }
    var ancestors = [[Int]](repeating: [], count: count)
    for index in 0..<count {
      guard !broken[index], depth[index] <= maximumInheritanceDepth else {
        parentIndexes[index] = nil
        ancestors[index] = [index]
        continue
      }
      var chain = [index]
      var current = parentIndexes[index]
      while let next = current {
        chain.append(next)
        current = parentIndexes[next]
      }
      ancestors[index] = chain
    }
    return ancestors
  }

  /// `inheritance cycle: 'A' → 'B' → 'A'`, the names cut after eight.
  private static func cycleProblem(_ names: [String]) -> String {
    if names.count == 1 { return "entity '\(names[0])' inherits from itself" }
    let shown = names.prefix(8).map { "'\($0)'" }
    let path = (shown + (names.count > 8 ? ["…"] : []) + ["'\(names[0])'"]).joined(separator: " → ")
    return "inheritance cycle of \(names.count) entities: \(path)"
  }

  /// The entity named `name`, or nil.
  public func entity(named name: String) -> EntityDescription? {
    indexesByName[name].map { entities[$0] }
  }

  /// The names of `entity` and every entity below it: what a fetch or a
  /// watch on `entity` sees.
  ///
  /// - Returns: nil for an unknown entity.
  public func kinds(of entity: String) -> [String]? {
    layout(named: entity).map { $0.kindIndexes.map { entities[$0].name } }
  }

  /// Every key of `entity`, inherited ones included, attributes first.
  ///
  /// - Returns: nil for an unknown entity.
  public func keys(of entity: String) -> [String]? {
    layout(named: entity)?.keys
  }

  package func layout(named name: String) -> EntityLayout? {
    // A few names compare faster than one hash.
    if layouts.count <= 8 { return layouts.first { $0.name == name } }
    return indexesByName[name].map { layouts[$0] }
  }

  package func entityNames() -> [String] { entities.map(\.name) }

  private static func isValidName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first != "@", first != "$", first != "#" else {
      return false
    }
    return !name.contains(".") && !name.contains(where: \.isWhitespace)
  }
}

extension AttributeType {
  /// `"a string"`, `"an integer"`.
  var withArticle: String {
    switch self {
    case .integer: "an integer"
    default: "a \(rawValue)"
    }
  }
}
