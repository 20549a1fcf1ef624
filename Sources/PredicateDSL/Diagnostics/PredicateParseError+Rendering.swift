extension PredicateParseError {
  /// Creates an error at a UTF-8 range of `source`, computing the line,
  /// column and underline length. Only errors pay for this; tokens carry
  /// offsets alone.
  init(
    _ code: Code, _ message: String, in source: String, at range: SyntaxRange,
    expected: [String] = [], found: String? = nil, suggestion: String? = nil
  ) {
    let (location, length) = DiagnosticText.locate(range, in: source)
    self.init(
      code: code, message: message,
      location: location, length: length, expected: expected, found: found, suggestion: suggestion,
      source: source)
  }

  /// The widest source line shown before it is cut around the caret.
  static let maximumRenderedWidth = 100

  /// The error as several lines: the message, the position, the offending
  /// line of the source and a caret under the spot, with the suggestion.
  ///
  /// ```
  /// error: expected comparison operator, found end of input
  ///  --> predicate:1:4
  ///   |
  /// 1 | age
  ///   |    ^
  /// ```
  ///
  /// Lines longer than 100 characters are cut around the caret and marked
  /// `…`; spaces at the end of the shown line print as `␣`, so a caret after
  /// them points at something visible.
  public func detailedDescription() -> String {
    // Split on bytes: "\r\n" is a single Character, but it ends a line.
    let lines = source.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    let line = lines.isEmpty ? "" : String(decoding: lines[Swift.min(location.line, lines.count) - 1], as: UTF8.self)
    var text = Array(line)
    if text.last == "\r" { text.removeLast() }
    var caretColumn = location.column - 1
    var underline = Swift.max(1, Swift.min(length, text.count - caretColumn))

    var shown = text
    var leadingCut = false
    var trailingCut = false
    if text.count > Self.maximumRenderedWidth {
      let window = Self.maximumRenderedWidth - 20
      let start = Swift.max(0, Swift.min(caretColumn - window / 2, text.count - window))
      let end = Swift.min(text.count, start + window)
      shown = Array(text[start..<end])
      leadingCut = start > 0
      trailingCut = end < text.count
      caretColumn -= start
      underline = Swift.max(1, Swift.min(underline, shown.count - caretColumn))
    }
    var trailingSpaces = 0
    while trailingSpaces < shown.count, shown[shown.count - 1 - trailingSpaces] == " " {
      trailingSpaces += 1
    }
    let visible =
      String(shown.dropLast(trailingSpaces))
      + String(repeating: "\u{2423}", count: trailingSpaces)

    let gutter = String(repeating: " ", count: String(location.line).count)
    let padding = String(shown.prefix(Swift.max(0, caretColumn)).map { $0 == "\t" ? "\t" : " " })
    var marker = (leadingCut ? " " : "") + padding + String(repeating: "^", count: underline)
    if let suggestion { marker += " " + suggestion }
    return """
      error: \(message)
      \(gutter)--> predicate:\(location.line):\(location.column)
      \(gutter) |
      \(location.line) | \(leadingCut ? "…" : "")\(visible)\(trailingCut ? "…" : "")
      \(gutter) | \(marker)
      """
  }
}
