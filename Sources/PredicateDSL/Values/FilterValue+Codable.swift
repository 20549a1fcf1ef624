/// `FilterValue` encodes as JSON-like data that keeps every distinction:
/// nil, Booleans and strings as themselves, and every other case tagged with
/// its kind, so that `1`, `1.0` and `true` read back as they were written.
///
/// ```
/// null  true  "Ann"  {"int": 30}  {"double": 1.5}  {"date": 0}
/// {"uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}  {"data": [1, 2]}
/// {"array": [...]}  {"set": [...]}  {"record": {"key": ...}}
/// ```
extension FilterValue: Codable {
  private enum Tag: String, CodingKey, CaseIterable {
    case int, double, date, uuid, data, array, set, record

    static var allKeyNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
  }

  /// Reads a value written by ``encode(to:)``.
  public init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer() {
      if single.decodeNil() {
        self = .null
        return
      }
      if let flag = try? single.decode(Bool.self) {
        self = .bool(flag)
        return
      }
      if let text = try? single.decode(String.self) {
        self = .string(text)
        return
      }
    }
    let container = try decoder.container(keyedBy: Tag.self)
    guard container.allKeys.count == 1, let tag = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "a tagged value has exactly one of the keys \(Tag.allKeyNames)"))
    }
    switch tag {
    case .int: self = .int(try container.decode(Int64.self, forKey: tag))
    case .double: self = .double(try container.decode(Double.self, forKey: tag))
    case .date: self = .date(secondsSinceReferenceDate: try container.decode(Double.self, forKey: tag))
    case .uuid:
      let text = try container.decode(String.self, forKey: tag)
      guard let bits = UUIDText.parse(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: tag, in: container, debugDescription: "'\(text)' is not a UUID")
      }
      self = .uuid(bits)
    case .data: self = .data(try container.decode([UInt8].self, forKey: tag))
    case .array: self = .array(try container.decode([FilterValue].self, forKey: tag))
    case .set: self = .set(Set(try container.decode([FilterValue].self, forKey: tag)))
    case .record: self = .record(try container.decode([String: FilterValue].self, forKey: tag))
    }
  }

  /// Writes the value: nil, Booleans and strings plainly, other kinds tagged.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let flag):
      var single = encoder.singleValueContainer()
      try single.encode(flag)
    case .string(let text):
      var single = encoder.singleValueContainer()
      try single.encode(text)
    case .int(let number):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(number, forKey: .int)
    case .double(let number):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(number, forKey: .double)
    case .date(let seconds):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(seconds, forKey: .date)
    case .uuid(let bits):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(UUIDText.format(bits), forKey: .uuid)
    case .data(let bytes):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(bytes, forKey: .data)
    case .array(let elements):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(elements, forKey: .array)
    case .set(let elements):
      // Sorted by their encoding would need the encoder; hash order is fine
      // for a set, whose readers never depend on order.
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(Array(elements), forKey: .set)
    case .record(let record):
      var container = encoder.container(keyedBy: Tag.self)
      try container.encode(record, forKey: .record)
    }
  }
}
