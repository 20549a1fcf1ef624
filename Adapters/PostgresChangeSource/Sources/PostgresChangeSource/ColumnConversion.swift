import PredicateDSL

/// The PostgreSQL types an attribute type admits, by their fixed type
/// identifiers, and the conversion of their text form to a ``FilterValue``.
enum ColumnConversion {
  /// Built-in types by object identifier (fixed in PostgreSQL's catalog).
  static let typeNames: [UInt32: String] = [
    16: "boolean", 17: "bytea", 19: "name", 20: "bigint", 21: "smallint", 23: "integer", 25: "text",
    700: "real", 701: "double precision", 1042: "character", 1043: "character varying", 1082: "date",
    1114: "timestamp without time zone", 1184: "timestamp with time zone", 1700: "numeric", 2950: "uuid",
    114: "json", 3802: "jsonb", 1083: "time without time zone", 1186: "interval", 869: "inet",
  ]

  /// The type identifiers each attribute type admits.
  static func admitted(by type: AttributeType) -> Set<UInt32> {
    switch type {
    case .string: [25, 1043, 1042, 19]
    case .integer: [20, 21, 23]
    case .double: [700, 701, 1700, 20, 21, 23]
    case .boolean: [16]
    case .date: [1184, 1114, 1082]
    case .uuid: [2950]
    case .data: [17]
    }
  }

  /// `a text`, `an integer`: a name with its article.
  static func withArticle(_ name: String) -> String {
    (name.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + name
  }

  /// `bigint`, or `type 3802` for a type not in the table.
  static func typeName(_ oid: UInt32) -> String { typeNames[oid] ?? "type \(oid)" }

  /// The admitted types' names, for messages: `bigint, integer or smallint`.
  static func admittedNames(_ type: AttributeType) -> String {
    let names = admitted(by: type).map(typeName).sorted()
    return names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
  }

  /// Converts a column's text to a value of `type`, or says why not.
  static func value(_ text: String?, oid: UInt32, as type: AttributeType) -> Result<FilterValue, Problem> {
    guard admitted(by: type).contains(oid) else {
      return .failure(
        .unadmitted("\(withArticle(typeName(oid))) column, which \(withArticle("\(type)")) attribute does not admit"))
    }
    guard let text else { return .success(.null) }
    func broken() -> Result<FilterValue, Problem> {
      .failure(.unparsable("'\(text)' is not \(withArticle(typeName(oid))) value"))
    }
    switch type {
    case .string: return .success(.string(text))
    case .integer:
      guard let number = Int64(text) else { return broken() }
      return .success(.int(number))
    case .double:
      guard let number = Double(text) else { return broken() }
      return .success(.double(number))
    case .boolean:
      switch text {
      case "t", "true": return .success(.bool(true))
      case "f", "false": return .success(.bool(false))
      default: return broken()
      }
    case .date:
      guard let seconds = Timestamp.secondsSinceReferenceDate(text) else { return broken() }
      return .success(.date(secondsSinceReferenceDate: seconds))
    case .uuid:
      guard let bits = hexNumber(text.utf8.filter { $0 != UInt8(ascii: "-") }, digits: 32) else { return broken() }
      return .success(.uuid(bits))
    case .data:
      var hex = Substring(text)
      if hex.hasPrefix("\\x") { hex = hex.dropFirst(2) }
      guard let bytes = hexBytes(Array(hex.utf8)) else { return broken() }
      return .success(.data(bytes))
    }
  }

  /// Why a value did not convert.
  enum Problem: Error, Hashable {
    /// The column's type is not one the attribute admits.
    case unadmitted(String)
    /// The text is not a value of the type.
    case unparsable(String)

    var message: String {
      switch self {
      case .unadmitted(let text), .unparsable(let text): text
      }
    }
  }

  private static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  private static func hexNumber(_ bytes: [UInt8], digits: Int) -> UInt128? {
    guard bytes.count == digits else { return nil }
    var value: UInt128 = 0
    for byte in bytes {
      guard let digit = hexDigit(byte) else { return nil }
      value = value << 4 | UInt128(digit)
    }
    return value
  }

  private static func hexBytes(_ digits: [UInt8]) -> [UInt8]? {
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = hexDigit(digits[index]), let low = hexDigit(digits[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }
}
