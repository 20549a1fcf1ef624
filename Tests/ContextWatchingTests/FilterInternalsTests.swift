// Tests of the master filter's internals (through @testable import): index
// keys, the limit on watches held at once, and the analysis of range
// conjuncts into ranges.

import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

@testable import ContextWatching

/// The equality index's keys: exact fingerprints (integral numbers, strings
/// of up to seven bytes) decide equality alone only against a fingerprint
/// of the same kind.
@Suite("Watcher: index keys")
struct IndexKeyTests {
  @Test func numbersThatCompareEqualAreOneKey() {
    #expect(IndexKey(.int(1)) == IndexKey(.double(1)))
    #expect(IndexKey(.int(1)) == IndexKey(.bool(true)))
    #expect(IndexKey(.int(1)) != IndexKey(.double(1.5)))
    #expect(Set([IndexKey(.int(0)), IndexKey(.double(-0.0)), IndexKey(.bool(false))]).count == 1)
  }

  @Test func stringsAreEqualByTheirBytes() {
    for (a, b) in [("Oslo", "Oslo"), ("", ""), ("Abcdefgh", "Abcdefgh"), ("Caf\u{E9}", "Caf\u{E9}")] {
      #expect(IndexKey(.string(a)) == IndexKey(.string(b)), "\(a) and \(b)")
    }
    for (a, b) in [
      ("Oslo", "Osl"), ("Oslo", "Oslo\u{0}"), ("", "\u{0}"), ("Abcdefg", "Abcdefgh"), ("Abcdefgh", "Abcdefgi"),
      ("Caf\u{E9}", "Cafe\u{301}"),
    ] {
      #expect(IndexKey(.string(a)) != IndexKey(.string(b)), "\(a) and \(b)")
    }
  }

  /// An integer whose fingerprint is a short string's packed bytes: equal
  /// fingerprints of different kinds fall back to comparing the values.
  @Test func aStringAndANumberWithOneFingerprintDiffer() {
    let text = IndexKey(.string("Oslo"))
    // Integers are fingerprinted by multiplying by an odd constant, a
    // bijection: multiply by its inverse to find the integer.
    let constant: UInt64 = 0x9E37_79B9_7F4A_7C15
    var inverse = constant
    for _ in 0..<5 { inverse = inverse &* (2 &- constant &* inverse) }
    #expect(constant &* inverse == 1)
    let number = IndexKey(.int(Int64(bitPattern: text.fingerprint &* inverse)))
    #expect(number.fingerprint == text.fingerprint)
    #expect(number != text)
    #expect(Set([number, text]).count == 2)
  }
}

/// The equality index's table: found by fingerprint, with distinct keys
/// that share a hashed fingerprint chained.
@Suite("Watcher: index key table")
struct KeyTableTests {
  /// Binary values are fingerprinted by their length alone: three of one
  /// length share a fingerprint and chain.
  @Test func keysSharingAFingerprintAreChainedAndFoundByValue() {
    let values: [FilterValue] = [.data([1, 2, 3]), .data([4, 5, 6]), .data([7, 8, 9])]
    #expect(Set(values.map { IndexKey($0).fingerprint }).count == 1)
    var table = KeyTable()
    let watches = values.map { table.insert(IndexKey($0)) }
    #expect(Set(watches.map(ObjectIdentifier.init)).count == 3)
    for (value, keyed) in zip(values, watches) {
      #expect(table.watches(for: value) === keyed)
      #expect(table.watches(for: IndexKey(value)) === keyed)
      #expect(table.insert(IndexKey(value)) === keyed, "inserting a filed key gives its watches")
    }
    #expect(table.watches(for: .data([1, 2, 4])) == nil)
    #expect(table.watches(for: .data([1, 2])) == nil)

    table.remove(watches[1])  // from the middle of the chain
    #expect(table.watches(for: values[1]) == nil)
    #expect(table.watches(for: values[0]) === watches[0] && table.watches(for: values[2]) === watches[2])
    table.remove(watches[2])  // the first of the chain: the last inserted
    #expect(table.watches(for: values[2]) == nil && table.watches(for: values[0]) === watches[0])
    table.remove(watches[0])
    #expect(table.watches(for: values[0]) == nil && table.isEmpty)
  }

  @Test func numbersAndStringsAreFoundWhateverTheirForm() {
    var table = KeyTable()
    let one = table.insert(IndexKey(.int(1)))
    let long = table.insert(IndexKey(.string("Kristiansand")))
    let short = table.insert(IndexKey(.string("Oslo")))
    #expect(table.watches(for: .double(1)) === one && table.watches(for: .bool(true)) === one)
    #expect(table.watches(for: .int(2)) == nil && table.watches(for: .double(1.5)) == nil)
    #expect(table.watches(for: .string("Kristiansand")) === long)
    #expect(table.watches(for: .string("Kristiansanc")) == nil)
    #expect(table.watches(for: .string("Oslo")) === short && table.watches(for: .string("Osl")) == nil)
    #expect(table.watches(for: .null) == nil)
  }

  /// A number whose fingerprint is a short string's: different kinds of
  /// exact fingerprint are different keys, chained in one bucket.
  @Test func aNumberWithAStringsFingerprintIsAnotherKey() {
    let text = IndexKey(.string("Oslo"))
    let constant: UInt64 = 0x9E37_79B9_7F4A_7C15
    var inverse = constant
    for _ in 0..<5 { inverse = inverse &* (2 &- constant &* inverse) }
    let number: FilterValue = .int(Int64(bitPattern: text.fingerprint &* inverse))
    var table = KeyTable()
    let city = table.insert(text)
    #expect(table.watches(for: number) == nil)
    let integer = table.insert(IndexKey(number))
    #expect(integer !== city)
    #expect(table.watches(for: number) === integer && table.watches(for: .string("Oslo")) === city)
    table.remove(integer)
    #expect(table.watches(for: number) == nil && table.watches(for: .string("Oslo")) === city)
  }

  /// Keys come and go in random order, thousands of them, through many
  /// growths: every lookup agrees with a plain set of the keys held, so
  /// removal's shifting of later buckets never strands a key.
  @Test func randomInsertionsAndRemovalsAgreeWithASet() {
    var random = SeededGenerator(seed: SeededGenerator.seed(default: 0x7AB1E))
    var table = KeyTable()
    var held: [FilterValue: MasterFilter.KeyedWatches] = [:]
    func value(_ number: Int) -> FilterValue {
      number % 3 == 0 ? .string("city \(number)") : (number % 3 == 1 ? .int(Int64(number)) : .string("C\(number)"))
    }
    for round in 0..<20_000 {
      let candidate = value(Int.random(in: 0..<3_000, using: &random))
      if let keyed = held[candidate], round % 3 != 0 {
        table.remove(keyed)
        held[candidate] = nil
      } else {
        let keyed = table.insert(IndexKey(candidate))
        #expect(held[candidate].map { $0 === keyed } ?? true, "a held key gives its own watches")
        held[candidate] = keyed
      }
      if round % 1_000 == 999 {
        for number in 0..<3_000 {
          let probe = value(number)
          #expect(table.watches(for: probe) === held[probe], "\(probe) after \(round + 1) rounds")
        }
      }
    }
    for keyed in held.values { table.remove(keyed) }
    #expect(table.isEmpty && table.watches(for: value(3)) == nil)
  }
}

/// The filter's limit on watches held at once, with a small capacity.
@Suite("Watcher: capacity")
struct FilterCapacityTests {
  @Test func aFullFilterRefusesWatchesAndChangesNothing() throws {
    var filter = MasterFilter(schema: WatcherFixtures.schema, capacity: 2)
    let first = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "age > 3"), source: nil, options: WatchOptions())
    let second = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "city == 'Oslo'"), source: nil, options: WatchOptions())
    let refused = try #require(throws: WatchError.self) {
      try filter.add(
        entity: "Person", predicate: PredicateSyntax(parsing: "age > 4"), source: "age > 4", options: WatchOptions())
    }
    #expect(refused.code == .tooManyWatches)
    #expect(
      refused.description == "watch 'Person age > 4' on Person: the watcher already holds 2 watches, the most it can")
    #expect(filter.count == 2 && filter.entry(first) != nil && filter.entry(second) != nil)
    filter.remove(first)
    let third = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "age > 5"), source: nil, options: WatchOptions())
    #expect(third.number == 3 && filter.count == 2 && filter.entry(first) == nil && filter.entry(third) != nil)
  }

  @Test func aWatcherThatHandedOutEveryNumberRefusesWatches() throws {
    var filter = MasterFilter(schema: WatcherFixtures.schema, firstNumber: WatchID.numberLimit - 1)
    let last = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "age > 3"), source: nil, options: WatchOptions())
    #expect(last.number == WatchID.numberLimit - 1 && last.description == "watch \(WatchID.numberLimit - 1)")
    let refused = try #require(throws: WatchError.self) {
      try filter.add(
        entity: "Person", predicate: PredicateSyntax(parsing: "age > 4"), source: nil, options: WatchOptions())
    }
    #expect(refused.code == .tooManyWatches && refused.message.contains("use a new watcher"))
    #expect(filter.count == 1 && filter.entry(last) != nil)
  }

  /// Emptied for a watcher going away, a filter holds nothing and hands
  /// out no identifier twice.
  @Test func removingAllKeepsTheNumbering() throws {
    var filter = MasterFilter(schema: WatcherFixtures.schema)
    let first = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "age > 3"), source: nil, options: WatchOptions())
    let second = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "city == 'Oslo'"), source: nil, options: WatchOptions())
    filter.removeAll()
    #expect(filter.count == 0 && filter.entry(first) == nil && filter.entry(second) == nil)
    filter.remove(first)
    let third = try filter.add(
      entity: "Person", predicate: PredicateSyntax(parsing: "age > 3"), source: nil, options: WatchOptions())
    #expect(third.number == 3 && filter.count == 1 && filter.entry(third) != nil)
  }

  @Test func identifiersNoWatcherHandsOutDescribeTheirRawValue() {
    #expect(WatchID(rawValue: 5).description == "watch (raw 5)")
    #expect(WatchID(rawValue: 3 << 24 | 7).description == "watch 3")
  }
}

/// The range index's packed bounds: what goes in comes out, the order is
/// exact across integers and doubles, and an entry stays half a cache line.
@Suite("Watcher: range bounds")
struct RangeBoundsTests {
  @Test func boundsKeepTheirKeysAndInclusion() throws {
    let both = try #require(RangeBounds(lower: (.int(-3), true), upper: (.double(2.5), false)))
    #expect(both.lower.map { RangeKey.order($0, RangeKey(.int(-3))!) } == 0)
    #expect(both.upper.map { RangeKey.order($0, RangeKey(.double(2.5))!) } == 0)
    #expect(both.lower?.isDouble == false && both.upper?.isDouble == true)
    #expect(both.lowerIncluded && !both.upperIncluded)
    let lowerOnly = try #require(RangeBounds(lower: (.date(secondsSinceReferenceDate: 10), false), upper: nil))
    #expect(lowerOnly.upper == nil && lowerOnly.lower?.isDouble == true && !lowerOnly.lowerIncluded)
    let upperOnly = try #require(RangeBounds(lower: nil, upper: (.bool(true), true)))
    #expect(upperOnly.lower == nil && upperOnly.upper?.bits == 1 && upperOnly.upperIncluded)
    #expect(RangeBounds(lower: (.string("a"), true), upper: nil) == nil)
    #expect(RangeBounds(lower: nil, upper: (.null, true)) == nil)
  }

  @Test func boundsAdmitWhatThePredicateAdmits() throws {
    let between = try #require(RangeBounds(lower: (.int(1), true), upper: (.int(3), true)))
    #expect([0, 1, 2, 3, 4].map { between.contains(.int($0)) } == [false, true, true, true, false])
    #expect(between.contains(.double(2.5)) && !between.contains(.double(3.0000001)))
    #expect(!between.contains(.double(.nan)) && !between.contains(.string("2")) && !between.contains(.null))
    let above = try #require(RangeBounds(lower: (.double(1.5), false), upper: nil))
    #expect(!above.contains(.int(1)) && above.contains(.int(2)) && !above.contains(.double(1.5)))
  }

  @Test func keysOrderExactlyAcrossIntegersAndDoubles() {
    func order(_ a: FilterValue, _ b: FilterValue) -> Int? { RangeKey.order(RangeKey(a)!, RangeKey(b)!) }
    #expect(order(.int(2), .double(2.5)) == -1 && order(.double(2.5), .int(2)) == 1)
    #expect(order(.int(2), .double(2)) == 0 && order(.bool(true), .int(1)) == 0)
    // 2^53 + 1 is not a double: rounding it would make it equal to 2^53.
    #expect(order(.int(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
    #expect(order(.int(.max), .double(9_223_372_036_854_775_808.0)) == -1)
    #expect(order(.int(-1), .int(1)) == -1 && order(.double(-0.0), .double(0)) == 0)
    #expect(order(.double(.nan), .int(1)) == nil && order(.int(1), .double(.nan)) == nil)
    #expect(RangeKey(.double(.nan))!.isNaN && !RangeKey(.int(0))!.isNaN)
  }

  @Test func anEntryIsHalfACacheLine() {
    #expect(MemoryLayout<RangeBounds>.size == 17)
    #expect(MemoryLayout<RangeIndex.Entry>.stride == 32)
    let id = WatchID(number: 9, slot: 12_345)
    let entry = RangeIndex.Entry(bounds: RangeBounds(lower: (.int(1), true), upper: nil)!, id: id)
    #expect(entry.slot == 12_345 && entry.id == id)
  }
}

/// The analysis of a watch's predicate into index keys: range conjuncts on
/// one attribute are one range, in any order and among other conjuncts.
@Suite("Watcher: range analysis")
struct RangeAnalysisTests {
  let person = WatcherFixtures.schema.layout(named: "Person")!

  func split(_ format: String) throws -> IndexedConjunct.Split {
    IndexedConjunct.split(try PredicateSyntax(parsing: format), entity: person)
  }

  /// The range as text: `[18, 65)`, `(-∞, 3]`.
  func describe(_ bounds: RangeBounds) -> String {
    func text(_ key: RangeKey?) -> String { key.map { "\($0.approximate)" } ?? "∞" }
    return (bounds.lower == nil ? "(-" : (bounds.lowerIncluded ? "[" : "(")) + text(bounds.lower) + ", "
      + text(bounds.upper) + (bounds.upper == nil || !bounds.upperIncluded ? ")" : "]")
  }

  func range(_ format: String) throws -> String? {
    guard case .range(let bounds)? = try split(format).kind else { return nil }
    return describe(bounds)
  }

  @Test func comparisonsOnOneKeyAreOneRange() throws {
    #expect(try range("age >= 18 AND age < 65") == "[18.0, 65.0)")
    #expect(try range("age < 65 AND age >= 18") == "[18.0, 65.0)")
    #expect(try range("65 > age AND 18 < age") == "(18.0, 65.0)")
    #expect(try range("age BETWEEN {18, 65}") == "[18.0, 65.0]")
    // The tighter bound wins; at equal bounds the excluded one.
    #expect(try range("age > 10 AND age >= 20 AND age <= 30 AND age < 30") == "[20.0, 30.0)")
    #expect(try range("age BETWEEN {0, 100} AND age > 0.5") == "(0.5, 100.0]")
    #expect(try range("age > 3") == "(3.0, ∞)")
    #expect(try range("age <= 3") == "(-∞, 3.0]")
  }

  @Test func otherConjunctsStayInTheResidual() throws {
    let parts = try split("name != 'x' AND age > 18 AND lastSeen > 5 AND age <= 65 AND name != 'y'")
    #expect(parts.kind.map { if case .range(let bounds) = $0 { describe(bounds) } else { "equal" } } == "(18.0, 65.0]")
    #expect(parts.residual?.description == "name != \"x\" AND lastSeen > 5 AND name != \"y\"")
    // Everything is the range: no residual.
    #expect(try split("age >= 1 AND age < 2").residual == nil)
  }

  @Test func intervalsUnderAnEqualityKeyAreOne() throws {
    let parts = try split("age < 65 AND city == 'Oslo' AND name != 'x' AND age >= 18")
    guard case .equal? = parts.kind else {
      Issue.record("not keyed by city")
      return
    }
    #expect(parts.secondary.map { describe($0.bounds) } == "[18.0, 65.0)")
    #expect(parts.residual?.description == "name != \"x\"")
  }

  /// A string range as text, its bounds' UTF-8 in hex: `[61, 6D)`.
  func textRange(_ format: String) throws -> String? {
    guard case .textRange(let bounds)? = try split(format).kind else { return nil }
    func text(_ bytes: [UInt8]?) -> String {
      bytes.map { $0.map { String($0, radix: 16, uppercase: true) }.joined(separator: " ") } ?? "∞"
    }
    return (bounds.lower == nil ? "(-" : (bounds.lowerIncluded ? "[" : "(")) + text(bounds.lower) + ", "
      + text(bounds.upper) + (bounds.upper == nil || !bounds.upperIncluded ? ")" : "]")
  }

  @Test func stringComparisonsOnOneKeyAreOneRange() throws {
    #expect(try textRange("name >= 'a' AND name < 'm'") == "[61, 6D)")
    #expect(try textRange("'m' > name AND 'a' <= name") == "[61, 6D)")
    #expect(try textRange("name BETWEEN {'a', 'm'}") == "[61, 6D]")
    #expect(try textRange("name > 'b'") == "(62, ∞)")
    #expect(try textRange("name <= 'b'") == "(-∞, 62]")
    // The tighter bound wins; at equal bounds the excluded one.
    #expect(try textRange("name > 'a' AND name >= 'a' AND name < 'z' AND name <= 'y'") == "(61, 79]")
    // BEGINSWITH is [prefix, prefix with its last byte raised).
    #expect(try textRange("name BEGINSWITH 'abc'") == "[61 62 63, 61 62 64)")
    #expect(try textRange("name BEGINSWITH 'ab' AND name < 'abc'") == "[61 62, 61 62 63)")
    // U+10FFFF is F4 8F BF BF: the bound ends in C0, past every string
    // that has the prefix and below every other.
    #expect(try textRange("name BEGINSWITH '\u{10FFFF}'") == "[F4 8F BF BF, F4 8F BF C0)")
    #expect(try textRange("name BEGINSWITH 'e\u{301}'") == "[65 CC 81, 65 CC 82)")
  }

  @Test func stringRangesThatAreNotIntervalsStayEvaluated() throws {
    // The empty prefix is never a prefix; options fold; a number against a
    // string is a type mismatch the evaluator reports.
    for format in [
      "name BEGINSWITH ''", "name BEGINSWITH[c] 'a'", "name >=[n] 'a'", "name > 5", "name BETWEEN {'a', 5}",
      "name ENDSWITH 'a'", "'a' BEGINSWITH name",
    ] {
      let parts = try split(format)
      #expect(parts.kind.map { _ in "indexed" } == nil, "\(format)")
      #expect(parts.residual != nil, "\(format)")
    }
    // Under an equality key a string range stays in the residual.
    let parts = try split("city == 'Oslo' AND name BEGINSWITH 'a'")
    #expect(parts.secondary == nil)
    #expect(parts.residual?.description == "name BEGINSWITH \"a\"")
  }
}
