/// Reads a line of wal2json straight from its bytes: any JSON object, keys
/// in any order, unknown keys passed over, the record's fields kept. The
/// stream's hot path: a row's line is read without a JSON tree, and a
/// value becomes a `String` once.
struct Wal2JSONScanner {
  /// Where and why a line is not JSON of wal2json's shape.
  struct Failure: Error, CustomStringConvertible {
    var message: String
    var offset: Int
    /// `expected ':' at byte 12`.
    var description: String { "\(message) at byte \(offset)" }
  }

  private let bytes: UnsafeRawBufferPointer
  private var index = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

  private func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private mutating func expect(_ byte: UInt8) throws(Failure) {
    skipSpace()
    guard current == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
    index += 1
  }

  /// Reads `{`, then each key and hands it to `body`, which reads the
  /// value, until `}`.
  private mutating func object(_ body: (inout Self, UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
    try expect(UInt8(ascii: "{"))
    skipSpace()
    if current == UInt8(ascii: "}") {
      index += 1
      return
    }
    while true {
      skipSpace()
      let key = try rawString()
      try expect(UInt8(ascii: ":"))
      skipSpace()
      try body(&self, key)
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return
      default: throw failure("expected ',' or '}'")
      }
    }
  }

  /// The bytes between the quotes of a string without escapes (a key).
  private mutating func rawString() throws(Failure) -> UnsafeRawBufferPointer {
    guard current == Self.quote else { throw failure("expected a string") }
    let start = index + 1
    var end = start
    while end < bytes.count, bytes[end] != Self.quote {
      if bytes[end] == Self.backslash { throw failure("expected a key without escapes") }
      end += 1
    }
    guard end < bytes.count else { throw failure("unterminated string") }
    index = end + 1
    return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
  }

  /// A string value: its text, and whether its bytes were UTF-8 (if not,
  /// U+FFFD stands for the bytes that are not).
  private mutating func string() throws(Failure) -> (text: String, isUTF8: Bool) {
    guard current == Self.quote else { throw failure("expected a string") }
    let start = index + 1
    var end = start
    var plain = true
    var ascii = true
    while end < bytes.count {
      let byte = bytes[end]
      if byte == Self.quote { break }
      if byte == Self.backslash {
        plain = false
        end += 2
        continue
      }
      if byte >= 0x80 { ascii = false }
      end += 1
    }
    guard end < bytes.count else { throw failure("unterminated string") }
    index = end + 1
    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    if plain {
      if ascii { return (String(decoding: raw, as: UTF8.self), true) }
      if let text = String(validating: raw, as: UTF8.self) { return (text, true) }
      return (String(decoding: raw, as: UTF8.self), false)
    }
    let unescaped = try Self.unescape(raw, at: start)
    if let text = String(validating: unescaped, as: UTF8.self) { return (text, true) }
    return (String(decoding: unescaped, as: UTF8.self), false)
  }

  /// The bytes a string's escapes stand for.
  private static func unescape(_ raw: UnsafeRawBufferPointer, at offset: Int) throws(Failure) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(raw.count)
    var index = 0
    func hex(_ at: Int) throws(Failure) -> UInt32 {
      guard at + 4 <= raw.count else { throw Failure(message: "a short \\u escape", offset: offset + at) }
      var value: UInt32 = 0
      for byte in raw[at..<at + 4] {
        guard let digit = UInt32(String(Unicode.Scalar(byte)), radix: 16) else {
          throw Failure(message: "a \\u escape that is not hexadecimal", offset: offset + at)
        }
        value = value << 4 | digit
      }
      return value
    }
    while index < raw.count {
      let byte = raw[index]
      guard byte == backslash, index + 1 < raw.count else {
        bytes.append(byte)
        index += 1
        continue
      }
      let escaped = raw[index + 1]
      index += 2
      switch escaped {
      case UInt8(ascii: "b"): bytes.append(0x08)
      case UInt8(ascii: "f"): bytes.append(0x0C)
      case UInt8(ascii: "n"): bytes.append(0x0A)
      case UInt8(ascii: "r"): bytes.append(0x0D)
      case UInt8(ascii: "t"): bytes.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex(index)
        index += 4
        // A surrogate pair is one scalar; a lone surrogate is U+FFFD.
        if (0xD800..<0xDC00).contains(scalar), index + 6 <= raw.count, raw[index] == backslash,
          raw[index + 1] == UInt8(ascii: "u")
        {
          let low = try hex(index + 2)
          if (0xDC00..<0xE000).contains(low) {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            index += 6
          }
        }
        bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
      default: bytes.append(escaped)
      }
    }
    return bytes
  }

  /// A scalar as PostgreSQL's text form: a string's text, a number as
  /// written, `t` or `f`, nil for null; and whether its bytes were UTF-8.
  private mutating func scalar() throws(Failure) -> (text: String?, isUTF8: Bool) {
    switch current {
    case Self.quote:
      let (text, isUTF8) = try string()
      return (text, isUTF8)
    case UInt8(ascii: "t"):
      try word("true")
      return ("t", true)
    case UInt8(ascii: "f"):
      try word("false")
      return ("f", true)
    case UInt8(ascii: "n"):
      try word("null")
      return (nil, true)
    default:
      let start = index
      while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
          UInt8(ascii: "e"), UInt8(ascii: "E"):
          index += 1
        default:
          guard index > start else { throw failure("expected a value") }
          return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self), true)
        }
      }
      guard index > start else { throw failure("expected a value") }
      return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self), true)
    }
  }

  private mutating func word(_ word: StaticString) throws(Failure) {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count,
      word.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + count]) })
    else { throw failure("expected \(word)") }
    index += count
  }

  private mutating func unsigned() throws(Failure) -> UInt64 {
    let start = index
    var value: UInt64 = 0
    while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
      let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflowTimes, !overflowSum else { throw failure("a number too large") }
      value = sum
      index += 1
    }
    guard index > start else { throw failure("expected a number") }
    return value
  }

  private mutating func boolean() throws(Failure) -> Bool {
    if current == UInt8(ascii: "t") {
      try word("true")
      return true
    }
    try word("false")
    return false
  }

  /// Passes over any value: an unknown key's.
  private mutating func skipValue() throws(Failure) {
    skipSpace()
    switch current {
    case UInt8(ascii: "{"): try object { scanner, _ throws(Failure) in try scanner.skipValue() }
    case UInt8(ascii: "["): try array { scanner throws(Failure) in try scanner.skipValue() }
    default: _ = try scalar()
    }
  }

  /// Reads `[`, each element with `body`, then `]`.
  private mutating func array(_ body: (inout Self) throws(Failure) -> Void) throws(Failure) {
    try expect(UInt8(ascii: "["))
    skipSpace()
    if current == UInt8(ascii: "]") {
      index += 1
      return
    }
    while true {
      skipSpace()
      try body(&self)
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return
      default: throw failure("expected ',' or ']'")
      }
    }
  }

  /// `[{"name":…,"typeoid":…,"value":…}, …]`.
  private mutating func columns() throws(Failure) -> [ColumnValue] {
    var columns: [ColumnValue] = []
    try array { scanner throws(Failure) in
      var name: String?
      var type: UInt64?
      var value: (text: String?, isUTF8: Bool) = (nil, true)
      let start = scanner.index
      try scanner.object { scanner, key throws(Failure) in
        if Self.equal(key, "name") {
          name = try scanner.string().text
        } else if Self.equal(key, "typeoid") {
          type = try scanner.unsigned()
        } else if Self.equal(key, "value") {
          value = try scanner.scalar()
        } else {
          try scanner.skipValue()
        }
      }
      guard let name, let type, type <= UInt64(UInt32.max) else {
        throw Failure(message: "expected a column with a name and a typeoid", offset: start)
      }
      var column = ColumnValue(name: name, typeOID: UInt32(type), text: value.text)
      if type == Self.bpcharOID, let text = column.text, text.last == " " {
        // wal2json writes `character(n)` with its padding; the load reads
        // it as `text`, which drops it (PostgreSQL holds trailing spaces of
        // `character` insignificant). Both give the value without it, so
        // that keys match and an unchanged value reads as unchanged.
        column.text = String(text.dropLast(text.reversed().prefix { $0 == " " }.count))
      }
      column.isUTF8 = value.isUTF8
      columns.append(column)
    }
    return columns
  }

  /// The type `character(n)` (`bpchar`).
  private static let bpcharOID: UInt64 = 1042

  private static func equal(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
    key.count == name.utf8CodeUnitCount && name.withUTF8Buffer { $0.elementsEqual(key) }
  }

  /// The whole line as a record.
  mutating func record() throws(Failure) -> Wal2JSONRecord {
    var record = Wal2JSONRecord()
    try object { scanner, key throws(Failure) in
      switch key.count {
      case 3 where Self.equal(key, "xid"):
        let xid = try scanner.unsigned()
        guard xid <= UInt64(UInt32.max) else { throw scanner.failure("an xid beyond 32 bits") }
        record.xid = UInt32(xid)
      case 3 where Self.equal(key, "lsn"): record.lsn = try scanner.string().text
      case 5 where Self.equal(key, "table"): record.table = try scanner.string().text
      case 6 where Self.equal(key, "action"): record.action = try scanner.string().text
      case 6 where Self.equal(key, "schema"): record.schema = try scanner.string().text
      case 6 where Self.equal(key, "prefix"): record.prefix = try scanner.string().text
      case 7 where Self.equal(key, "columns"): record.columns = try scanner.columns()
      case 7 where Self.equal(key, "content"): record.content = try scanner.string().text
      case 8 where Self.equal(key, "identity"): record.identity = try scanner.columns()
      case 13 where Self.equal(key, "transactional"): record.transactional = try scanner.boolean()
      default: try scanner.skipValue()
      }
    }
    skipSpace()
    guard index == bytes.count else { throw failure("expected the end of the line") }
    return record
  }
}
