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

  /// The bytes either side of the caret decoded from a line longer than
  /// `DiagnosticText.copiedCountLimit`, far more than the 80 characters
  /// shown of it: a line of gigabytes is never copied whole.
  static let decodedReach = 1_024

  /// The characters of the line with the error (without its line break),
  /// or of a stretch of it around the caret for a long line; the caret's
  /// column among them; whether the line goes on before and after them.
  private func shownLine() -> (text: [Character], caretColumn: Int, cutBefore: Bool, cutAfter: Bool) {
    // On bytes: "\r\n" is a single Character, but it ends a line.
    let utf8 = source.utf8
    let newline = UInt8(ascii: "\n")
    let caret = utf8.index(utf8.startIndex, offsetBy: Swift.min(Swift.max(location.utf8Offset, 0), utf8.count))
    let lineStart = utf8[..<caret].lastIndex(of: newline).map { utf8.index(after: $0) } ?? utf8.startIndex
    let lineEnd = utf8[caret...].firstIndex(of: newline) ?? utf8.endIndex
    let lineLength = utf8.distance(from: lineStart, to: lineEnd)
    guard lineLength > DiagnosticText.copiedCountLimit else {
      var text = Array(String(decoding: utf8[lineStart..<lineEnd], as: UTF8.self))
      if text.last == "\r" { text.removeLast() }
      return (text, location.column - 1, false, false)
    }
    // A stretch from and to whole characters' first bytes.
    func isContinuation(_ index: String.UTF8View.Index) -> Bool { utf8[index] & 0xC0 == 0x80 }
    var start = utf8.index(caret, offsetBy: -Swift.min(Self.decodedReach, utf8.distance(from: lineStart, to: caret)))
    while start < caret, isContinuation(start) { utf8.formIndex(after: &start) }
    var end = utf8.index(caret, offsetBy: Swift.min(Self.decodedReach, utf8.distance(from: caret, to: lineEnd)))
    while end > caret, end < lineEnd, isContinuation(end) { utf8.formIndex(before: &end) }
    var text = Array(String(decoding: utf8[start..<end], as: UTF8.self))
    if end == lineEnd, text.last == "\r" { text.removeLast() }
    let caretColumn = String(decoding: utf8[start..<caret], as: UTF8.self).count
    return (text, caretColumn, start > lineStart, end < lineEnd)
  }

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
    var (text, caretColumn, leadingCut, trailingCut) = shownLine()
    var underline = Swift.max(1, Swift.min(length, text.count - caretColumn))

    var shown = text
    if text.count > Self.maximumRenderedWidth {
      let window = Self.maximumRenderedWidth - 20
      let start = Swift.max(0, Swift.min(caretColumn - window / 2, text.count - window))
      let end = Swift.min(text.count, start + window)
      shown = Array(text[start..<end])
      leadingCut = leadingCut || start > 0
      trailingCut = trailingCut || end < text.count
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
