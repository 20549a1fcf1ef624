public import PredicateDSL

/// What to fetch: an entity (and, by default, its sub-entities), an optional
/// predicate, a sort order, a limit and an offset.
///
/// ```swift
/// let request = try ObjectFetchRequest(
///   entity: "Person", predicate: "age > %d", arguments: [30],
///   sortedBy: [.descending("age"), .ascending("name")], limit: 10)
/// let oldest = try context.fetch(request)
/// ```
public struct ObjectFetchRequest: Sendable, Hashable {
  /// The entity's name.
  public var entityName: String
  /// The predicate objects must match, with its arguments substituted; nil
  /// matches every object.
  public var predicate: PredicateSyntax?
  /// The text the predicate was parsed from, for error positions.
  public var predicateSource: String?
  /// The sort order; objects that tie on every key keep identifier order.
  /// A key repeated after its first occurrence adds nothing to the order
  /// and is skipped, whatever its direction.
  public var sortKeys: [SortKey]
  /// The most objects to return; nil for no limit.
  public var limit: Int?
  /// How many matching objects (in sort order) to skip.
  public var offset: Int
  /// Whether objects of sub-entities are included.
  public var includesSubentities: Bool

  /// Creates a request with a predicate parsed from format text.
  ///
  /// - Throws: `PredicateParseError` when the text is not a predicate.
  public init(
    entity: String, predicate format: String, arguments: [FilterValue] = [], sortedBy sortKeys: [SortKey] = [],
    limit: Int? = nil, offset: Int = 0, includesSubentities: Bool = true
  ) throws(PredicateParseError) {
    self.init(
      entity: entity, predicate: try PredicateParser.parse(format, arguments: arguments), sortedBy: sortKeys,
      limit: limit, offset: offset, includesSubentities: includesSubentities)
    predicateSource = format
  }

  /// A request with a predicate parsed from format text, or none without
  /// text: what the `fetch(_:where:…)` forms build.
  init(
    entity: String, format: String?, arguments: [FilterValue], sortedBy sortKeys: [SortKey], limit: Int?,
    offset: Int
  ) throws(PredicateParseError) {
    if let format {
      try self.init(
        entity: entity, predicate: format, arguments: arguments, sortedBy: sortKeys, limit: limit, offset: offset)
    } else {
      self.init(entity: entity, sortedBy: sortKeys, limit: limit, offset: offset)
    }
  }

  /// Creates a request with a parsed predicate, or none.
  public init(
    entity: String, predicate: PredicateSyntax? = nil, sortedBy sortKeys: [SortKey] = [], limit: Int? = nil,
    offset: Int = 0, includesSubentities: Bool = true
  ) {
    entityName = entity
    self.predicate = predicate
    self.sortKeys = sortKeys
    self.limit = limit
    self.offset = offset
    self.includesSubentities = includesSubentities
  }

  /// One key of a sort order.
  public struct SortKey: Hashable, Sendable, CustomStringConvertible {
    /// An attribute of the fetched entity.
    public var key: String
    /// Whether smaller values come first. Nil sorts before every value in
    /// ascending order, after every value in descending order.
    public var ascending: Bool

    /// Creates a sort key.
    public init(_ key: String, ascending: Bool = true) {
      self.key = key
      self.ascending = ascending
    }

    /// Sorts by `key`, smallest first.
    public static func ascending(_ key: String) -> SortKey { SortKey(key, ascending: true) }
    /// Sorts by `key`, largest first.
    public static func descending(_ key: String) -> SortKey { SortKey(key, ascending: false) }

    /// `age ascending`.
    public var description: String { "\(key) \(ascending ? "ascending" : "descending")" }
  }
}

extension ObjectContext {
  /// The live objects that match a request: pending inserts included,
  /// pending deletes excluded, as Core Data fetches do.
  ///
  /// The predicate is compiled once per call and evaluated on each object
  /// of the entity (and its sub-entities); when its first conjunct is
  /// `key == constant`, `key IN {constants}` or `key < constant` (`<=`,
  /// `>`, `>=`, either way round), without options, on an attribute marked
  /// indexed, only the objects the attribute's index holds for the values
  /// it accepts are read, and only the other conjuncts are evaluated on
  /// them (comparisons of an attribute with a constant of its type
  /// directly on the values, without compiling them). Without sort keys,
  /// objects come in identifier (insertion) order.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity or sort key,
  ///   `PredicateCompileError` for a predicate that does not fit the entity,
  ///   `PredicateEvaluationError` where Apple's evaluation would raise.
  /// - Complexity: O(*n*) in the objects of the entity, plus O(*m* log *m*)
  ///   to sort *m* matches; with an indexed conjunct, O(*c* log *c*) in the
  ///   *c* objects it selects instead of O(*n*) (plus O(*k*) in the
  ///   attribute's *k* distinct values for a range). An index that would
  ///   select more than a quarter of the objects of several entities or
  ///   values is not used: the scan is cheaper.
  /// - Important: Confined to ``queue``.
  public func fetch(_ request: ObjectFetchRequest) throws -> [ManagedObject] {
    checkQueue()
    let plan = try FetchPlan(request, schema: schema)
    var matches: [ManagedObject] = []
    if let candidates = indexedCandidates(plan) {
      // Candidates come in identifier order: so do the matches.
      matches = try Self.matches(of: plan.candidateTest, among: candidates)
    } else if let filter = try plan.wholeFilter() {
      for index in plan.entityIndexes {
        members[index].prepareForReading()
        let candidates = members[index].slots
        // Matches are written straight into the result's storage: no
        // capacity or uniqueness check per match.
        let found = try [ManagedObject](writingInPlace: candidates.count) { buffer, count in
          for case let object? in candidates where try filter.evaluate(object) {
            (buffer.baseAddress! + count).initialize(to: object)
            count += 1
          }
        }
        if matches.isEmpty { matches = found } else { matches += found }
      }
    } else {
      for index in plan.entityIndexes {
        members[index].prepareForReading()
        matches.reserveCapacity(matches.count + members[index].count)
        for case let object? in members[index].slots { matches.append(object) }
      }
    }
    if !plan.sortSlots.isEmpty {
      try plan.sort(&matches)
    } else if plan.entityIndexes.count > 1 {
      matches.sort { $0.objectID < $1.objectID }
    }
    return plan.window(matches)
  }

  /// The objects an indexed conjunct of the plan's predicate selects, in
  /// identifier order (a superset of the matches: the plan's
  /// `candidateFilter` is still evaluated on each), or nil when the first
  /// conjunct cannot use an index.
  private func indexedCandidates(_ plan: FetchPlan) -> [ManagedObject]? {
    guard let (slot, selection) = plan.indexedConjunct else { return nil }
    var lists: [[ManagedObject]] = []
    for index in plan.entityIndexes {
      let found =
        switch selection {
        case .values(let values): members[index].members(slot: slot, values: values, into: &lists)
        case .range(let operation, let constant):
          members[index].members(slot: slot, where: operation, constant, into: &lists)
        }
      guard found else { return nil }
    }
    // Each list is in identifier order: one list is the answer as it is.
    if lists.count == 1 { return lists[0] }
    // Several are merged by sorting; past a quarter of the objects, the
    // scan costs less.
    let total = lists.reduce(0) { $0 + $1.count }
    guard total * 4 <= plan.entityIndexes.reduce(0, { $0 + members[$1].count }) else { return nil }
    var candidates = lists.flatMap { $0 }
    candidates.sort { $0.objectID < $1.objectID }
    return candidates
  }

  /// How many candidates of an index are loaded ahead of their
  /// evaluation: enough that the loops of loads keep as many misses in
  /// flight as the processor allows (batches of 16 left most of the
  /// latency exposed), few enough that the loaded lines (up to four a
  /// candidate, 32 KiB) are still in the first-level cache when evaluated.
  private static let candidateBatch = 128

  /// The candidates `test` accepts, in the candidates' order.
  private static func matches(of test: CandidateTest, among candidates: [ManagedObject]) throws -> [ManagedObject] {
    switch test {
    case .all: candidates
    case .comparisons(let comparisons):
      comparisons.comparisons.withUnsafeBufferPointer { comparisons in
        matches(among: candidates, touching: { AttributeComparisons.touch(comparisons, $0) }) {
          AttributeComparisons.evaluate(comparisons, on: $0)
        }
      }
    case .filter(let filter): try matches(among: candidates, touching: Self.touchValues) { try filter.evaluate($0) }
    }
  }

  /// The candidates `accepts` takes, in the candidates' order; `touch`
  /// reads what `accepts` will read of a candidate's values.
  ///
  /// An index's candidates lie scattered in memory (every hundredth object
  /// of a 1% value), so each costs two dependent cache misses, the object
  /// and then its values, which the processor hardly overlaps across the
  /// long evaluation of a candidate. The candidates are therefore taken in
  /// batches: first every object of the batch is loaded, then every value
  /// array, each in a short loop of plain loads whose misses overlap; then
  /// the batch is evaluated in cache. Matches are stored unretained and
  /// retained together at the end: a retain is an atomic operation, which
  /// would wait for every load in flight.
  @inline(__always)
  private static func matches(
    among candidates: [ManagedObject], touching touch: (ManagedObject) -> Int,
    where accepts: (ManagedObject) throws -> Bool
  ) rethrows -> [ManagedObject] {
    try candidates.withUnsafeBufferPointer { candidates in
      try [ManagedObject](writingInPlace: candidates.count) { buffer, count in
        let matches = UnsafeMutableRawPointer(buffer.baseAddress!)
        var loaded = 0
        var start = 0
        while start < candidates.count {
          let end = min(start + candidateBatch, candidates.count)
          for index in start..<end {
            loaded &+= Unmanaged.passUnretained(candidates[index])._withUnsafeGuaranteedRef(Self.touchObject)
          }
          for index in start..<end {
            loaded &+= Unmanaged.passUnretained(candidates[index])._withUnsafeGuaranteedRef(touch)
          }
          do {
            // The candidates array keeps each object alive: evaluated
            // without a retain and a release of its own.
            for index in start..<end
            where try Unmanaged.passUnretained(candidates[index])._withUnsafeGuaranteedRef(accepts) {
              matches.storeBytes(
                of: Unmanaged.passUnretained(candidates[index]),
                toByteOffset: count * MemoryLayout<ManagedObject>.stride, as: Unmanaged<ManagedObject>.self)
              count += 1
            }
          } catch {
            // Nothing stored is retained yet: the buffer is left empty, so
            // that none of it is released.
            count = 0
            throw error
          }
          start = end
        }
        // Keeps the loads: a sum of bytes is never negative.
        guard loaded >= 0 else { preconditionFailure("a sum of bytes cannot be negative") }
        for index in 0..<count { _ = Unmanaged.passUnretained(buffer[index]).retain() }
      }
    }
  }

  /// Reads the object's header (its reference count, for a match) and its
  /// `values` field, without reading the array it points to. The sum, only
  /// so that the loads are kept.
  @inline(__always)
  private static func touchObject(_ object: ManagedObject) -> Int {
    let header = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).load(as: UInt8.self)
    return Int(header) &+ (unsafeBitCast(object.values, to: Int.self) & 1)
  }

  /// Reads a byte of each cache line of the object's value array an
  /// evaluation is likely to touch: its count and its first and last
  /// values. The sum of the bytes, only so that the loads are kept.
  @inline(__always)
  private static func touchValues(_ object: ManagedObject) -> Int {
    object.values.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
      return Int(base.load(as: UInt8.self)) &+ Int(base.load(fromByteOffset: bytes.count - 1, as: UInt8.self))
    }
  }

  /// Fetches objects of `entity` matching a predicate.
  ///
  /// ```swift
  /// let adults = try context.fetch("Person", where: "age >= %d", 18, sortedBy: [.ascending("name")])
  /// ```
  ///
  /// - Throws: As ``fetch(_:)``, and `PredicateParseError` for bad text.
  /// - Important: Confined to ``queue``.
  public func fetch(
    _ entity: String, where format: String? = nil, _ arguments: FilterValue...,
    sortedBy sortKeys: [ObjectFetchRequest.SortKey] = [],
    limit: Int? = nil, offset: Int = 0
  ) throws -> [ManagedObject] {
    try fetch(
      ObjectFetchRequest(
        entity: entity, format: format, arguments: arguments, sortedBy: sortKeys, limit: limit, offset: offset))
  }

  /// How many live objects match a request, limit and offset applied.
  ///
  /// - Throws: As ``fetch(_:)``.
  /// - Important: Confined to ``queue``.
  public func count(_ request: ObjectFetchRequest) throws -> Int {
    checkQueue()
    let plan = try FetchPlan(request, schema: schema)
    var count = 0
    if let candidates = indexedCandidates(plan) {
      count = try Self.matches(of: plan.candidateTest, among: candidates).count
      count = max(0, count - request.offset)
      return request.limit.map { min($0, count) } ?? count
    }
    let filter = try plan.wholeFilter()
    for index in plan.entityIndexes {
      if let filter {
        for case let object? in members[index].slots where try filter.evaluate(object) { count += 1 }
      } else {
        count += members[index].count
      }
    }
    count = max(0, count - request.offset)
    return request.limit.map { min($0, count) } ?? count
  }
}

/// A request checked against the schema and compiled.
private struct FetchPlan {
  let request: ObjectFetchRequest
  let layout: EntityLayout
  let schema: ObjectSchema
  let entityIndexes: [Int]
  /// The whole predicate compiled, unless it is always true; compiled
  /// here when no index can serve the predicate, and by `wholeFilter()`
  /// otherwise, only when the index turns out not to be used.
  private let filter: CompiledFilter<ManagedObject>?
  let sortSlots: [(slot: Int, ascending: Bool)]
  /// The first conjunct, when it is `key == constant`,
  /// `key IN {constants}` or an ordering (`<`, `<=`, `>`, `>=`, either way
  /// round), without options, on an indexed attribute: its slot and what it
  /// selects. Only the first: an AND is evaluated left to right, so an
  /// object the first conjunct rejects is never evaluated further by a scan
  /// either, and the indexed fetch raises the same evaluation errors as the
  /// scan.
  let indexedConjunct: (slot: Int, selection: IndexSelection)?
  /// What an object the indexed conjunct selects must also match: the
  /// other conjuncts, evaluated left to right as the whole predicate
  /// would after a true first conjunct (nothing when there are none); the
  /// whole predicate when the index may select more than the conjunct
  /// matches (a constant converted inexactly). Meaningless without an
  /// indexed conjunct.
  let candidateTest: CandidateTest

  init(_ request: ObjectFetchRequest, schema: ObjectSchema) throws {
    guard let layout = schema.layout(named: request.entityName) else {
      throw ObjectGraphError(
        .unknownEntity,
        "unknown entity '\(request.entityName)' (entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    if let limit = request.limit, limit < 0 {
      throw ObjectGraphError(.invalidRequest, "a fetch's limit cannot be negative (\(limit))")
    }
    guard request.offset >= 0 else {
      throw ObjectGraphError(.invalidRequest, "a fetch's offset cannot be negative (\(request.offset))")
    }
    self.request = request
    self.layout = layout
    self.schema = schema
    entityIndexes = request.includesSubentities ? layout.kindIndexes : [layout.index]
    var sortSlots: [(slot: Int, ascending: Bool)] = []
    // A key repeated after its first occurrence adds nothing to the order
    // (objects tied on it stay tied), so each slot is compared once.
    var slotsSorted: Set<Int> = []
    for sortKey in request.sortKeys {
      guard case .attribute(let slot) = layout.slot(sortKey.key) else {
        throw ObjectGraphError(.invalidRequest, "\(layout.name) has no attribute '\(sortKey.key)' to sort by")
      }
      let type = layout.attributes[slot].type
      guard type != .uuid && type != .data else {
        throw ObjectGraphError(
          .invalidRequest, "\(layout.name).\(sortKey.key) is a \(type.rawValue) attribute, which has no order")
      }
      if slotsSorted.insert(slot).inserted { sortSlots.append((slot, sortKey.ascending)) }
    }
    self.sortSlots = sortSlots
    guard let predicate = request.predicate else {
      (filter, indexedConjunct, candidateTest) = (nil, nil, .all)
      return
    }
    guard let (conjunct, isExact) = Self.indexedConjunct(of: predicate, layout: layout) else {
      filter = try Self.compile(predicate, request, schema: schema, layout: layout)
      (indexedConjunct, candidateTest) = (nil, .all)
      return
    }
    if !isExact {
      filter = try Self.compile(predicate, request, schema: schema, layout: layout)
      // A predicate that is always true needs no index.
      indexedConjunct = filter == nil ? nil : conjunct
      candidateTest = filter.map { .filter($0) } ?? .all
      return
    }
    indexedConjunct = conjunct
    // An indexed conjunct always compiles (a key of the entity against
    // constants of its type, see `indexedConjunct(of:layout:)`), and so do
    // comparisons `AttributeComparisons` takes: when the rest is made of
    // those, nothing needs compiling. Otherwise the rest is compiled; if
    // it fails, the whole predicate is, so that the error is the one the
    // whole predicate raises.
    filter = nil
    if let comparisons = AttributeComparisons(predicate, from: 1, layout: layout) {
      candidateTest = comparisons.comparisons.isEmpty ? .all : .comparisons(comparisons)
    } else if let rest = predicate.droppingFirstConjunct {
      do {
        candidateTest = try Self.compile(rest, request, schema: schema, layout: layout).map { .filter($0) } ?? .all
      } catch {
        let whole = try Self.compile(predicate, request, schema: schema, layout: layout)
        candidateTest = whole.map { .filter($0) } ?? .all
      }
    } else {
      candidateTest = .all
    }
  }

  /// `predicate` compiled for the plan's entity; nil when it is always
  /// true.
  private static func compile(
    _ predicate: PredicateSyntax, _ request: ObjectFetchRequest, schema: ObjectSchema, layout: EntityLayout
  ) throws -> CompiledFilter<ManagedObject>? {
    let compiled = try CompiledFilter(
      predicate, source: request.predicateSource,
      resolver: ObjectKeyResolver<ManagedObject>(schema: schema, layout: layout))
    return compiled.constantResult == true ? nil : compiled
  }

  /// The whole predicate compiled, for a scan of every object; nil when
  /// there is none or it is always true.
  func wholeFilter() throws -> CompiledFilter<ManagedObject>? {
    if let filter { return filter }
    guard let predicate = request.predicate, indexedConjunct != nil else { return nil }
    return try Self.compile(predicate, request, schema: schema, layout: layout)
  }

  /// The first conjunct's slot and selection when an index can select its
  /// matches, and whether the index's buckets it selects hold exactly the
  /// objects the conjunct matches (every constant kept its value when
  /// coerced to the attribute's type; a range compares each value as the
  /// predicate does, so it is exact).
  private static func indexedConjunct(
    of predicate: PredicateSyntax, layout: EntityLayout
  ) -> (conjunct: (slot: Int, selection: IndexSelection), isExact: Bool)? {
    guard !layout.indexedSlots.isEmpty, let comparison = predicate.keyConstantComparison(ofConjunct: 0),
      case .attribute(let slot)? = layout.slot(comparison.keyPath), layout.attributes[slot].isIndexed
    else { return nil }
    let type = layout.attributes[slot].type
    let constants: [FilterValue]
    switch (comparison.operator, comparison.constant, comparison.constantFirst) {
    case (.equal, let constant, _): constants = [constant]
    case (.in, .array(let elements), false): constants = elements
    case (.in, .set(let elements), false): constants = Array(elements)
    case (.less, let constant, _), (.lessOrEqual, let constant, _), (.greater, let constant, _),
      (.greaterOrEqual, let constant, _):
      // Ordered types only, against a constant of the attribute's type
      // (or an integer for a double), as the predicate compares them.
      guard type.isOrdered, !constant.isNull, AttributeValues.coerce(constant, to: type) != nil else { return nil }
      return ((slot, .range(comparison.keyFirstOperator, constant)), true)
    default: return nil
    }
    // A constant of another type could still match through the
    // predicate's own rules: then the index is not used.
    let coerced = constants.compactMap { AttributeValues.coerce($0, to: type) }
    guard coerced.count == constants.count else { return nil }
    // An integer becomes a double: exact only when it converts back.
    let isExact = zip(constants, coerced).allSatisfy { constant, value in
      guard case .int(let integer) = constant, case .double(let double) = value else { return true }
      return Int64(exactly: double) == integer
    }
    return ((slot, .values(coerced)), isExact)
  }

  func sort(_ objects: inout [ManagedObject]) throws {
    let keys = sortSlots
    var failure: (any Error)?
    objects.sort { a, b in
      for (slot, ascending) in keys {
        let (x, y) = (a.values[slot], b.values[slot])
        switch (x.isNull, y.isNull) {
        case (true, true): continue
        case (true, false): return ascending
        case (false, true): return !ascending
        case (false, false): break
        }
        do {
          guard let order = try FilterValue.predicateOrder(x, y), order != 0 else { continue }
          return ascending ? order < 0 : order > 0
        } catch {
          failure = failure ?? error
          return false
        }
      }
      return a.objectID < b.objectID
    }
    if let failure { throw failure }
  }

  func window(_ objects: [ManagedObject]) -> [ManagedObject] {
    let start = min(request.offset, objects.count)
    let end = request.limit.map { start + min(objects.count - start, $0) } ?? objects.count
    return start == 0 && end == objects.count ? objects : Array(objects[start..<end])
  }
}

/// What each object an index selects is tested with.
private enum CandidateTest {
  /// Nothing: every candidate matches.
  case all
  /// Comparisons of attributes with constants, evaluated on the values.
  case comparisons(AttributeComparisons)
  /// A compiled predicate.
  case filter(CompiledFilter<ManagedObject>)
}

extension PredicateSyntax {
  /// The predicate without its first conjunct: the rest of an AND (one
  /// operand as itself), or nil when the predicate is a single conjunct.
  fileprivate var droppingFirstConjunct: PredicateSyntax? {
    guard case .and(let operands) = kind, operands.count > 1 else { return nil }
    return operands.count == 2 ? operands[1] : PredicateSyntax(.and(Array(operands.dropFirst())), range: range)
  }
}
