import Foundation
import PredicateDSL

/// A JSON value as `pg-watch` reads and writes it: integers stay 64-bit
/// integers, Booleans stay Booleans, and objects keep their key order, so
/// that lines come out exactly as `context-watch replay` writes them.
enum WatchJSON: Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([WatchJSON])
  case object([(key: String, value: WatchJSON)])

  static func == (lhs: WatchJSON, rhs: WatchJSON) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }

  /// The value of `key` in an object; nil for a missing key or a non-object.
  subscript(key: String) -> WatchJSON? {
    guard case .object(let members) = self else { return nil }
    return members.first(where: { $0.key == key })?.value
  }

  /// A short name of the JSON type, for error messages.
  var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .int, .double: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The value as compact JSON text, keys in their order.
  var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .int(let number): output += String(number)
    case .double(let number): output += number.isFinite ? number.description : "null"
    case .string(let text): Self.writeString(text, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(member.key, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
    }
  }

  private static func writeString(_ text: String, to output: inout String) {
    output += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{00}"..."\u{1F}":
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}

/// An error reading a JSON file: what is wrong, and where when known.
struct WatchJSONError: Error, CustomStringConvertible {
  var description: String
}

extension WatchJSON {
  /// The deepest nesting of arrays and objects a file may have.
  static let maximumDepth = 512

  /// Reads the JSON of a file. Integers, decimals and Booleans keep apart
  /// (`1`, `1.0`, `true`); an object's keys come sorted, since Foundation's
  /// reader keeps no order.
  ///
  /// - Throws: ``WatchJSONError`` when the file cannot be read or is not
  ///   JSON, with Foundation's account of where.
  static func parse(file path: String) throws(WatchJSONError) -> WatchJSON {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw WatchJSONError(description: "cannot read the file: \((error as NSError).localizedDescription)")
    }
    return try parse(data)
  }

  /// Reads JSON text; see ``parse(file:)``.
  static func parse(_ data: Data) throws(WatchJSONError) -> WatchJSON {
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      throw WatchJSONError(description: "invalid JSON: \(detail ?? "\(error)")")
    }
    return try WatchJSON(foundation: object, depth: 0)
  }

  private init(foundation object: Any, depth: Int) throws(WatchJSONError) {
    guard depth < Self.maximumDepth else { throw WatchJSONError(description: "invalid JSON: nesting is too deep") }
    switch object {
    case is NSNull: self = .null
    case let text as String: self = .string(text)
    case let number as NSNumber:
      // The number's own type tells a Boolean ("c") and a decimal ("d",
      // "f") from an integer; `is Bool` does not on Linux.
      switch String(cString: number.objCType) {
      case "c", "B": self = .bool(number.boolValue)
      case "d", "f": self = .double(number.doubleValue)
      default: self = .int(number.int64Value)
      }
    case let array as [Any]:
      var elements: [WatchJSON] = []
      for element in array { elements.append(try WatchJSON(foundation: element, depth: depth + 1)) }
      self = .array(elements)
    case let dictionary as [String: Any]:
      var members: [(key: String, value: WatchJSON)] = []
      for key in dictionary.keys.sorted() {
        members.append((key, try WatchJSON(foundation: dictionary[key]!, depth: depth + 1)))
      }
      self = .object(members)
    default:
      throw WatchJSONError(description: "invalid JSON: unexpected value \(object)")
    }
  }
}

extension WatchJSON {
  /// The JSON form of a value, as `context-watch` writes it: `{"$date":
  /// seconds}` from 2001-01-01, `{"$uuid": "…"}`, `{"$data": "base64"}`,
  /// `{"$set": [...]}` sorted by text, records by key.
  init(_ value: FilterValue) {
    switch value {
    case .null: self = .null
    case .bool(let flag): self = .bool(flag)
    case .int(let number): self = .int(number)
    case .double(let number): self = .double(number)
    case .string(let text): self = .string(text)
    case .date(let seconds): self = .object([("$date", .double(seconds))])
    case .uuid(let bits): self = .object([("$uuid", .string(Self.uuidText(bits)))])
    case .data(let bytes): self = .object([("$data", .string(Data(bytes).base64EncodedString()))])
    case .array(let elements): self = .array(elements.map(WatchJSON.init))
    case .set(let elements):
      self = .object([("$set", .array(elements.map(WatchJSON.init).sorted { $0.serialized < $1.serialized }))])
    case .record(let entries):
      self = .object(entries.sorted { $0.key < $1.key }.map { ($0.key, WatchJSON($0.value)) })
    }
  }

  /// The value a JSON argument stands for, in the same conventions; an
  /// ISO-8601 string for `$date` is read too.
  func filterValue() throws(WatchJSONError) -> FilterValue {
    switch self {
    case .null: return .null
    case .bool(let flag): return .bool(flag)
    case .int(let number): return .int(number)
    case .double(let number): return .double(number)
    case .string(let text): return .string(text)
    case .array(let elements):
      var values: [FilterValue] = []
      for element in elements { values.append(try element.filterValue()) }
      return .array(values)
    case .object(let members):
      if members.count == 1, let tagged = try Self.taggedValue(members[0].key, members[0].value) { return tagged }
      var record: [String: FilterValue] = [:]
      for member in members { record[member.key] = try member.value.filterValue() }
      return .record(record)
    }
  }

  private static func taggedValue(_ tag: String, _ payload: WatchJSON) throws(WatchJSONError) -> FilterValue? {
    switch (tag, payload) {
    case ("$set", .array(let elements)):
      var values: Set<FilterValue> = []
      for element in elements { values.insert(try element.filterValue()) }
      return .set(values)
    case ("$date", .int(let seconds)): return .date(secondsSinceReferenceDate: Double(seconds))
    case ("$date", .double(let seconds)): return .date(secondsSinceReferenceDate: seconds)
    case ("$date", .string(let text)):
      let formatter = ISO8601DateFormatter()
      for options: ISO8601DateFormatter.Options in [
        [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate],
      ] {
        formatter.formatOptions = options
        if let date = formatter.date(from: text) {
          return .date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        }
      }
      throw WatchJSONError(description: "\"$date\" string \"\(text)\" is not an ISO-8601 date")
    case ("$uuid", .string(let text)):
      guard let uuid = UUID(uuidString: text) else {
        throw WatchJSONError(description: "\"$uuid\" string \"\(text)\" is not a UUID")
      }
      var bits: UInt128 = 0
      withUnsafeBytes(of: uuid.uuid) { bytes in
        for byte in bytes { bits = bits << 8 | UInt128(byte) }
      }
      return .uuid(bits)
    case ("$data", .string(let text)):
      guard let data = Data(base64Encoded: text) else {
        throw WatchJSONError(description: "\"$data\" string is not base64")
      }
      return .data(Array(data))
    case ("$set", _), ("$date", _), ("$uuid", _), ("$data", _):
      throw WatchJSONError(description: "\"\(tag)\" does not take \(payload.typeName)")
    default:
      return nil
    }
  }

  private static func uuidText(_ bits: UInt128) -> String {
    let hex = (0..<16).map { index in
      let byte = UInt8(truncatingIfNeeded: bits >> (8 * (15 - index)))
      return (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
    return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
  }
}
