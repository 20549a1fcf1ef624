import Foundation
import PredicateDSL

/// Reads the entities of a schema file's JSON, collecting every problem of
/// its shape: an unknown key (with a did-you-mean), a value of the wrong
/// type, a missing field, an unknown attribute type or delete rule, a
/// default of the wrong type.
///
/// Each problem starts with where it is: `the schema`, an entity's name
/// (`entities[2]` when it has none), or `Entity.property`. An entity
/// without a name, an attribute without a known type and a relationship
/// without a destination are left out; everything else is read as far as it
/// goes, so that one run reports every problem.
struct SchemaJSONReader {
  static let rootFields = ["entities"]
  static let entityFields = ["name", "parent", "attributes", "relationships", "ignoredKeys"]
  static let attributeFields = ["type", "optional", "default", "indexed"]
  static let relationshipFields = ["destination", "toMany", "inverse", "deleteRule", "optional"]

  /// The fields an entity may have beyond ``entityFields``, which their
  /// caller reads.
  let extraEntityFields: [String]
  /// Every problem found, in file order.
  private(set) var problems: [String] = []

  init(extraEntityFields: [String]) {
    self.extraEntityFields = extraEntityFields
  }

  /// The entities of the file's root value.
  mutating func entities(_ root: SchemaJSONValue) -> [EntityDescription] {
    guard case .object = root else {
      problems.append("the schema is a JSON object with an \"entities\" array, not \(root.phrase)")
      return []
    }
    checkFields(root, Self.rootFields, at: "the schema")
    guard case .array(let items)? = root["entities"] else {
      problems.append("the schema needs an \"entities\" array\(root["entities"].map { ", not \($0.phrase)" } ?? "")")
      return []
    }
    return items.enumerated().compactMap { entity($1, index: $0) }
  }

  private mutating func entity(_ item: SchemaJSONValue, index: Int) -> EntityDescription? {
    let place = "entities[\(index)]"
    guard case .object = item else {
      problems.append("\(place): an entity is a JSON object, not \(item.phrase)")
      return nil
    }
    let name = string(item, "name", at: place, required: true)
    let label = name ?? place
    checkFields(item, Self.entityFields + extraEntityFields, at: label)
    let parent = string(item, "parent", at: label)
    var description = EntityDescription(name ?? "", parent: parent)
    if let keys = strings(item, "ignoredKeys", at: label) { description.ignoredKeys = Set(keys) }
    for (key, value) in members(item, "attributes", of: "attributes", at: label) {
      if let attribute = attribute(value, named: key, at: "\(label).\(key)") {
        description.attributes.append(attribute)
      }
    }
    for (key, value) in members(item, "relationships", of: "relationships", at: label) {
      if let relationship = relationship(value, named: key, at: "\(label).\(key)") {
        description.relationships.append(relationship)
      }
    }
    return name == nil ? nil : description
  }

  private mutating func attribute(
    _ item: SchemaJSONValue, named name: String, at place: String
  ) -> AttributeDescription? {
    guard case .object = item else {
      problems.append("\(place): an attribute is a JSON object, not \(item.phrase)")
      return nil
    }
    checkFields(item, Self.attributeFields, at: place)
    let isOptional = bool(item, "optional", at: place) ?? false
    let isIndexed = bool(item, "indexed", at: place) ?? false
    guard let typeName = string(item, "type", at: place, required: true) else { return nil }
    guard let type = AttributeType(rawValue: typeName) else {
      let types = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
      problems.append("\(place): unknown type '\(typeName)' (types: \(types))")
      return nil
    }
    var defaultValue: FilterValue?
    if let value = item["default"] {
      defaultValue = Self.filterValue(value, as: type)
      if defaultValue == nil {
        switch value {
        case .array, .object:
          problems.append("\(place): the default value is \(type.withArticle), not \(value.phrase)")
        default:
          problems.append("\(place): default value \(value.literal) is not \(type.withArticle)")
        }
      }
    }
    return AttributeDescription(
      name, type, isOptional: isOptional, defaultValue: defaultValue, isIndexed: isIndexed)
  }

  private mutating func relationship(
    _ item: SchemaJSONValue, named name: String, at place: String
  ) -> RelationshipDescription? {
    guard case .object = item else {
      problems.append("\(place): a relationship is a JSON object, not \(item.phrase)")
      return nil
    }
    checkFields(item, Self.relationshipFields, at: place)
    let isToMany = bool(item, "toMany", at: place) ?? false
    let inverse = string(item, "inverse", at: place) ?? ""
    let isOptional = bool(item, "optional", at: place) ?? true
    var rule = DeleteRule.nullify
    if let ruleName = string(item, "deleteRule", at: place) {
      if let known = DeleteRule(rawValue: ruleName) {
        rule = known
      } else {
        let rules = DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")
        problems.append("\(place): unknown delete rule '\(ruleName)' (rules: \(rules))")
      }
    }
    guard let destination = string(item, "destination", at: place, required: true) else { return nil }
    return RelationshipDescription(
      name, destination: destination, isToMany: isToMany, inverse: inverse, deleteRule: rule,
      isOptional: isOptional)
  }

  /// Adds a problem for each key of `item` that is not one of `fields`,
  /// in key order.
  private mutating func checkFields(_ item: SchemaJSONValue, _ fields: [String], at place: String) {
    guard case .object(let members) = item else { return }
    for key in members.keys.sorted() where !fields.contains(key) {
      problems.append("\(place): \(UnknownField.message(key, fields: fields))")
    }
  }

  /// The string of `field`; nil, with a problem when it is required or of
  /// another type, when there is none.
  private mutating func string(
    _ item: SchemaJSONValue, _ field: String, at place: String, required: Bool = false
  ) -> String? {
    switch item[field] {
    case .string(let text)?: return text
    case nil where required: problems.append("\(place): needs a \"\(field)\" string")
    case nil: break
    case let other?: problems.append("\(place): \"\(field)\" is a string, not \(other.phrase)")
    }
    return nil
  }

  private mutating func bool(_ item: SchemaJSONValue, _ field: String, at place: String) -> Bool? {
    switch item[field] {
    case .bool(let flag)?: return flag
    case nil: break
    case let other?: problems.append("\(place): \"\(field)\" is a Boolean, not \(other.phrase)")
    }
    return nil
  }

  private mutating func strings(_ item: SchemaJSONValue, _ field: String, at place: String) -> [String]? {
    guard let value = item[field] else { return nil }
    guard case .array(let elements) = value else {
      problems.append("\(place): \"\(field)\" is an array of strings, not \(value.phrase)")
      return nil
    }
    var texts: [String] = []
    for (index, element) in elements.enumerated() {
      guard case .string(let text) = element else {
        problems.append("\(place): \(field)[\(index)] is a string, not \(element.phrase)")
        continue
      }
      texts.append(text)
    }
    return texts
  }

  /// The members of the object of `field`, in key order; none, with a
  /// problem when it is not an object, when there is no object.
  private mutating func members(
    _ item: SchemaJSONValue, _ field: String, of what: String, at place: String
  ) -> [(key: String, value: SchemaJSONValue)] {
    guard let value = item[field] else { return [] }
    guard case .object(let members) = value else {
      problems.append("\(place): \"\(field)\" is an object of \(what) by name, not \(value.phrase)")
      return []
    }
    return members.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
  }

  /// A default value as the attribute's type reads it; nil when it is not
  /// a value of that type.
  static func filterValue(_ value: SchemaJSONValue, as type: AttributeType) -> FilterValue? {
    switch (type, value) {
    case (_, .null): return .null
    case (.string, .string(let text)): return .string(text)
    case (.integer, .int(let number)): return .int(number)
    case (.double, .int(let number)): return .double(Double(number))
    case (.double, .double(let number)): return .double(number)
    case (.boolean, .bool(let flag)): return .bool(flag)
    case (.date, .int(let seconds)): return .date(secondsSinceReferenceDate: Double(seconds))
    case (.date, .double(let seconds)): return .date(secondsSinceReferenceDate: seconds)
    case (.date, .string(let text)):
      guard let date = try? Date(text, strategy: .iso8601) else { return nil }
      return .date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    case (.uuid, .string(let text)):
      guard let uuid = UUID(uuidString: text) else { return nil }
      let bits = withUnsafeBytes(of: uuid.uuid) { bytes in
        bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
      }
      return .uuid(bits)
    case (.data, .string(let text)):
      return Data(base64Encoded: text).map { .data(Array($0)) }
    default:
      return nil
    }
  }
}
