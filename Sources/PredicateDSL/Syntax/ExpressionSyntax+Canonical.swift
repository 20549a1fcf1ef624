// The canonical shapes of expressions. The parser and variable substitution
// both build nodes through these, so that one meaning has one tree and the
// printout of a tree parses back to the same tree.

extension ExpressionSyntax {
  /// `base.path`: extends a key path from `SELF` or a member, else makes a
  /// member.
  static func member(_ base: ExpressionSyntax, _ path: String, range: SyntaxRange) -> ExpressionSyntax {
    switch base.kind {
    case .evaluatedObject:
      ExpressionSyntax(.keyPath(path), range: range)
    case .keyPath(let prefix):
      ExpressionSyntax(.keyPath(prefix + "." + path), range: range)
    case .member(let inner, let prefix):
      ExpressionSyntax(.member(base: inner, keyPath: prefix + "." + path), range: range)
    default:
      ExpressionSyntax(.member(base: base, keyPath: path), range: range)
    }
  }

  /// `{elements}`: a constant array when every element is constant.
  static func aggregate(_ elements: [ExpressionSyntax], range: SyntaxRange) -> ExpressionSyntax {
    var values: [FilterValue] = []
    values.reserveCapacity(elements.count)
    for element in elements {
      guard case .constant(let value) = element.kind else {
        return ExpressionSyntax(.aggregate(elements), range: range)
      }
      values.append(value)
    }
    return ExpressionSyntax(.constant(.array(values)), range: range)
  }

  /// `CAST(value, "type")`, folded into a constant where the value is
  /// constant and the type is one the printout uses for constants.
  static func cast(_ value: ExpressionSyntax, to type: String, range: SyntaxRange) -> ExpressionSyntax {
    if case .constant(let constant) = value.kind, let folded = fold(constant, castTo: type) {
      return ExpressionSyntax(.constant(folded), range: range)
    }
    return ExpressionSyntax(.cast(value, type: type), range: range)
  }

  /// The constant that `CAST(constant, type)` denotes, when it is one.
  static func fold(_ constant: FilterValue, castTo type: String) -> FilterValue? {
    switch (type, constant) {
    case ("NSDate", .int(let seconds)):
      return .date(secondsSinceReferenceDate: Double(seconds))
    case ("NSDate", .double(let seconds)):
      return .date(secondsSinceReferenceDate: seconds)
    case ("NSNumber", .string(let text)):
      return Casting.number(from: text)
    case ("NSUUID", .string(let text)):
      return UUIDText.parse(text).map(FilterValue.uuid)
    case ("NSData", .string(let text)):
      return Base64.decode(text).map(FilterValue.data)
    case ("NSSet", .array(let elements)):
      return .set(Set(elements))
    case ("NSDictionary", .array(let pairs)):
      var record: [String: FilterValue] = [:]
      for pair in pairs {
        guard case .array(let entry) = pair, entry.count == 2, case .string(let key) = entry[0],
          record.updateValue(entry[1], forKey: key) == nil
        else { return nil }
      }
      return .record(record)
    default:
      return nil
    }
  }
}

/// The textual form of a UUID: 32 hexadecimal digits in groups of 8-4-4-4-12.
enum UUIDText {
  static func parse(_ text: String) -> UInt128? {
    let bytes = Array(text.utf8)
    guard bytes.count == 36 else { return nil }
    var value: UInt128 = 0
    for (index, byte) in bytes.enumerated() {
      if index == 8 || index == 13 || index == 18 || index == 23 {
        guard byte == UInt8(ascii: "-") else { return nil }
        continue
      }
      let digit = PredicateLexer.digitValue(byte)
      guard digit < 16 else { return nil }
      value = value << 4 | UInt128(digit)
    }
    return value
  }

  static func format(_ value: UInt128) -> String {
    var hex = String(value, radix: 16, uppercase: true)
    hex = String(repeating: "0", count: 32 - hex.count) + hex
    var text = ""
    for (index, character) in hex.enumerated() {
      if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
      text.append(character)
    }
    return text
  }
}

/// Standard base64 with padding, for data constants.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let b0 = bytes[index]
      let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
      let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
      output.append(alphabet[Int(b0 >> 2)])
      output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      output.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
      output.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }

  static func decode(_ text: String) -> [UInt8]? {
    let input = Array(text.utf8)
    guard input.count % 4 == 0 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(input.count / 4 * 3)
    var index = 0
    while index < input.count {
      var group: [UInt8] = []
      var padding = 0
      for byte in input[index..<index + 4] {
        if byte == UInt8(ascii: "=") {
          padding += 1
          group.append(0)
          continue
        }
        guard padding == 0, let value = alphabet.firstIndex(of: byte) else { return nil }
        group.append(UInt8(value))
      }
      guard padding <= 2, padding == 0 || index + 4 == input.count else { return nil }
      output.append(group[0] << 2 | group[1] >> 4)
      if padding < 2 { output.append(group[1] << 4 | group[2] >> 2) }
      if padding < 1 { output.append(group[2] << 6 | group[3]) }
      index += 4
    }
    // Only the canonical encoding folds, so that printing gives back the text.
    return encode(output) == text ? output : nil
  }
}
