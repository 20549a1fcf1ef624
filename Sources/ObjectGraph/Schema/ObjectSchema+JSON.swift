public import Foundation
import PredicateDSL

extension ObjectSchema {
  /// Reads a schema from JSON, as the command line does:
  ///
  /// ```json
  /// {"entities": [
  ///   {"name": "Person", "parent": null,
  ///    "attributes": {"age": {"type": "integer", "optional": true, "default": 0},
  ///                   "city": {"type": "string", "indexed": true}},
  ///    "relationships": {"employer": {"destination": "Company", "toMany": false,
  ///                                   "inverse": "employees", "deleteRule": "nullify"}},
  ///    "ignoredKeys": ["lastSeen"]}
  /// ]}
  /// ```
  ///
  /// Attribute types are `string`, `integer`, `double`, `boolean`, `date`
  /// (a default is seconds since 2001-01-01T00:00:00Z, or an ISO-8601
  /// string), `uuid` and `data` (a default is base64). `optional` defaults to
  /// false for attributes and true for relationships, `indexed` to false, `toMany` to false and
  /// `deleteRule` to `nullify`. JSON objects have no order, so each entity's
  /// attributes and relationships are laid out in key order.
  ///
  /// - Throws: ``SchemaError`` listing every problem: those of the JSON
  ///   (an unknown type or delete rule, a default of the wrong type, a missing
  ///   field) and those of the schema itself.
  public init(json data: Data) throws(SchemaError) {
    let file: SchemaFile
    do {
      file = try JSONDecoder().decode(SchemaFile.self, from: data)
    } catch let error as DecodingError {
      throw SchemaError(problems: [Self.describe(error)])
    } catch {
      throw SchemaError(problems: ["invalid schema JSON: \(error)"])
    }
    var problems: [String] = []
    var entities: [EntityDescription] = []
    for entity in file.entities {
      var description = EntityDescription(entity.name, parent: entity.parent)
      description.ignoredKeys = Set(entity.ignoredKeys ?? [])
      for (name, attribute) in (entity.attributes ?? [:]).sorted(by: { $0.key < $1.key }) {
        guard let type = AttributeType(rawValue: attribute.type) else {
          let types = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
          problems.append("\(entity.name).\(name): unknown type '\(attribute.type)' (types: \(types))")
          continue
        }
        var defaultValue: FilterValue?
        if let value = attribute.default {
          defaultValue = value.filterValue(as: type)
          if defaultValue == nil {
            problems.append("\(entity.name).\(name): default value \(value) is not \(type.withArticle)")
          }
        }
        description.attributes.append(
          AttributeDescription(
            name, type, isOptional: attribute.optional ?? false, defaultValue: defaultValue,
            isIndexed: attribute.indexed ?? false))
      }
      for (name, relationship) in (entity.relationships ?? [:]).sorted(by: { $0.key < $1.key }) {
        let rule = DeleteRule(rawValue: relationship.deleteRule ?? "nullify")
        if rule == nil {
          let rules = DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")
          problems.append(
            "\(entity.name).\(name): unknown delete rule '\(relationship.deleteRule ?? "")' (rules: \(rules))")
        }
        description.relationships.append(
          RelationshipDescription(
            name, destination: relationship.destination, isToMany: relationship.toMany ?? false,
            inverse: relationship.inverse ?? "", deleteRule: rule ?? .nullify,
            isOptional: relationship.optional ?? true))
      }
      entities.append(description)
    }
    do throws(SchemaError) {
      let schema = try ObjectSchema(entities)
      if !problems.isEmpty { throw SchemaError(problems: problems) }
      self = schema
    } catch {
      throw SchemaError(problems: problems + error.problems.filter { !problems.contains($0) })
    }
  }

  /// Reads a schema from a JSON file; see ``init(json:)``.
  ///
  /// - Throws: ``SchemaError`` when the file cannot be read or the schema is
  ///   invalid.
  public init(contentsOf url: URL) throws(SchemaError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw SchemaError(problems: ["cannot read \(url.path): \(error.localizedDescription)"])
    }
    try self.init(json: data)
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
      return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
    }
    switch error {
    case .keyNotFound(let key, let context):
      let owner = context.codingPath.isEmpty ? "the top level" : path(context.codingPath)
      return "invalid schema JSON: \(owner) has no '\(key.stringValue)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "invalid schema JSON at \(path(context.codingPath)): \(context.debugDescription)"
    case .dataCorrupted(let context):
      return "invalid schema JSON at \(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return "invalid schema JSON: \(error)"
    }
  }
}

private struct SchemaFile: Decodable {
  var entities: [EntityFile]
}

private struct EntityFile: Decodable {
  var name: String
  var parent: String?
  var attributes: [String: AttributeFile]?
  var relationships: [String: RelationshipFile]?
  var ignoredKeys: [String]?
}

private struct AttributeFile: Decodable {
  var type: String
  var optional: Bool?
  var `default`: JSONScalar?
  var indexed: Bool?
}

private struct RelationshipFile: Decodable {
  var destination: String
  var toMany: Bool?
  var inverse: String?
  var deleteRule: String?
  var optional: Bool?
}

/// A default value as JSON gives it, before the attribute's type says what
/// it means.
private enum JSONScalar: Decodable, CustomStringConvertible {
  case null, bool(Bool), int(Int64), double(Double), string(String)

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? container.decode(Int64.self) {
      self = .int(number)
    } else if let number = try? container.decode(Double.self) {
      self = .double(number)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  var description: String {
    switch self {
    case .null: "null"
    case .bool(let flag): "\(flag)"
    case .int(let number): "\(number)"
    case .double(let number): "\(number)"
    case .string(let text): "\"\(text)\""
    }
  }

  func filterValue(as type: AttributeType) -> FilterValue? {
    switch (type, self) {
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
