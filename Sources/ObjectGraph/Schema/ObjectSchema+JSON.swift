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
  /// `deleteRule` to `nullify`; `null` is the same as leaving a field out.
  /// JSON objects have no order, so each entity's attributes and
  /// relationships are laid out in key order.
  ///
  /// A key the format does not have is refused with a did-you-mean, so
  /// that a misspelt field never quietly takes its default; a value of the
  /// wrong type is named with its place, what it should be and what it is:
  ///
  /// ```swift
  /// let json = #"{"entities": [{"name": "Person", "attributes": {"age": {"type": "integer", "optionl": true}}}]}"#
  /// do {
  ///   _ = try ObjectSchema(json: Data(json.utf8))
  /// } catch {
  ///   print(error.problems)  // ["Person.age: unknown field 'optionl' (did you mean 'optional'?)"]
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - data: The JSON text, UTF-8.
  ///   - extraEntityFields: Fields an entity may have beyond the format's,
  ///     which the caller reads from the same JSON itself (a database
  ///     adapter's `table`, say); they are not refused.
  /// - Throws: ``SchemaError`` listing every problem: those of the JSON
  ///   (text that is not JSON, an unknown key, a value of the wrong type, a
  ///   missing field, an unknown type or delete rule, a default of the
  ///   wrong type) and those of the schema itself.
  public init(json data: Data, allowingEntityFields extraEntityFields: [String] = []) throws(SchemaError) {
    let root: SchemaJSONValue
    do {
      root = try JSONDecoder().decode(SchemaJSONValue.self, from: data)
    } catch {
      throw SchemaError(problems: [Self.syntaxProblem(error)])
    }
    var reader = SchemaJSONReader(extraEntityFields: extraEntityFields)
    let entities = reader.entities(root)
    let problems = reader.problems
    do throws(SchemaError) {
      let schema = try ObjectSchema(entities)
      if !problems.isEmpty { throw SchemaError(problems: problems) }
      self = schema
    } catch {
      throw SchemaError(problems: problems + error.problems.filter { !problems.contains($0) })
    }
  }

  /// Reads a schema from a JSON file; see ``init(json:allowingEntityFields:)``.
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

  /// The problem of text that is not JSON: the JSON reader's account of
  /// where it stops, without the decoder's wording around it.
  private static func syntaxProblem(_ error: any Error) -> String {
    guard case DecodingError.dataCorrupted(let context) = error, let underlying = context.underlyingError else {
      return "invalid schema JSON: the text is not JSON"
    }
    let detail = (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(underlying)"
    return "invalid schema JSON: \(detail)"
  }
}
