import ContextWatching
import ObjectGraph
import PredicateDSL
import TestSupport
import Testing

/// Range watches, in every form users write them, on integers, doubles,
/// dates and strings: what the watcher reports equals evaluating each
/// predicate directly, over random bounds of every width (1e-9 to 1e9, equal
/// bounds, empty ranges, infinities, NaN; strings of every kind of
/// scalar) and random values near and on them.
@Suite("Watcher: range watches agree with direct evaluation")
struct RangeIndexTests {
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Reading",
          attributes: [
            .init("name", .string), .init("zone", .string, isOptional: true),
            .init("count", .integer, isOptional: true), .init("level", .double, isOptional: true),
            .init("stamp", .date, isOptional: true), .init("label", .string, isOptional: true),
          ])
      ])
    } catch {
      fatalError("the range schema is invalid: \(error)")
    }
  }()

  /// Range forms; `K` stands for the attribute. Bounds in the order of
  /// their `%@`.
  static let forms = [
    "K BETWEEN {%@, %@}", "K >= %@ AND K < %@", "K > %@ AND K <= %@", "K < %@ AND K >= %@",
    "name != 'none' AND K <= %@ AND name != 'x' AND K > %@", "%@ < K AND %@ >= K", "K >= %@ AND K > %@",
    "K BETWEEN {%@, %@} AND K < %@", "K > %@", "K <= %@", "%@ > K", "K < %@ AND name ENDSWITH '1'",
  ]

  /// Records deliveries made on the saving thread.
  final class Deliveries: ContextWatcherDelegate, @unchecked Sendable {
    // Unchecked: written only by immediate delivery, on the saving thread,
    // and read by that thread after the save returns.
    var last: ContextChanges?

    func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) { last = changes }
  }

  /// A random bound of the attribute's kind: a centre of some magnitude
  /// moved by a width of some scale, as an integer or a double (a date for
  /// `stamp`), now and then an infinity or a NaN.
  static func bound(
    for attribute: String, near centre: Double, width: Double, using random: inout SeededGenerator
  ) -> FilterValue {
    let special = Int.random(in: 0..<40, using: &random)
    let number: Double
    switch special {
    case 0: number = .infinity
    case 1: number = -.infinity
    case 2: number = .nan
    default: number = centre + width
    }
    if attribute == "stamp" { return .date(secondsSinceReferenceDate: number) }
    if number.isFinite, abs(number) < 1e15, Bool.random(using: &random) { return .int(Int64(number.rounded())) }
    return .double(number)
  }

  /// A value near the bounds in `pool`: on one, a hair or a width beside
  /// it, or an extreme.
  static func value(
    for attribute: String, pool: [Double], using random: inout SeededGenerator
  ) -> FilterValue {
    var number = random.pick(pool)
    switch Int.random(in: 0..<12, using: &random) {
    case 0: number = number.nextUp
    case 1: number = number.nextDown
    case 2: number += random.pick([1e-9, -1e-9, 1e-5, -1e-5, 0.5, -0.5, 1, -1, 1e5, -1e5])
    case 3: number = random.pick([.infinity, -.infinity, .nan, 0, -0.0, 1e300, -1e300])
    case 4: return .null
    default: break
    }
    switch attribute {
    case "count":
      guard number.isFinite, abs(number) < 9e18 else { return .int(random.pick([.max, .min, 0])) }
      return .int(Int64(number.rounded()))
    case "stamp": return .date(secondsSinceReferenceDate: number)
    default: return .double(number)
    }
  }

  @Test(arguments: [0, 1, 2])
  func randomIntervalsAgreeWithTheirPredicates(round: Int) throws {
    let seed = SeededGenerator.seed(default: 0x1_7E57 + UInt64(round))
    var random = SeededGenerator(seed: seed)
    let context = ObjectContext(schema: Self.schema, name: "ranges", notificationCenter: nil)
    let deliveries = Deliveries()
    let watcher = ContextWatcher(context: context, target: .delegate(deliveries, on: .immediate))
    var watches: [(token: WatchToken, filter: CompiledFilter<ObjectSnapshot>)] = []
    var pool: [Double] = [0]
    for index in 0..<450 {
      // Saves between registrations: later watches go to an index that
      // matching has sorted, and wait in its pending entries (merged in at
      // the save after 300, still apart after 440).
      if [200, 300, 440].contains(index) {
        try context.performAndWait { context in
          try context.insert("Reading", values: ["name": "early", "level": .double(pool.last!)])
          try context.save()
        }
      }
      let attribute = random.pick(["count", "level", "stamp"])
      let scale = random.pick([1e-3, 1, 1e3, 1e9, 1e12])
      let centre = Double.random(in: -scale...scale, using: &random)
      let width = random.pick([0, 1e-9, 1e-5, 1, 1e5, 1e9]) * (Int.random(in: 0..<8, using: &random) == 0 ? -1 : 1)
      pool.append(centre)
      pool.append(centre + width)
      let form = random.pick(Self.forms).split(separator: "K", omittingEmptySubsequences: false).joined(
        separator: attribute)
      // A third under an equality key (a composite index), more than the
      // index scans before it builds its tree.
      let format = index % 3 == 0 ? "zone == 'north' AND " + form : form
      let holes = format.split(separator: "%@", omittingEmptySubsequences: false).count - 1
      var arguments: [FilterValue] = []
      for hole in 0..<holes {
        let step = hole == 0 ? 0 : width * Double(hole) / Double(holes - 1)
        arguments.append(Self.bound(for: attribute, near: centre, width: step, using: &random))
      }
      // The forms list lower and upper bounds in either order.
      if Bool.random(using: &random) { arguments.reverse() }
      let token = try watcher.watch("Reading", where: format, arguments: arguments)
      watches.append((token, try Self.schema.snapshotFilter(format, arguments: arguments, for: "Reading")))
    }
    // Round 1 cancels a few (stale entries, skipped while matching); round
    // 2 most (stale entries dropped, trees rebuilt).
    let cancelled = round == 0 ? 0 : (round == 1 ? 60 : 350)
    for _ in 0..<cancelled {
      watches.remove(at: Int.random(in: 0..<watches.count, using: &random)).token.cancel()
    }
    try context.performAndWait { context in
      for index in 0..<150 {
        try context.insert(
          "Reading",
          values: [
            "name": .string("R\(index)"), "zone": index % 2 == 0 ? "north" : "south",
            "count": Self.value(for: "count", pool: pool, using: &random),
            "level": Self.value(for: "level", pool: pool, using: &random),
            "stamp": Self.value(for: "stamp", pool: pool, using: &random),
          ])
      }
      try context.save()
    }
    let inserted = try #require(deliveries.last)
    var checked = try Self.compare(watches, context: context, with: inserted, seed: seed)

    // Updates: every object moved, matched before and after.
    deliveries.last = nil
    try context.performAndWait { context in
      for object in try context.objects(of: "Reading") {
        for attribute in ["count", "level", "stamp"] {
          try object.setValue(Self.value(for: attribute, pool: pool, using: &random), forKey: attribute)
        }
      }
      try context.save()
    }
    let updated = try #require(deliveries.last)
    // Built on each read: read once.
    let updateMatches = updated.matches
    for update in updated.updated + updated.entered + updated.exited {
      for (token, filter) in watches {
        let (was, now) = (try filter.evaluate(update.before), try filter.evaluate(update.after))
        let event: WatchEvent? = was && now ? .updated : (now ? .entered : (was ? .exited : nil))
        let reported = updateMatches[update.objectID]?.first { $0.watch == token.id }?.event
        #expect(reported == event, "watch \(token.id), seed \(seed)")
        if event != nil { checked += 1 }
      }
    }
    #expect(checked > 2_000, "\(checked) matches, seed \(seed)")
    withExtendedLifetime(watches) {}
  }

  /// Compares what a save reported for every object with each watch's
  /// predicate evaluated directly; returns how many matches were compared.
  static func compare(
    _ watches: [(token: WatchToken, filter: CompiledFilter<ObjectSnapshot>)], context: ObjectContext,
    with changes: ContextChanges, seed: UInt64
  ) throws -> Int {
    // The objects of the last save (not those saved between registrations).
    let everyone = try context.performAndWait { try $0.objects(of: "Reading").map { $0.snapshot() } }.filter {
      $0["name"] != "early"
    }
    var checked = 0
    // Built on each read: read once.
    let matches = changes.matches
    for snapshot in everyone {
      let expected = try watches.filter { try $0.filter.evaluate(snapshot) }.map(\.token.id).sorted()
      let actual = (matches[snapshot.objectID]?.map(\.watch) ?? []).sorted()
      #expect(
        actual == expected, "count \(snapshot["count"] ?? .null), level \(snapshot["level"] ?? .null), seed \(seed)")
      checked += expected.count
    }
    return checked
  }

  /// String range forms; `K` stands for `label`.
  static let stringForms = [
    "K BETWEEN {%@, %@}", "K >= %@ AND K < %@", "K > %@ AND K <= %@", "%@ < K AND %@ >= K", "K > %@", "K <= %@",
    "%@ > K", "K BEGINSWITH %@", "K BEGINSWITH %@ AND K < %@", "K >= %@ AND name != 'x' AND K BEGINSWITH %@",
    "K BEGINSWITH %@ AND K BEGINSWITH %@", "zone == 'north' AND K BEGINSWITH %@", "K BEGINSWITH[c] %@",
    "K <[n] %@", "K < %@ AND name ENDSWITH '1'",
  ]

  /// Pieces strings are made of: ASCII on both sides of letters' case,
  /// precomposed and combining accents (`é` and `e` + U+0301 compare
  /// apart), the ends of each UTF-8 length, surrogates' neighbours, emoji
  /// and U+10FFFF, the last scalar; NUL, which pads the index's 8-byte
  /// heads, and a run longer than a head.
  static let pieces = [
    "\u{0}", "abcdefghij", "a", "b", "m", "z", "A", "Z", "0", "~", "\u{7F}", "\u{80}", "é", "e\u{301}", "\u{301}",
    "\u{7FF}", "\u{800}",
    "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "😀", "👩‍👩‍👧", "\u{10FFFE}", "\u{10FFFF}",
  ]

  /// A random string of zero to three pieces.
  static func text(using random: inout SeededGenerator) -> String {
    (0..<Int.random(in: 0...3, using: &random)).map { _ in random.pick(pieces) }.joined()
  }

  /// A value near the bounds in `pool`: one of them, one cut short or
  /// extended, a new string, or nil.
  static func textValue(pool: [String], using random: inout SeededGenerator) -> FilterValue {
    let bound = random.pick(pool)
    switch Int.random(in: 0..<8, using: &random) {
    case 0: return .null
    case 1: return .string(text(using: &random))
    case 2: return .string(String(bound.unicodeScalars.dropLast().map(Character.init)))
    case 3, 4: return .string(bound + random.pick(pieces))
    default: return .string(bound)
    }
  }

  @Test(arguments: [0, 1, 2])
  func randomStringIntervalsAgreeWithTheirPredicates(round: Int) throws {
    let seed = SeededGenerator.seed(default: 0x5_7E57 + UInt64(round))
    var random = SeededGenerator(seed: seed)
    let context = ObjectContext(schema: Self.schema, name: "strings", notificationCenter: nil)
    let deliveries = Deliveries()
    let watcher = ContextWatcher(context: context, target: .delegate(deliveries, on: .immediate))
    var watches: [(token: WatchToken, filter: CompiledFilter<ObjectSnapshot>)] = []
    var pool: [String] = [""]
    // Registered in batches with saves between them, so that later watches
    // go to an index that already holds some: its pending entries, merged
    // in after the third batch, apart after the second and fourth.
    for batch in 0..<4 {
      for _ in 0..<(batch == 0 ? 300 : 12) {
        let format = random.pick(Self.stringForms).split(separator: "K", omittingEmptySubsequences: false).joined(
          separator: "label")
        let holes = format.split(separator: "%@", omittingEmptySubsequences: false).count - 1
        var arguments: [FilterValue] = []
        for _ in 0..<holes {
          // A new string, or a pool string cut or extended: bounds that
          // share prefixes.
          let bound =
            Bool.random(using: &random)
            ? Self.text(using: &random)
            : random.pick(pool) + (Bool.random(using: &random) ? random.pick(Self.pieces) : "")
          pool.append(bound)
          arguments.append(.string(bound))
        }
        arguments.sort { a, b in
          guard case .string(let x) = a, case .string(let y) = b else { return false }
          return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        }
        // Mostly in order (a lower bound first), now and then reversed: empty.
        if Int.random(in: 0..<4, using: &random) == 0 { arguments.reverse() }
        let token = try watcher.watch("Reading", where: format, arguments: arguments)
        watches.append((token, try Self.schema.snapshotFilter(format, arguments: arguments, for: "Reading")))
      }
      // Cancelled between batches: stale entries, dropped in round 2.
      for _ in 0..<(round == 0 ? 0 : (round == 1 ? 10 : 80)) where watches.count > 1 {
        watches.remove(at: Int.random(in: 0..<watches.count, using: &random)).token.cancel()
      }
      try context.performAndWait { context in
        for index in 0..<60 {
          try context.insert(
            "Reading",
            values: [
              "name": .string("R\(batch)-\(index)"), "zone": index % 2 == 0 ? "north" : "south",
              "label": Self.textValue(pool: pool, using: &random),
            ])
        }
        try context.save()
      }
    }
    // Every object moved: matched before and after.
    deliveries.last = nil
    try context.performAndWait { context in
      for object in try context.objects(of: "Reading") {
        try object.setValue(Self.textValue(pool: pool, using: &random), forKey: "label")
      }
      try context.save()
    }
    let updated = try #require(deliveries.last)
    let updateMatches = updated.matches
    var checked = 0
    for update in updated.updated + updated.entered + updated.exited {
      for (token, filter) in watches {
        let (was, now) = (try filter.evaluate(update.before), try filter.evaluate(update.after))
        let event: WatchEvent? = was && now ? .updated : (now ? .entered : (was ? .exited : nil))
        let reported = updateMatches[update.objectID]?.first { $0.watch == token.id }?.event
        #expect(
          reported == event,
          "watch \(token.id), \(update.before["label"] ?? .null) → \(update.after["label"] ?? .null), seed \(seed)")
        if event != nil { checked += 1 }
      }
    }
    #expect(checked > 1_000, "\(checked) matches, seed \(seed)")
    withExtendedLifetime(watches) {}
  }

  /// Strings compare by code units: a precomposed `é` and `e` with a
  /// combining accent are different bounds, prefixes and constants, in the
  /// index and in the predicates that watches share.
  @Test func canonicallyEquivalentStringsStayApart() throws {
    let context = ObjectContext(schema: Self.schema, name: "accents", notificationCenter: nil)
    let deliveries = Deliveries()
    let watcher = ContextWatcher(context: context, target: .delegate(deliveries, on: .immediate))
    let formats = [
      "label BEGINSWITH 'é'", "label BEGINSWITH 'e\u{301}'", "label <[n] 'é'", "label <[n] 'e\u{301}'",
      "label BETWEEN {'é', 'é\u{10FFFF}'}", "label BEGINSWITH '\u{10FFFF}'", "label BEGINSWITH ''",
    ]
    let tokens = try formats.map { try watcher.watch("Reading", where: $0) }
    let labels = ["éa", "e\u{301}a", "f", "é\u{10FFFF}", "\u{10FFFF}\u{10FFFF}", "\u{10FFFF}", ""]
    try context.performAndWait { context in
      for label in labels { try context.insert("Reading", values: ["name": .string(label), "label": .string(label)]) }
      try context.save()
    }
    let changes = try #require(deliveries.last)
    // Keyed by UTF-8: Swift's own string keys equate canonical equivalents.
    var matched: [[UInt8]: [Int]] = [:]
    for attributed in changes.attribution {
      let label = context.performAndWait { context in context.object(with: attributed.objectID)?["label"] }
      let string: String? = if case .string(let text)? = label { text } else { nil }
      let text = try #require(string, "an object without a string label: \(String(describing: label))")
      matched[Array(text.utf8)] = attributed.matches.compactMap { match in tokens.firstIndex { $0.id == match.watch } }
        .sorted()
    }
    // `e` (65) sorts below `é` (C3 A9); U+10FFFF above both.
    #expect(matched[Array("éa".utf8)] == [0, 4])
    #expect(matched[Array("e\u{301}a".utf8)] == [1, 2])
    #expect(matched[Array("f".utf8)] == [2])
    #expect(matched[Array("é\u{10FFFF}".utf8)] == [0, 4])
    #expect(matched[Array("\u{10FFFF}\u{10FFFF}".utf8)] == [5])
    #expect(matched[Array("\u{10FFFF}".utf8)] == [5])
    #expect(matched[Array("".utf8)] == [2, 3])
  }

  /// Narrow ranges packed tightly (widths 1e-9 to 1e9, many to a
  /// unit): each value reaches exactly its own.
  /// Integer bounds and values beyond 2⁵³, where doubles are further apart
  /// than integers (256 apart at 2⁶⁰, 1,024 near `Int64.max`): the index's
  /// tree rules runs out on bounds rounded to doubles, its leaves decide on
  /// the exact values, so integers one apart, and the doubles beside them,
  /// stay apart.
  @Test(arguments: [Int64(1) << 60, Int64.max - 2_000])
  func integersBeyondDoublePrecisionStayExact(base: Int64) throws {
    var random = SeededGenerator(seed: SeededGenerator.seed(default: 0x253))
    let context = ObjectContext(schema: Self.schema, name: "large", notificationCenter: nil)
    let deliveries = Deliveries()
    let watcher = ContextWatcher(context: context, target: .delegate(deliveries, on: .immediate))
    let forms = ["count BETWEEN {%@, %@}", "count > %@ AND count < %@", "count >= %@ AND count <= %@"]
    /// An integer near `base`, clamped to `Int64`.
    func near(_ offset: Int64) -> Int64 {
      let (sum, overflow) = base.addingReportingOverflow(offset)
      return overflow ? .max : sum
    }
    var watches: [(token: WatchToken, filter: CompiledFilter<ObjectSnapshot>)] = []
    // More ranges than the index scans: it builds its tree.
    for _ in 0..<64 {
      let low = near(Int64.random(in: -1_500...1_500, using: &random))
      let high = near(Int64(low - base) + Int64.random(in: 0...40, using: &random))
      // Now and then a bound as the double nearest it.
      let bounds: [FilterValue] = [low, high].map {
        Int.random(in: 0..<4, using: &random) == 0 ? .double(Double($0)) : .int($0)
      }
      let format = random.pick(forms)
      let token = try watcher.watch("Reading", where: format, arguments: bounds)
      watches.append((token, try Self.schema.snapshotFilter(format, arguments: bounds, for: "Reading")))
    }
    try context.performAndWait { context in
      for index in 0..<300 {
        let count = near(Int64.random(in: -1_600...1_600, using: &random))
        try context.insert(
          "Reading", values: ["name": .string("R\(index)"), "count": index % 50 == 0 ? .int(.max) : .int(count)])
      }
      try context.save()
    }
    let changes = try #require(deliveries.last)
    let checked = try Self.compare(watches, context: context, with: changes, seed: 0x253)
    #expect(checked > 20, "\(checked) matches")
    withExtendedLifetime(watches) {}
  }

  @Test(arguments: [1e-9, 1e-5, 1.0, 1e5, 1e9])
  func packedIntervalsOfOneWidthMatchTheirOwnValues(width: Double) throws {
    let context = ObjectContext(schema: Self.schema, name: "packed", notificationCenter: nil)
    let deliveries = Deliveries()
    let watcher = ContextWatcher(context: context, target: .delegate(deliveries, on: .immediate))
    var tokens: [WatchToken] = []
    for index in 0..<200 {
      let low = 1_000 * width + Double(index) * width * 2
      let format = index % 2 == 0 ? "level BETWEEN {%@, %@}" : "level < %@ AND zone == nil AND level >= %@"
      let arguments: [FilterValue] =
        index % 2 == 0 ? [.double(low), .double(low + width)] : [.double(low + width), .double(low)]
      tokens.append(try watcher.watch("Reading", where: format, arguments: arguments))
    }
    try context.performAndWait { context in
      for index in 0..<200 {
        let low = 1_000 * width + Double(index) * width * 2
        try context.insert("Reading", values: ["name": .string("R\(index)"), "level": .double(low + width / 2)])
      }
      try context.save()
    }
    let changes = try #require(deliveries.last)
    let matched = changes.attribution.map { $0.matches.map(\.watch) }
    #expect(matched == tokens.map { [$0.id] })
  }
}
