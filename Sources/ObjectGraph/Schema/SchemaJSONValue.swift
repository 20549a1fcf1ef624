/// A JSON value of a schema file, read through Foundation's `JSONDecoder`
/// as a plain tree, so that the schema reader checks each key and type
/// itself and its messages name the key path, what is expected and what is
/// there, never a decoder's wording.
///
/// Integers that fit in 64 bits stay integers, Booleans stay Booleans; an
/// object's members are kept by key (JSON gives them no order).
enum SchemaJSONValue: Decodable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([SchemaJSONValue])
  case object([String: SchemaJSONValue])

  /// A coding key for any member of an object.
  private struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: MemberKey.self) {
      var members: [String: SchemaJSONValue] = [:]
      for key in container.allKeys {
        members[key.stringValue] = try container.decode(SchemaJSONValue.self, forKey: key)
      }
      self = .object(members)
    } else if var container = try? decoder.unkeyedContainer() {
      var elements: [SchemaJSONValue] = []
      while !container.isAtEnd { elements.append(try container.decode(SchemaJSONValue.self)) }
      self = .array(elements)
    } else {
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
  }

  /// The value of `key` in an object; nil for a missing key, a `null`
  /// value or a non-object, since every optional field of a schema file
  /// takes `null` for absent.
  subscript(key: String) -> SchemaJSONValue? {
    guard case .object(let members) = self, let value = members[key] else { return nil }
    if case .null = value { return nil }
    return value
  }

  /// The value as a message names what it found: `null`, `the Boolean
  /// true`, `the number 5`, `the string "yes"` (cut after 40 characters),
  /// `an array` or `an object`.
  var phrase: String {
    switch self {
    case .null: "null"
    case .bool(let flag): "the Boolean \(flag)"
    case .int(let number): "the number \(number)"
    case .double(let number): "the number \(number)"
    case .string(let text): "the string \"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value as a default value's message shows it: scalars as JSON
  /// writes them.
  var literal: String {
    switch self {
    case .null: "null"
    case .bool(let flag): "\(flag)"
    case .int(let number): "\(number)"
    case .double(let number): "\(number)"
    case .string(let text): "\"\(text)\""
    case .array: "[…]"
    case .object: "{…}"
    }
  }
}
