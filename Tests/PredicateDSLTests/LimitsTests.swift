import Dispatch
import Foundation
import PredicateDSL
import Synchronization
import TestSupport
import Testing

/// Nesting limits and hostile input: errors, never crashes or hangs.
@Suite("Limits")
struct LimitsTests {
  static let depth = PredicateParser.defaultMaximumDepth

  static func nested(_ shape: String, _ levels: Int) -> String { NestedPredicates.text(shape, levels) }

  static let shapes = NestedPredicates.shapes

  @Test("the documented depth parses", arguments: shapes)
  func documentedDepthParses(_ shape: String) throws {
    // The levels the shape adds itself (the comparison, the subscript's
    // own expression) stay within the limit.
    _ = try PredicateParser.parse(Self.nested(shape, Self.depth - 1))
  }

  /// The deepest accepted input of each shape parses (and its tree is
  /// freed) on a thread with a 512 KiB stack, the smallest default of the
  /// platforms (secondary threads on Apple's): the parser takes deep text to
  /// a thread of its own. Its printout fits such a stack in a release build
  /// (131 KiB at most, by `Scripts/measure-parser-stack.sh`), and 1 MiB in
  /// a debug build, whose frames are about four times larger. In a child
  /// process, so that overflowing a stack fails this test instead of ending
  /// the run.
  /// Not under a sanitizer, which makes frames several times larger than
  /// the figures above.
  @Test("the documented depth fits a 512 KiB stack", .disabled(if: Sanitizers.isOn), arguments: shapes)
  func documentedDepthFitsASmallStack(_ shape: String) async throws {
    await #expect(processExitsWith: .success) { [shape] in
      let text = LimitsTests.nested(shape, shape == "subqueries" ? LimitsTests.depth / 4 : LimitsTests.depth - 1)
      #if DEBUG
        let printingStack = 1 << 20
      #else
        let printingStack = 512 << 10
      #endif
      for (stack, prints) in [(512 << 10, false), (printingStack, true)] {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
          let syntax = try! PredicateParser.parse(text)
          if prints { precondition(!syntax.description.isEmpty) }
          done.signal()
        }
        thread.stackSize = stack
        thread.start()
        done.wait()
      }
    }
  }

  @Test("one level deeper is an error", arguments: shapes)
  func deeperIsAnError(_ shape: String) throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(Self.nested(shape, Self.depth + 1))
    }
    #expect(error.code == .nestingTooDeep)
    #expect(error.message == "nesting is deeper than the limit of 256 levels")
  }

  @Test("20,000 levels are an error, not a crash", arguments: shapes)
  func veryDeepIsAnError(_ shape: String) throws {
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(Self.nested(shape, 20_000))
    }
    #expect(error.code == .nestingTooDeep)
  }

  /// A key path written in one piece (`c.d`) counts toward the depth as the
  /// same path written with spaces (`c . d`, the general route) does: the
  /// deepest nesting of subscripts around it that parses is the same.
  @Test func keyPathsInOnePieceCountTheirDepthAsTheGeneralRouteDoes() throws {
    func parses(_ step: String, _ levels: Int) -> Bool {
      let text = "a" + String(repeating: "[" + step, count: levels) + String(repeating: "]", count: levels) + " == 1"
      do {
        _ = try PredicateParser.parse(text)
        return true
      } catch {
        #expect(error.code == .nestingTooDeep, "\(error)")
        return false
      }
    }
    func deepest(_ step: String) -> Int {
      var (low, high) = (1, Self.depth + 1)  // parses at low, not at high
      while high - low > 1 {
        let middle = (low + high) / 2
        if parses(step, middle) { low = middle } else { high = middle }
      }
      return low
    }
    let general = deepest("c . d")
    #expect(general > 100 && general < Self.depth)
    #expect(deepest("c.d") == general)
    #expect(deepest("c.d.@count") == deepest("c . d . @count"))
  }

  @Test func sixtyFourLevelsOfEveryKindTogether() throws {
    var text = "a == 1"
    for level in 0..<64 {
      text = level % 2 == 0 ? "NOT (\(text) AND b == -(c))" : "(\(text)) OR x IN {y, abs(z[q])}"
    }
    let syntax = try PredicateParser.parse(text)
    #expect(try PredicateParser.parse(syntax.description) == syntax)
  }

  /// 191 nested minus signs printed as `-(-(…` would exceed the depth
  /// limit: printouts never nest deeper than their input, for negation and
  /// arithmetic chains alike.
  @Test func printoutsOfDeepInputsParseBack() throws {
    for text in [
      String(repeating: "-", count: 191) + "a= '\0\0\0X3a'",
      "a == " + String(repeating: "-", count: 250) + "5",
      (0..<250).map { "k\($0)" }.joined(separator: " + ") + " == 1",
      (0..<250).map { "k\($0)" }.joined(separator: " ** ") + " == 1",
      "a" + String(repeating: "[0]", count: 250) + " == 1",
      String(repeating: "NOT ", count: 255) + "a == 1",
    ] {
      let syntax = try PredicateParser.parse(text)
      let again = try PredicateParser.parse(syntax.description)
      #expect(again == syntax)
      #expect(again.description == syntax.description)
    }
  }

  /// The one place the printout adds nesting: an AND inside an OR gets
  /// parentheses, so the text never depends on AND binding tighter. Near
  /// the limit such a printout needs a larger limit to parse back.
  @Test func andInsideOrPrintoutsMayNeedALargerLimit() throws {
    var text = "z == 1"
    for _ in 0..<200 { text = "a == 1 OR b == 1 AND (\(text))" }
    let syntax = try PredicateParser.parse(text)
    let error = try #require(throws: PredicateParseError.self) {
      try PredicateParser.parse(syntax.description)
    }
    #expect(error.code == .nestingTooDeep)
    // A limit above the default needs a stack to match: test threads are
    // small, so parse on a thread of our own with 64 MiB.
    let printed = syntax.description
    let result = Mutex<PredicateSyntax?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      result.withLock {
        $0 = try? PredicateParser.parse(printed, limits: PredicateLimits(maximumDepth: 2 * Self.depth))
      }
      done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    done.wait()
    #expect(result.withLock { $0 } == syntax)
  }

  /// Chains parse in a loop, but they build trees as deep as they are long;
  /// those count toward the limit, so no parsed tree is deeper than it.
  @Test func longChainsCountTowardTheLimit() throws {
    for text in [
      (0..<100_000).map { "k\($0)" }.joined(separator: " + ") + " == 1",
      "a == " + (0..<100_000).map { "k\($0)" }.joined(separator: " * "),
      "a" + String(repeating: "[0]", count: 100_000) + " == 1",
      "a" + String(repeating: "[0].b", count: 100_000) + " == 1",
    ] {
      let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
      #expect(error.code == .nestingTooDeep)
    }
    // 256 terms are 255 operations: within the limit.
    _ = try PredicateParser.parse((0..<256).map { "k\($0)" }.joined(separator: " + ") + " == 1")
  }

  @Test func theLimitIsConfigurable() throws {
    let text = Self.nested("parentheses", 10)
    _ = try PredicateParser.parse(text, limits: PredicateLimits(maximumDepth: 10))
    #expect(throws: PredicateParseError.self) {
      try PredicateParser.parse(text, limits: PredicateLimits(maximumDepth: 9))
    }
  }

  @Test func megabytesOfGarbageAreRejected() throws {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<2_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let text = String(decoding: bytes, as: UTF8.self)
    let error = try #require(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    #expect(error.location.utf8Offset <= text.utf8.count)
  }

  @Test func aLongFlatPredicateParses() throws {
    let clauses = (0..<20_000).map { "k\($0) == \($0)" }
    let syntax = try PredicateParser.parse(clauses.joined(separator: " AND "))
    let operands = try #require(syntax.kind.andOperands, "expected one flat AND")
    #expect(operands.count == 20_000)
  }

  /// A list is parsed at most twice (as constants, then as expressions):
  /// lists nested to the limit around a key path, each of which fails as
  /// constants, parse in linear time, not in 2^depth steps. On a thread of
  /// its own, so that a hang fails the test (after a minute: a guard, not a
  /// measurement) instead of stopping the suite.
  @Test func listsNestedAroundAKeyPathParseOnce() throws {
    let levels = Self.depth - 2
    let text = "a IN " + String(repeating: "{1, ", count: levels) + "b" + String(repeating: "}", count: levels)
    let result = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      result.withLock { $0 = (try? PredicateParser.parse(text))?.description }
      done.signal()
    }
    thread.stackSize = 16 << 20
    thread.start()
    try #require(done.wait(timeout: .now() + 60) == .success, "parsing nested lists did not finish")
    #expect(result.withLock { $0 } == text)
  }

  @Test func longRunsOfOneTokenAreRejected() throws {
    for text in [
      String(repeating: "(", count: 1_000_000), String(repeating: "'", count: 1_000_001),
      String(repeating: "a.", count: 500_000), String(repeating: "a == 1 AND ", count: 100_000),
      "a IN {" + String(repeating: "1, ", count: 300_000), String(repeating: "-", count: 1_000_000),
    ] {
      #expect(throws: PredicateParseError.self) { try PredicateParser.parse(text) }
    }
  }
}
