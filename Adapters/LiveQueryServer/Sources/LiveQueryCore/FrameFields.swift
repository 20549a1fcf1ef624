import PredicateDSL
import WatchFormats

/// The members of one frame's JSON object, read with typed errors: every
/// missing, unknown or mistyped field is a ``LiveError`` with the code
/// ``LiveErrorCode/malformedFrame`` and the frame's id.
struct FrameFields {
  let value: JSONValue
  /// The id the errors carry.
  var id: String?

  init(_ value: JSONValue, id: String?) {
    self.value = value
    self.id = id
  }

  func fail(_ message: String, _ code: LiveErrorCode = .malformedFrame) -> LiveError {
    LiveError(id: id, code: code, message: message)
  }

  /// Refuses members other than `allowed`.
  func requireOnly(_ allowed: [String], in what: String) throws(LiveError) {
    if let first = value.unknownFieldMessages(allowed: allowed).first { throw fail("\(what): \(first)") }
  }

  func has(_ key: String) -> Bool { value[key] != nil }

  func string(_ key: String) throws(LiveError) -> String {
    guard let member = value[key] else { throw fail("missing \"\(key)\"") }
    guard case .string(let text) = member else { throw fail("\"\(key)\" is a string, not \(member.phrase)") }
    return text
  }

  func optionalString(_ key: String) throws(LiveError) -> String? {
    guard let member = value[key], member != .null else { return nil }
    return try string(key)
  }

  func int(_ key: String) throws(LiveError) -> Int {
    guard let member = value[key] else { throw fail("missing \"\(key)\"") }
    guard case .int(let number) = member, let small = Int(exactly: number) else {
      throw fail("\"\(key)\" is an integer, not \(member.phrase)")
    }
    return small
  }

  func optionalInt(_ key: String) throws(LiveError) -> Int? {
    guard let member = value[key], member != .null else { return nil }
    return try int(key)
  }

  func bool(_ key: String, default fallback: Bool) throws(LiveError) -> Bool {
    guard let member = value[key], member != .null else { return fallback }
    guard case .bool(let flag) = member else { throw fail("\"\(key)\" is a Boolean, not \(member.phrase)") }
    return flag
  }

  func array(_ key: String) throws(LiveError) -> [JSONValue] {
    guard let member = value[key] else { throw fail("missing \"\(key)\"") }
    guard case .array(let elements) = member else { throw fail("\"\(key)\" is an array, not \(member.phrase)") }
    return elements
  }

  func optionalArray(_ key: String) throws(LiveError) -> [JSONValue]? {
    guard let member = value[key], member != .null else { return nil }
    return try array(key)
  }

  /// The strings of an array field.
  func strings(_ key: String) throws(LiveError) -> [String] {
    var result: [String] = []
    for (index, element) in try array(key).enumerated() {
      guard case .string(let text) = element else {
        throw fail("\"\(key)\"[\(index)] is a string, not \(element.phrase)")
      }
      result.append(text)
    }
    return result
  }

  /// An object field, as fields of its own.
  func object(_ key: String) throws(LiveError) -> FrameFields {
    guard let member = value[key] else { throw fail("missing \"\(key)\"") }
    guard case .object = member else { throw fail("\"\(key)\" is an object, not \(member.phrase)") }
    return FrameFields(member, id: id)
  }

  /// Format arguments in the JSON conventions of `WatchFormats`.
  func arguments(_ key: String) throws(LiveError) -> [FilterValue]? {
    guard let elements = try optionalArray(key) else { return nil }
    var values: [FilterValue] = []
    for (index, element) in elements.enumerated() {
      do {
        values.append(try element.filterValue())
      } catch {
        throw fail("\"\(key)\"[\(index)]: \(error.description)", .invalidArguments)
      }
    }
    return values
  }
}
