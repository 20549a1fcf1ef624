/// Position arithmetic and rendering shared by every predicate diagnostic.
enum DiagnosticText {
  static func locate(_ range: SyntaxRange, in source: String) -> (location: PredicateParseError.Location, length: Int) {
    let utf8 = source.utf8
    let offset = min(max(range.lowerBound, 0), utf8.count)
    let end = min(max(range.upperBound, offset), utf8.count)
    let offsetIndex = utf8.index(utf8.startIndex, offsetBy: offset)
    var line = 1
    var lineStart = utf8.startIndex
    var index = utf8.startIndex
    for byte in utf8[..<offsetIndex] {
      utf8.formIndex(after: &index)
      if byte == UInt8(ascii: "\n") {
        line += 1
        lineStart = index
      }
    }
    let column = characterCount(utf8[lineStart..<offsetIndex]) + 1
    let endIndex = utf8.index(offsetIndex, offsetBy: end - offset)
    let length = characterCount(utf8[offsetIndex..<endIndex], stoppingAtNewline: true)
    return (PredicateParseError.Location(utf8Offset: offset, line: line, column: column), max(length, 1))
  }

  /// The longest run of bytes counted through a decoded copy; longer runs
  /// (a long line of a predicate of megabytes) are counted in place.
  static let copiedCountLimit = 4_096

  /// The number of characters in `bytes` (up to the first line break, if
  /// asked). Short runs are decoded, which also counts a stray byte of a
  /// cut character as one; long ones are counted in place, without a
  /// copy of what may be gigabytes of text.
  static func characterCount(_ bytes: Substring.UTF8View, stoppingAtNewline: Bool = false) -> Int {
    func count(_ text: some StringProtocol) -> Int {
      stoppingAtNewline ? text.prefix(while: { $0 != "\n" && $0 != "\r\n" }).count : text.count
    }
    guard bytes.count > copiedCountLimit else { return count(String(decoding: bytes, as: UTF8.self)) }
    return count(Substring(bytes))
  }

  static func oneLine(_ message: String, range: SyntaxRange, source: String?) -> String {
    guard let source, range != .synthesized || source.isEmpty == false else {
      return "error: \(message) (at offset \(range.lowerBound))"
    }
    let location = locate(range, in: source).location
    return "predicate:\(location.line):\(location.column): error: \(message)"
  }

  static func render(_ message: String, range: SyntaxRange, source: String) -> String {
    let (location, length) = locate(range, in: source)
    let error = PredicateParseError(
      code: .unexpectedToken, message: message, location: location, length: length,
      expected: [], found: nil, suggestion: nil, source: source)
    return error.detailedDescription()
  }
}
