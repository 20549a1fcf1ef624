import Testing

@testable import PredicateDSL

/// Syntax ranges hold offsets in 32 bits, so the parser rejects text longer
/// than they reach (4 GiB). The limit is a parameter of the parser, which
/// lets these tests try it on short text.
@Suite("Text length")
struct TextLengthTests {
  /// Parses `text` as `PredicateParser.parse` does, with a lower limit.
  static func parse(_ text: String, maximumLength: Int) throws(PredicateParseError) -> PredicateSyntax {
    var bytes = text
    var outcome: Result<PredicateSyntax, PredicateParseError>!
    bytes.withUTF8 { buffer in
      var parser = Parser(
        bytes: buffer, source: text, arguments: [], maximumDepth: PredicateParser.defaultMaximumDepth,
        inlineDepth: PredicateParser.inlineDepth, maximumLength: maximumLength)
      do throws(PredicateParseError) {
        outcome = .success(try parser.parseWholePredicate())
      } catch {
        outcome = .failure(error)
      }
    }
    return try outcome.get()
  }

  @Test("text longer than the limit is an error that says how long it is, at the limit")
  func longerThanTheLimit() throws {
    let text = "name == \"Zoë\" AND age > 30"
    let error = try #require(throws: PredicateParseError.self) { try Self.parse(text, maximumLength: 13) }
    #expect(error.code == .textTooLong)
    #expect(error.message == "the text is 27 bytes long, more than the limit of 13 bytes")
    #expect(error.location.utf8Offset == 13)
    #expect(error.location.line == 1)
    // The two bytes of "ë" before offset 13 are one column: 13, not 14.
    #expect(error.location.column == 13)
    #expect(error.description == "predicate:1:13: error: the text is 27 bytes long, more than the limit of 13 bytes")
  }

  @Test("a limit inside a character puts the error at the character's first byte")
  func limitInsideACharacter() throws {
    // "ë" is bytes 11 and 12: a limit of 12 cuts it.
    let text = "name == \"Zoë\" AND age > 30"
    let error = try #require(throws: PredicateParseError.self) { try Self.parse(text, maximumLength: 12) }
    #expect(error.message == "the text is 27 bytes long, more than the limit of 12 bytes")
    #expect(error.location.utf8Offset == 11)
    #expect(error.location.column == 12)
    #expect(error.detailedDescription().hasSuffix("\n  |            ^"))
  }

  @Test("the public parser's limit is what a range holds")
  func publicLimit() {
    var text = "age > 30"
    let limit = text.withUTF8 { bytes in
      Parser(bytes: bytes, source: "age > 30", arguments: [], maximumDepth: 256, inlineDepth: 16).maximumLength
    }
    #expect(limit == SyntaxRange.maximumOffset)
  }

  @Test("text as long as the limit parses")
  func asLongAsTheLimit() throws {
    let syntax = try Self.parse("age > 30", maximumLength: 8)
    #expect(syntax.description == "age > 30")
    #expect(syntax.range == SyntaxRange(0, 8))
  }

  @Test("the default limit is what a range holds, 4 GiB less one byte")
  func defaultLimit() {
    #if _pointerBitWidth(_64)
      #expect(SyntaxRange.maximumOffset == 4_294_967_295)
    #else
      #expect(SyntaxRange.maximumOffset == Int.max)
    #endif
    let widest = SyntaxRange(0, SyntaxRange.maximumOffset)
    #expect(widest.upperBound == SyntaxRange.maximumOffset)
    #expect(widest.count == SyntaxRange.maximumOffset)
    var moved = widest
    moved.lowerBound = SyntaxRange.maximumOffset
    #expect(moved.lowerBound == SyntaxRange.maximumOffset)
    #expect(moved.union(SyntaxRange(3, 5)) == SyntaxRange(3, SyntaxRange.maximumOffset))
  }

  @Test("a range beyond the limit, negative or inverted stops the program")
  func outOfRangeTraps() async {
    #if _pointerBitWidth(_64)
      await #expect(processExitsWith: .failure) { _ = SyntaxRange(0, SyntaxRange.maximumOffset + 1) }
    #endif
    await #expect(processExitsWith: .failure) { _ = SyntaxRange(-1, 3) }
    await #expect(processExitsWith: .failure) { _ = SyntaxRange(4, 3) }
    await #expect(processExitsWith: .failure) {
      var range = SyntaxRange(0, 3)
      range.lowerBound = -1
    }
    #if _pointerBitWidth(_64)
      await #expect(processExitsWith: .failure) {
        var range = SyntaxRange(0, 3)
        range.upperBound = SyntaxRange.maximumOffset + 1
      }
    #endif
  }

  /// A line of megabytes is neither copied whole nor turned into an array
  /// of characters to render an error in it: the column is counted in
  /// place, and only a stretch around the caret is decoded. What shows is
  /// what a short line shows: 80 characters around the caret, cut with `…`.
  @Test("an error in a line of megabytes renders the characters around it")
  func errorInALongLine() throws {
    let clause = "name == 'Zoë' AND "
    let count = 60_000  // 2.3 MB in all
    let text =
      String(repeating: clause, count: count) + "age > AND " + String(repeating: clause, count: count) + "b == 1"
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(text, limits: PredicateLimits(maximumLength: 4 << 20))
    }
    let caret = clause.count * count + "age > ".count
    #expect(error.location.utf8Offset == clause.utf8.count * count + "age > ".utf8.count)
    #expect(error.location.line == 1)
    #expect(error.location.column == caret + 1)
    let characters = Array(text)
    let lines = error.detailedDescription().split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 5)
    // The window ends in a space, which shows as "␣".
    let window = characters[(caret - 40)..<(caret + 40)]
    #expect(window.last == " ")
    #expect(lines[3] == "1 | …" + String(window.dropLast()) + "\u{2423}…")
    #expect(lines[4] == "  |  " + String(repeating: " ", count: 40) + "^^^")
  }

  /// Guards the tree's memory: a node's size is most of a tree's, and a
  /// large tree's pages are faulted in again on every parse (Parsing, in
  /// docs/benchmarks.md). 32-bit ranges and a comparison's one-byte fields
  /// after its operands keep these sizes.
  @Test("syntax nodes stay small")
  func nodeSizes() {
    #expect(MemoryLayout<SyntaxRange>.size == 8)
    #expect(MemoryLayout<ExpressionSyntax>.stride <= 32)
    #expect(MemoryLayout<ComparisonSyntax>.size <= 64)
    #expect(MemoryLayout<PredicateSyntax>.stride <= 72)
  }
}
