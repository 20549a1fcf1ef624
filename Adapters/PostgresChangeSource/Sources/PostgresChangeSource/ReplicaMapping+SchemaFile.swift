import Foundation
import ObjectGraph
import WatchFormats

/// The schema file of `pg-watch watch --schema` and `live-query-server
/// --postgres --schema`: the `ObjectSchema` JSON of
/// `context-watch`, whose entities may also name their table and columns:
///
/// ```json
/// {"entities": [{"name": "Person", "table": "people", "primaryKey": "person_id",
///   "columns": {"age": "age_years"}, "foreignKeys": {"employer": "company_id"},
///   "attributes": {...}, "relationships": {...}}]}
/// ```
///
/// `table` may be qualified (`billing.people`); without it an entity maps to
/// the table of its name in `public`, each attribute to the column of its
/// name, the primary key is `id` and a to-one relationship is the column
/// `<relationship>_id`.
extension ReplicaMapping {
  /// What is wrong with a schema file, every problem in one sentence.
  public struct SchemaFileError: Error, CustomStringConvertible {
    /// Every problem, separated by `; `.
    public var description: String
  }

  /// The fields of an entity that say how it maps to a table.
  static let schemaFileFields = ["table", "primaryKey", "columns", "foreignKeys"]

  /// The mapping a schema file describes.
  ///
  /// - Throws: ``SchemaFileError`` naming every problem: of the file, of
  ///   the JSON (with line and byte), of the schema, and of the mapping
  ///   against the schema.
  public static func read(schemaFile path: String) throws(SchemaFileError) -> ReplicaMapping {
    let json: JSONValue
    let bytes: [UInt8]
    do {
      bytes = try JSONValue.contents(ofFile: path)
      json = try JSONValue.parse(bytes)
    } catch {
      throw SchemaFileError(description: "\(error)")
    }
    let schema: ObjectSchema
    do {
      // The schema checks every field of an entity, the mapping's included,
      // and names an unknown one with a did-you-mean.
      schema = try ObjectSchema(json: Data(bytes), allowingEntityFields: schemaFileFields)
    } catch {
      throw SchemaFileError(
        description: "invalid schema: " + error.problems.joined(separator: "; "))
    }
    var problems: [String] = []
    var tables: [TableMapping] = []
    guard case .array(let entities)? = json["entities"] else {
      throw SchemaFileError(description: "invalid schema: \"entities\" is not an array")
    }
    for (index, entity) in entities.enumerated() {
      guard case .string(let name)? = entity["name"] else { continue }
      let place = "entities[\(index)] (\(name))"
      var mapping = TableMapping(entity: name)
      switch entity["table"] {
      case nil: break
      case .string(let table)?:
        let parts = table.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 {
          mapping.schema = String(parts[0])
          mapping.table = String(parts[1])
        } else {
          mapping.table = table
        }
      case let other?: problems.append("\(place): \"table\" is a string, not \(other.phrase)")
      }
      switch entity["primaryKey"] {
      case nil: break
      case .string(let column)?: mapping.primaryKey = column
      case let other?: problems.append("\(place): \"primaryKey\" is a string, not \(other.phrase)")
      }
      func columns(_ field: String) -> [String: String] {
        guard let value = entity[field] else { return [:] }
        guard case .object(let members) = value else {
          problems.append("\(place): \"\(field)\" is an object of column names, not \(value.phrase)")
          return [:]
        }
        // Keyed by the entity's attributes (columns) or relationships
        // (foreignKeys): a misspelled key is named with a did-you-mean.
        let described = schema.entity(named: name)
        let keys =
          field == "columns"
          ? described?.attributes.map(\.name) ?? [] : described?.relationships.map(\.name) ?? []
        problems += value.unknownFieldMessages(allowed: keys).map { "\(place).\(field): \($0)" }
        var names: [String: String] = [:]
        for (key, column) in members {
          guard case .string(let text) = column else {
            problems.append("\(place): \(field).\(key) is a column name (a string), not \(column.phrase)")
            continue
          }
          names[key] = text
        }
        return names
      }
      mapping.columns = columns("columns")
      mapping.foreignKeys = columns("foreignKeys")
      tables.append(mapping)
    }
    guard problems.isEmpty else { throw SchemaFileError(description: problems.joined(separator: "; ")) }
    do {
      return try ReplicaMapping(schema: schema, tables: tables)
    } catch {
      throw SchemaFileError(description: error.message)
    }
  }
}
