// The list monitor's encoded sort values (through @testable import): the
// words must order as `ListOrder.order` orders the values, and equal exact
// words must mean equal values.

import PredicateDSL
import TestSupport
import Testing

@testable import ContextWatching

@Suite("List monitor: encoded sort values")
struct ListSortKeyTests {
  /// Values of every kind, with the edges of each encoding: numbers that
  /// differ in their last bits only, integers beyond 2⁵³, both zeros,
  /// infinities and NaN; strings around the 7-byte prefix, with NUL
  /// bytes, and canonically equivalent but different bytes.
  static let edges: [FilterValue] = {
    var values: [FilterValue] = [.null, .bool(false), .bool(true)]
    let integers: [Int64] = [
      0, 1, -1, 2, 7, 8, 9, 1 << 53, (1 << 53) + 1, (1 << 53) - 1, -(1 << 53) - 1, .max, .max - 1, .min, .min + 1,
    ]
    values += integers.map { .int($0) }
    let doubles: [Double] = [
      0, -0.0, 1, -1, 0.5, 1.0.nextUp, 1.0.nextDown, 1.0.nextUp.nextUp, 2, .infinity, -.infinity, .nan,
      .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 9_007_199_254_740_992,
      9_007_199_254_740_994, 9.223372036854775807e18, -9.223372036854775808e18,
    ]
    values += doubles.map { .double($0) }
    values += doubles.map { .date(secondsSinceReferenceDate: $0) }
    let strings = [
      "", "a", "a\0", "a\0b", "ab", "abcdefg", "abcdefg\0", "abcdefgh", "abcdefgi", "abcdefghij", "abcdefghik",
      "abcdefh", "é", "e\u{301}", "C12", "C120", "\u{10FFFF}", "zzzzzzzzzzzzzzzzzz",
    ]
    values += strings.map { .string($0) }
    values += [.uuid(7), .data([1, 2]), .array([.int(1)])]
    return values
  }()

  @Test func wordsOrderAsTheValuesOnTheEdges() {
    check(Self.edges)
  }

  @Test func wordsOrderAsTheValuesOnRandomValues() {
    let seed = SeededGenerator.seed(default: 0x50_27)
    var random = SeededGenerator(seed: seed)
    var values: [FilterValue] = []
    for _ in 0..<400 {
      switch Int.random(in: 0..<5, using: &random) {
      case 0:
        values.append(.int(Int64.random(in: -20...20, using: &random) << Int64.random(in: 0...60, using: &random)))
      case 1: values.append(.double(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))))
      case 2: values.append(.double(Double(Int.random(in: -50...50, using: &random)) / 4))
      case 3:
        let length = Int.random(in: 0...12, using: &random)
        let scalars = (0..<length).map { _ in ["a", "b", "\0", "é", "z"].randomElement(using: &random)! }
        values.append(.string(scalars.joined()))
      default: values.append(.date(secondsSinceReferenceDate: Double(Int.random(in: -5...5, using: &random))))
      }
    }
    check(values, seed: seed)
  }

  private func check(_ values: [FilterValue], seed: UInt64 = 0) {
    for a in values {
      let x = ListSortKey.encode(a)
      for b in values {
        let y = ListSortKey.encode(b)
        let order = ListOrder.order(a, b)
        if x.word < y.word {
          #expect(order < 0, "\(a) encodes before \(b) but orders \(order), seed \(seed)")
        } else if x.word > y.word {
          #expect(order > 0, "\(a) encodes after \(b) but orders \(order), seed \(seed)")
        } else if x.isExact && y.isExact {
          #expect(order == 0, "\(a) and \(b) encode alike and exactly but order \(order), seed \(seed)")
        }
        // A key's words, either direction: decided where the encodings
        // decide, nil (the values decide) where they tie inexactly.
        let ascending = ListSortKey.order(
          ListSortKey.word(a, ascending: true), ListSortKey.word(b, ascending: true))
        let descending = ListSortKey.order(
          ListSortKey.word(a, ascending: false), ListSortKey.word(b, ascending: false))
        if let ascending { #expect(ascending == order.signum(), "\(a), \(b) ascending, seed \(seed)") }
        if let descending { #expect(descending == -order.signum(), "\(a), \(b) descending, seed \(seed)") }
        #expect((ascending == nil) == (descending == nil))
        #expect((ascending == nil) == (x.word == y.word && !(x.isExact && y.isExact)))
      }
    }
  }

  @Test func shortStringsAndSmallNumbersAreExact() {
    #expect(ListSortKey.encode(.string("C12")).isExact)
    #expect(ListSortKey.encode(.string("abcdefg")).isExact)
    #expect(!ListSortKey.encode(.string("abcdefgh")).isExact)
    #expect(ListSortKey.encode(.int(90)).isExact)
    #expect(ListSortKey.encode(.double(37.5)).isExact)
    #expect(!ListSortKey.encode(.int((1 << 53) + 1)).isExact)
    #expect(ListSortKey.encode(.double(0)).word == ListSortKey.encode(.double(-0.0)).word)
  }
}
