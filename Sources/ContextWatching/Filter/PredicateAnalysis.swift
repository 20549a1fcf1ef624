import ObjectGraph
import PredicateDSL

/// What a watch's predicate reads, found once when the watch is added: the
/// keys of the watched entity it reads, the relationship paths whose far
/// ends it reads (so that changes there re-evaluate it), and the conjunct
/// the master filter can index.
struct PredicateAnalysis {
  /// Keys of the watched entity the predicate reads (attributes and the
  /// first relationship of each path). A change to one is never ignored.
  var readKeys: Set<String> = []
  /// Whether the predicate reads the object whole (`SELF`): then every key
  /// counts as read.
  var readsWholeObject = false
  /// Relationship paths whose far ends the predicate reads.
  var dependencies: Set<Dependency> = []
  /// The attribute slots of the watched entity the predicate reads, as bits;
  /// nil when it also reads anything else (a relationship, the object
  /// whole, a slot past 63). An update that changes none of these
  /// attributes matches alike before and after.
  var attributeMask: UInt64? = 0

  /// A path of relationships from the watched entity, and the keys read on
  /// the entity at its end (nil: any attribute, as when the related object
  /// is read whole).
  struct Dependency: Hashable {
    /// Relationship names from the watched entity outwards.
    var path: [String]
    var keys: Set<String>?
  }

  /// Whether `readKeys` is wanted (only to subtract them from ignored
  /// keys); without it a plain attribute read records nothing.
  private let collectsReadKeys: Bool

  /// An analysis that has read nothing yet: `visit(_:entity:schema:)` and
  /// `noteRead(attribute:of:)` add what is read.
  init(collectsReadKeys: Bool) {
    self.collectsReadKeys = collectsReadKeys
  }

  /// Records what `predicate`, on `entity`, reads.
  mutating func visit(_ predicate: PredicateSyntax, entity: EntityLayout, schema: ObjectSchema) {
    visit(predicate, entity: entity, schema: schema, inSubquery: false)
  }

  /// Records a read of the attribute in `slot` made outside the analysed
  /// predicate (by an indexed conjunct).
  mutating func noteRead(attribute slot: Int, of entity: EntityLayout) {
    if collectsReadKeys { readKeys.insert(entity.attributes[slot].name) }
    attributeMask = slot < 64 ? attributeMask.map { $0 | 1 << UInt64(slot) } : nil
  }

  private mutating func visit(
    _ predicate: PredicateSyntax, entity: EntityLayout, schema: ObjectSchema, inSubquery: Bool
  ) {
    switch predicate.kind {
    case .constant: break
    case .not(let operand): visit(operand, entity: entity, schema: schema, inSubquery: inSubquery)
    case .and(let operands), .or(let operands):
      for operand in operands { visit(operand, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .comparison(let comparison):
      visit(comparison.lhs, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(comparison.rhs, entity: entity, schema: schema, inSubquery: inSubquery)
    }
  }

  private mutating func visit(
    _ expression: ExpressionSyntax, entity: EntityLayout, schema: ObjectSchema, inSubquery: Bool
  ) {
    switch expression.kind {
    case .constant, .variable: break
    case .evaluatedObject:
      // Inside a SUBQUERY, SELF is still the watched object only at the top.
      if !inSubquery {
        readsWholeObject = true
        attributeMask = nil
      }
    case .keyPath(let path):
      // Inside a SUBQUERY's predicate, plain key paths read the element.
      guard !inSubquery else { break }
      if !path.utf8.contains(UInt8(ascii: ".")) {
        // One component: an attribute needs nothing unless read keys are
        // wanted; a relationship read whole is recorded below.
        if case .attribute(let slot)? = entity.slot(path) {
          if collectsReadKeys { readKeys.insert(path) }
          attributeMask = slot < 64 ? attributeMask.map { $0 | 1 << UInt64(slot) } : nil
          break
        }
        record([path], entity: entity, schema: schema)
      } else {
        record(path.keyPathComponents, entity: entity, schema: schema)
      }
    case .index(let base, let position):
      visit(base, entity: entity, schema: schema, inSubquery: inSubquery)
      // The subscript is read too: `{"a", "b"}[level]` depends on `level`.
      if case .at(let index) = position { visit(index, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .member(let base, _), .negation(let base), .cast(let base, _):
      visit(base, entity: entity, schema: schema, inSubquery: inSubquery)
    case .function(let function, let arguments):
      // `random()` and `now()` can differ between an update's two images
      // whatever changed: not a function of attributes alone.
      if !FunctionCall.isDeterministic(function) { attributeMask = nil }
      for argument in arguments { visit(argument, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .aggregate(let elements):
      for element in elements { visit(element, entity: entity, schema: schema, inSubquery: inSubquery) }
    case .arithmetic(_, let lhs, let rhs):
      visit(lhs, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(rhs, entity: entity, schema: schema, inSubquery: inSubquery)
    case .subquery(let collection, _, let predicate):
      visit(collection, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(predicate, entity: entity, schema: schema, inSubquery: true)
    case .ternary(let condition, let then, let otherwise):
      visit(condition, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(then, entity: entity, schema: schema, inSubquery: inSubquery)
      visit(otherwise, entity: entity, schema: schema, inSubquery: inSubquery)
    }
  }

  /// Records a key path from the watched entity.
  private mutating func record(_ components: [String], entity: EntityLayout, schema: ObjectSchema) {
    attributeMask = nil  // paths that follow relationships, or read one: not attributes alone
    var layout = entity
    var path: [String] = []
    for (position, component) in components.enumerated() {
      let isLast = position == components.count - 1
      switch layout.slot(component) {
      case .attribute:
        if path.isEmpty { readKeys.insert(component) } else { dependencies.insert(Dependency(path: path, keys: [component])) }
        return
      case .relationship(let slot):
        if path.isEmpty {
          readKeys.insert(component)
        } else {
          // A change of this relationship on the object at `path` changes
          // what the rest of the path reaches.
          dependencies.insert(Dependency(path: path, keys: [component]))
        }
        path.append(component)
        layout = schema.layouts[layout.relationships[slot].destinationIndex]
        if isLast {
          // The related objects themselves are read (compared with nil, or
          // as records): any attribute of theirs may matter.
          dependencies.insert(Dependency(path: path, keys: nil))
        }
      case nil:
        // A collection operator: `@count` of the last relationship was
        // recorded as that relationship; the others read the destinations'
        // values.
        if component != "@count", !path.isEmpty { dependencies.insert(Dependency(path: path, keys: nil)) }
        return
      }
    }
  }
}

/// The keys of an equality conjunct, each once: the first inline, so that
/// the common `key == constant` allocates no array (an empty array is a
/// shared singleton).
struct IndexKeys: RandomAccessCollection {
  private let first: IndexKey
  private let rest: [IndexKey]

  init(_ key: IndexKey) {
    first = key
    rest = []
  }

  /// nil for no keys.
  init?(_ keys: [IndexKey]) {
    guard let head = keys.first else { return nil }
    first = head
    rest = keys.count == 1 ? [] : Array(keys.dropFirst())
  }

  var startIndex: Int { 0 }
  var endIndex: Int { 1 + rest.count }
  subscript(position: Int) -> IndexKey { position == 0 ? first : rest[position - 1] }
}

/// The conjunct of a predicate that an index can serve, at the top level of
/// the predicate (alone, or in an AND), without options, on an attribute
/// of the watched entity: `key == constant` or `key IN {constants}` (a hash
/// index), else `key > c`, `>=`, `<`, `<=` or `key BETWEEN {a, b}` on a
/// number or date attribute (sorted bounds).
enum IndexedConjunct {
  enum Kind {
    /// The object's value must be one of these keys.
    case equal(IndexKeys)
    /// The object's value must lie within these bounds.
    case range(RangeBounds)

    /// Whether `value` satisfies the conjunct.
    func admits(_ value: FilterValue) -> Bool {
      switch self {
      case .equal(let keys): keys.contains(IndexKey(value))
      case .range(let bounds): bounds.contains(value)
      }
    }
  }

  /// A predicate split around its indexed conjunct: the attribute slot and
  /// the conjunct (nil and 0 when none can be indexed), a range on another
  /// attribute served under each key of an equality, and the rest of the
  /// predicate, which candidates must still match (nil when that is
  /// `TRUEPREDICATE`: the common `key == constant` needs no node, whose
  /// copies and checks cost more than the nil). A tuple, so that the
  /// caller takes it apart by moving its parts: a struct's fields would be
  /// copied out, and a copy of keys or bounds copies their values.
  typealias Split = (slot: Int, kind: Kind?, secondary: (slot: Int, bounds: RangeBounds)?, residual: PredicateSyntax?)

  /// Finds the conjunct an index can serve in a watch's predicate on
  /// `entity`, and what is left of the predicate without it.
  static func split(_ predicate: PredicateSyntax, entity: EntityLayout) -> Split {
    if case .comparison = predicate.kind {
      // The common case, without building a list of one.
      guard let parts = predicate.keyConstantComparison else { return (0, nil, nil, predicate) }
      if let (slot, keys) = equality(parts, entity: entity) {
        return (slot, .equal(keys), nil, nil)
      }
      if let (slot, bounds) = range(parts, entity: entity) {
        return (slot, .range(bounds), nil, nil)
      }
      return (0, nil, nil, predicate)
    }
    guard case .and = predicate.kind else {
      if case .constant(true) = predicate.kind { return (0, nil, nil, nil) }
      return (0, nil, nil, predicate)
    }
    // The conjuncts are read in place, by position: taking one out of the
    // AND here would copy it whole. An equality is the most selective:
    // prefer it to a range. (Plain loops: a lazy `compactMap(...).first`
    // runs each test twice.)
    let count = predicate.conjunctCount
    var found: (position: Int, slot: Int, kind: Kind)?
    for position in 0..<count {
      if let parts = predicate.keyConstantComparison(ofConjunct: position),
        let (slot, keys) = equality(parts, entity: entity)
      {
        found = (position, slot, .equal(keys))
        break
      }
    }
    if found == nil {
      for position in 0..<count {
        if let parts = predicate.keyConstantComparison(ofConjunct: position),
          let (slot, bounds) = range(parts, entity: entity)
        {
          found = (position, slot, .range(bounds))
          break
        }
      }
    }
    guard let (position, slot, kind) = found else { return (0, nil, nil, predicate) }
    // Under an equality, a range conjunct on another attribute narrows the
    // watches filed under each key (a composite index).
    var secondary: (slot: Int, bounds: RangeBounds)?
    var rangePosition = -1
    if case .equal = kind {
      for other in 0..<count where other != position {
        if let parts = predicate.keyConstantComparison(ofConjunct: other),
          let (rangeSlot, bounds) = range(parts, entity: entity)
        {
          secondary = (rangeSlot, bounds)
          rangePosition = other
          break
        }
      }
    }
    let restCount = count - (rangePosition < 0 ? 1 : 2)
    guard restCount > 0, case .and(let conjuncts) = predicate.kind else { return (slot, kind, secondary, nil) }
    let residual: PredicateSyntax?
    if restCount == 1 {
      let only = conjuncts.indices.first { $0 != position && $0 != rangePosition }!
      // `city == 'Oslo' AND TRUEPREDICATE` has nothing left either.
      if case .constant(true) = conjuncts[only].kind { residual = nil } else { residual = conjuncts[only] }
    } else {
      var rest: [PredicateSyntax] = []
      rest.reserveCapacity(restCount)
      for other in conjuncts.indices where other != position && other != rangePosition { rest.append(conjuncts[other]) }
      residual = PredicateSyntax(.and(rest), range: predicate.range)
    }
    return (slot, kind, secondary, residual)
  }
}

extension IndexedConjunct {
  /// Whether a constant has a type the attribute's values can equal, so
  /// that the comparison needs no compiling to be valid. An equality whose
  /// constants do not fit is not indexed: it stays in the residual, whose
  /// compiling reports the error with its position. (Ranges are only
  /// formed on numbers and dates, where they do.)
  private static func fits(_ value: FilterValue, _ type: AttributeType) -> Bool {
    switch value {
    case .null: true
    case .bool, .int, .double: type.isNumeric
    case .string: type == .string
    case .date: type == .date
    case .uuid: type == .uuid
    case .data: type == .data
    case .array, .set, .record: false
    }
  }
}

extension IndexedConjunct {
  /// The equality an index serves, from a conjunct's parts.
  private static func equality(
    _ parts: PredicateSyntax.KeyConstantComparison, entity: EntityLayout
  ) -> (Int, IndexKeys)? {
    // `30 == age` is `age == 30` (`IN` takes its constant on the right).
    guard !parts.constantFirst || parts.operator == .equal else { return nil }
    let (path, value, operation) = (parts.keyPath, parts.constant, parts.operator)
    guard case .attribute(let slot) = entity.slot(path) else { return nil }
    let type = entity.attributes[slot].type
    switch operation {
    case .equal:
      guard fits(value, type) else { return nil }
      return (slot, IndexKeys(IndexKey(value)))
    case .in:
      switch value {
      // Each key once: a watch is filed once under each of its keys. A nil
      // element never matches (`IN` is false for a nil value), so it is no key.
      case .array(let elements):
        guard elements.allSatisfy({ fits($0, type) }) else { return nil }
        return IndexKeys(unique(elements.filter { !$0.isNull }.map { IndexKey($0) })).map { (slot, $0) }
      case .set(let elements):
        guard elements.allSatisfy({ fits($0, type) }) else { return nil }
        return IndexKeys(unique(elements.filter { !$0.isNull }.map { IndexKey($0) })).map { (slot, $0) }
      default: return nil  // `key IN "text"` is a substring test
      }
    default:
      return nil
    }
  }

  private static func unique(_ keys: [IndexKey]) -> [IndexKey] {
    var seen: Set<IndexKey> = []
    return keys.filter { seen.insert($0).inserted }
  }

  /// The range an index serves, from a conjunct's parts.
  private static func range(
    _ parts: PredicateSyntax.KeyConstantComparison, entity: EntityLayout
  ) -> (Int, RangeBounds)? {
    let (path, value, written, constantFirst) = (parts.keyPath, parts.constant, parts.operator, parts.constantFirst)
    let operation: ComparisonSyntax.Operator
    if !constantFirst {
      operation = written
    } else {
      // `30 < age` is `age > 30`.
      let mirrored: ComparisonSyntax.Operator
      switch written {
      case .less: mirrored = .greater
      case .lessOrEqual: mirrored = .greaterOrEqual
      case .greater: mirrored = .less
      case .greaterOrEqual: mirrored = .lessOrEqual
      default: return nil
      }
      operation = mirrored
    }
    guard case .attribute(let slot) = entity.slot(path) else { return nil }
    let type = entity.attributes[slot].type
    func fits(_ bound: FilterValue) -> Bool {
      switch bound {
      case .int, .bool: type.isNumeric
      case .double(let number): type.isNumeric && !number.isNaN  // NaN has no place in an order
      case .date(let seconds): type == .date && !seconds.isNaN
      default: false
      }
    }
    switch operation {
    case .greater, .greaterOrEqual:
      guard fits(value) else { return nil }
      return RangeBounds(lower: (value, operation == .greaterOrEqual), upper: nil).map { (slot, $0) }
    case .less, .lessOrEqual:
      guard fits(value) else { return nil }
      return RangeBounds(lower: nil, upper: (value, operation == .lessOrEqual)).map { (slot, $0) }
    case .between:
      guard case .array(let bounds) = value, bounds.count == 2, fits(bounds[0]), fits(bounds[1]) else { return nil }
      return RangeBounds(lower: (bounds[0], true), upper: (bounds[1], true)).map { (slot, $0) }
    default:
      return nil
    }
  }
}

/// The bounds of a range conjunct; each is a constant, as the range index
/// compares it, and whether it is included. Trivial, so that the bounds
/// travel from the split to the index without reference counting, and
/// packed into 17 bytes (two words and a byte of flags), so that a range
/// index entry, bounds and watch identifier, is 32 bytes: half a cache line.
struct RangeBounds {
  private var lowerBits: UInt64 = 0
  private var upperBits: UInt64 = 0
  private var flags: Flags = []

  private struct Flags: OptionSet {
    let rawValue: UInt8
    static let hasLower = Flags(rawValue: 1)
    static let lowerIsDouble = Flags(rawValue: 2)
    static let lowerIncluded = Flags(rawValue: 4)
    static let hasUpper = Flags(rawValue: 8)
    static let upperIsDouble = Flags(rawValue: 16)
    static let upperIncluded = Flags(rawValue: 32)
  }

  /// Bounds from constants; nil when a constant has no order against
  /// numbers and dates (which `IndexedConjunct.range` never passes).
  init?(lower: (value: FilterValue, inclusive: Bool)?, upper: (value: FilterValue, inclusive: Bool)?) {
    if let lower {
      guard let key = RangeKey(lower.value) else { return nil }
      lowerBits = key.bits
      flags.insert(.hasLower)
      if key.isDouble { flags.insert(.lowerIsDouble) }
      if lower.inclusive { flags.insert(.lowerIncluded) }
    }
    if let upper {
      guard let key = RangeKey(upper.value) else { return nil }
      upperBits = key.bits
      flags.insert(.hasUpper)
      if key.isDouble { flags.insert(.upperIsDouble) }
      if upper.inclusive { flags.insert(.upperIncluded) }
    }
  }

  /// The lower bound, if any.
  var lower: RangeKey? {
    flags.contains(.hasLower) ? RangeKey(bits: lowerBits, isDouble: flags.contains(.lowerIsDouble)) : nil
  }

  /// The upper bound, if any.
  var upper: RangeKey? {
    flags.contains(.hasUpper) ? RangeKey(bits: upperBits, isDouble: flags.contains(.upperIsDouble)) : nil
  }

  /// The lower bound of bounds that have one (the entries of a range
  /// index's lists of lower bounds and intervals), without the test.
  var presentLower: RangeKey { RangeKey(bits: lowerBits, isDouble: flags.contains(.lowerIsDouble)) }

  /// The upper bound of bounds that have one, without the test.
  var presentUpper: RangeKey { RangeKey(bits: upperBits, isDouble: flags.contains(.upperIsDouble)) }

  /// Whether the lower bound is included (`>=`, `BETWEEN`).
  var lowerIncluded: Bool { flags.contains(.lowerIncluded) }
  /// Whether the upper bound is included (`<=`, `BETWEEN`).
  var upperIncluded: Bool { flags.contains(.upperIncluded) }

  /// Whether `value` lies within the bounds, as the predicate's
  /// comparisons see it: never for a value without an order (nil, NaN, a
  /// string).
  func contains(_ value: FilterValue) -> Bool {
    guard let key = RangeKey(value) else { return false }
    return contains(key)
  }

  /// Whether `key` lies within the bounds.
  @inline(__always)
  func contains(_ key: RangeKey) -> Bool {
    if let lower {
      guard let order = RangeKey.order(key, lower), order > 0 || (order == 0 && lowerIncluded) else { return false }
    }
    if let upper {
      guard let order = RangeKey.order(key, upper), order < 0 || (order == 0 && upperIncluded) else { return false }
    }
    return true
  }
}

/// A number or date as the range index compares it: exactly, integers as
/// integers, doubles and dates as doubles. A trivial value, so the index's
/// entries copy without reference counting.
struct RangeKey {
  /// The integer's or the double's bits.
  let bits: UInt64
  /// Whether `bits` are a double's.
  let isDouble: Bool

  init(bits: UInt64, isDouble: Bool) {
    self.bits = bits
    self.isDouble = isDouble
  }

  /// The key of a bound or an object's value; nil for values with no order
  /// against numbers and dates (nil, strings).
  init?(_ value: borrowing FilterValue) {
    switch value {
    case .int(let number): self.init(bits: UInt64(bitPattern: number), isDouble: false)
    case .bool(let flag): self.init(bits: flag ? 1 : 0, isDouble: false)
    case .double(let number): self.init(bits: number.bitPattern, isDouble: true)
    case .date(let seconds): self.init(bits: seconds.bitPattern, isDouble: true)
    default: return nil
    }
  }

  private var integer: Int64 { Int64(bitPattern: bits) }
  private var double: Double { Double(bitPattern: bits) }

  /// Whether the key is a NaN, which no bound admits (bounds never are).
  var isNaN: Bool { isDouble && double.isNaN }

  /// The key as a double (rounded for large integers): for choosing where
  /// to start a scan, never for deciding a match.
  var approximate: Double { isDouble ? double : Double(integer) }

  /// -1, 0 or 1, exactly, as the predicate's comparison orders numbers; nil
  /// when a NaN is involved.
  @inline(__always)
  static func order(_ lhs: RangeKey, _ rhs: RangeKey) -> Int? {
    switch (lhs.isDouble, rhs.isDouble) {
    case (false, false):
      let (a, b) = (lhs.integer, rhs.integer)
      return a < b ? -1 : (a == b ? 0 : 1)
    case (true, true):
      let (a, b) = (lhs.double, rhs.double)
      return a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
    case (false, true): return order(lhs.integer, rhs.double)
    case (true, false): return order(rhs.integer, lhs.double).map { -$0 }
    }
  }

  /// An integer against a double, exactly: rounding the integer to a
  /// double keeps the order except on a tie, which the integers decide.
  private static func order(_ integer: Int64, _ double: Double) -> Int? {
    guard !double.isNaN else { return nil }
    let rounded = Double(integer)
    if rounded < double { return -1 }
    if rounded > double { return 1 }
    if double >= 9_223_372_036_854_775_808.0 { return -1 }
    let whole = Int64(double)
    return integer < whole ? -1 : (integer == whole ? 0 : 1)
  }
}

/// Range watches of one attribute, by sorted bounds.
///
/// - Watches with only a lower bound (`key > c`) are sorted by it: a value
///   reaches exactly a prefix of them.
/// - Watches with only an upper bound (`key < c`) are sorted by it,
///   descending: again a prefix.
/// - Watches with both (`BETWEEN`) are grouped by the width of their
///   interval, in powers of two, and sorted by lower bound within a group:
///   an interval of width at most 2ᵏ that holds `v` starts at or after
///   `v - 2ᵏ`, so each group is scanned from a binary search to `v`. The
///   scan meets only intervals that start near the value, whatever their
///   number.
///
/// Insertion appends and the lists are sorted once per save, before
/// matching (`MasterFilter.prepareRanges`); removal leaves a stale entry
/// (recognised by its watch identifier) that the next sort after enough
/// removals drops. Both are O(1) when they happen. The small indexes under
/// the keys of a composite index are kept sorted and exact instead
/// (`insertInOrder`, `remove`).
///
/// A class: matching reaches an index through one reference, where a
/// struct read out of the lists that hold it would be copied, a retain for
/// each of its lists. Not final: the watches under a key of an equality
/// index (`MasterFilter.KeyedWatches`) are the range index of their first
/// ranged attribute. Nothing is overridden, so calls are direct.
class RangeIndex {
  /// 32 bytes: the bounds (17), the watch's slot in the 4 bytes after them
  /// (a copy of the identifier's, read without masking), and the watch.
  struct Entry {
    var bounds: RangeBounds
    private var slotBits: UInt32
    var id: WatchID

    init(bounds: RangeBounds, id: WatchID) {
      self.bounds = bounds
      slotBits = UInt32(truncatingIfNeeded: id.slot)
      self.id = id
    }

    var slot: Int { Int(slotBits) }

    var lower: RangeKey? { bounds.lower }
    /// The lower bound, in lists whose entries all have one.
    var presentLower: RangeKey { bounds.presentLower }
    /// The upper bound, in lists whose entries all have one.
    var presentUpper: RangeKey { bounds.presentUpper }
    var lowerIncluded: Bool { bounds.lowerIncluded }
    var upper: RangeKey? { bounds.upper }
    var upperIncluded: Bool { bounds.upperIncluded }

    @inline(__always)
    func admits(_ value: RangeKey) -> Bool { bounds.contains(value) }
  }

  // Touched only under the watcher's lock, one call at a time (no run-time
  // exclusivity checks).
  @exclusivity(unchecked) private var lowers: [Entry] = []
  @exclusivity(unchecked) private var uppers: [Entry] = []
  /// Intervals by the exponent of their width's power-of-two ceiling.
  @exclusivity(unchecked) private var intervals: [Int: [Entry]] = [:]
  @exclusivity(unchecked) private(set) var count = 0
  /// Removed watches whose entries are still in the lists (at most the
  /// watches a watcher holds, 2²⁴); 32 bits beside `isSorted`, so that the
  /// object of a key of an equality index (`MasterFilter.KeyedWatches`)
  /// is a word smaller.
  @exclusivity(unchecked) private var stale: Int32 = 0
  @exclusivity(unchecked) private var isSorted = true

  /// Files a watch; the lists are sorted again once per save, before
  /// matching (`MasterFilter.prepareRanges`).
  func insert(_ bounds: RangeBounds, id: WatchID) {
    append(bounds, id: id)
    isSorted = false
  }

  /// The list an entry went to.
  private enum List {
    case lowers, uppers
    case interval(widthClass: Int)
  }

  @discardableResult
  private func append(_ bounds: RangeBounds, id: WatchID) -> List {
    let entry = Entry(bounds: bounds, id: id)
    count += 1
    switch (entry.lower, entry.upper) {
    case (let lower?, let upper?):
      // Rounding large integers to doubles can shrink the width: add a few
      // units in the last place, so the class is never too small.
      let slack = 4 * max(abs(lower.approximate).ulp, abs(upper.approximate).ulp)
      let widthClass = Self.widthClass(upper.approximate - lower.approximate + slack)
      Self.append(entry, to: &intervals[widthClass, default: []])
      return .interval(widthClass: widthClass)
    case (.some, nil):
      Self.append(entry, to: &lowers)
      return .lowers
    default:
      Self.append(entry, to: &uppers)
      return .uppers
    }
  }

  /// Appends to a list, making room for four at its second entry, as
  /// `MasterFilter.SlotList` does: the small indexes under the keys of a
  /// composite index mostly hold one watch, and growing one at a time
  /// allocates at 2, 4 and 8.
  private static func append(_ entry: Entry, to list: inout [Entry]) {
    if list.count == 1 { list.reserveCapacity(4) }
    list.append(entry)
  }

  /// The exponent of the smallest power of two at least `width` (clamped;
  /// empty, negative and NaN widths go to the first class).
  private static func widthClass(_ width: Double) -> Int {
    guard width > 1 else { return 0 }
    guard width.isFinite else { return 1100 }
    return Int(width.exponent) + 1
  }

  func noteRemoval() {
    stale += 1
    count -= 1
  }

  /// Inserts in order, for the small indexes under each key of a composite
  /// index: they stay sorted, so matching never has to sort them. The new
  /// entry moves down its list to its place: O(n), not a sort.
  func insertInOrder(_ bounds: RangeBounds, id: WatchID) {
    guard isSorted else { return insert(bounds, id: id) }
    switch append(bounds, id: id) {
    case .lowers: Self.moveLastIntoPlace(&lowers, by: Self.byLower)
    case .uppers: Self.moveLastIntoPlace(&uppers, by: Self.byUpper)
    case .interval(let widthClass): Self.moveLastIntoPlace(&intervals[widthClass]!, by: Self.byLower)
    }
  }

  private static func byLower(_ a: Entry, _ b: Entry) -> Bool { (RangeKey.order(a.presentLower, b.presentLower) ?? 0) < 0 }
  /// Upper bounds descend: a value reaches a prefix of them.
  private static func byUpper(_ a: Entry, _ b: Entry) -> Bool { (RangeKey.order(a.presentUpper, b.presentUpper) ?? 0) > 0 }

  /// Moves a sorted list's last element down to its place.
  private static func moveLastIntoPlace(_ list: inout [Entry], by areInIncreasingOrder: (Entry, Entry) -> Bool) {
    var position = list.count - 1
    let entry = list[position]
    while position > 0, areInIncreasingOrder(entry, list[position - 1]) {
      list[position] = list[position - 1]
      position -= 1
    }
    list[position] = entry
  }

  /// Takes the entries of `other` (emptied) in place of this index's,
  /// which must have none: a key's next range index moving up into the
  /// key's object.
  final func takeEntries(of other: RangeIndex) {
    precondition(count == 0, "an index with entries cannot take others")
    swap(&lowers, &other.lowers)
    swap(&uppers, &other.uppers)
    swap(&intervals, &other.intervals)
    swap(&isSorted, &other.isSorted)
    swap(&stale, &other.stale)
    swap(&count, &other.count)
  }

  /// Removes a watch at once, for the small indexes under each key.
  func remove(_ id: WatchID) {
    count -= removeEntries { $0.id == id }
  }

  /// Removes the entries `shouldRemove` picks from every list; returns
  /// how many.
  private func removeEntries(where shouldRemove: (Entry) -> Bool) -> Int {
    let before = lowers.count + uppers.count + intervals.values.reduce(0) { $0 + $1.count }
    lowers.removeAll(where: shouldRemove)
    uppers.removeAll(where: shouldRemove)
    for key in Array(intervals.keys) {
      intervals[key]!.removeAll(where: shouldRemove)
      if intervals[key]!.isEmpty { intervals[key] = nil }
    }
    return before - (lowers.count + uppers.count + intervals.values.reduce(0) { $0 + $1.count })
  }

  /// Sorts after insertions and drops stale entries after many removals.
  func prepare(live entries: [WatchEntry?]) {
    if stale > 32 && stale > count {
      _ = removeEntries { entries[$0.slot]?.id != $0.id }
      stale = 0
    }
    sortIfNeeded()
  }

  private func sortIfNeeded() {
    guard !isSorted else { return }
    lowers.sort(by: Self.byLower)
    uppers.sort(by: Self.byUpper)
    for key in Array(intervals.keys) { intervals[key]!.sort(by: Self.byLower) }
    isSorted = true
  }

  /// The slots of the live watches whose bounds admit `value`. The lists
  /// must be sorted: `prepare` (through `MasterFilter.prepareRanges`, once
  /// per save) or `insertInOrder` keeps them so.
  func collect(_ key: RangeKey, live entries: [WatchEntry?]?, into slots: SlotBuffer) {
    guard !key.isNaN else { return }
    // Indexes kept exact (removal at once) pass no entries, and an index
    // without stale entries needs no check: every entry is live.
    let liveness = Liveness(entries: entries, checks: entries != nil && stale > 0)
    if !lowers.isEmpty { collectLowers(key, liveness, into: slots) }
    if !uppers.isEmpty { collectUppers(key, liveness, into: slots) }
    guard !intervals.isEmpty else { return }
    for (widthClass, group) in intervals {
      // Intervals of this class that hold the value start at or after
      // value - 2^class; start a little lower, to absorb rounding.
      let reach = widthClass >= 1100 ? Double.infinity : Double(sign: .plus, exponent: widthClass, significand: 1)
      // The slack covers rounding: relative to the reach, one unit, and a
      // few units in the last place of the value (large integers).
      let slack = reach * 1e-9 + 1 + 4 * abs(key.approximate).ulp
      let threshold = RangeKey(.double(key.approximate - reach - slack))!
      var low = 0
      var high = group.count
      while low < high {
        let middle = (low + high) / 2
        if (RangeKey.order(group[middle].presentLower, threshold) ?? 1) < 0 { low = middle + 1 } else { high = middle }
      }
      slots.reserve(group.count - low)
      for entry in group[low...] {
        guard let order = RangeKey.order(key, entry.presentLower) else { break }
        if order < 0 { break }
        guard entry.admits(key), liveness.admits(entry) else { continue }
        slots.appendReserved(entry.slot)
      }
    }
  }

  /// Whether an entry's watch is still there: checked only where removals
  /// are lazy and some are pending. A value, not a closure, so that the
  /// loops below inline the check.
  private struct Liveness {
    let entries: [WatchEntry?]?
    let checks: Bool

    @inline(__always)
    func admits(_ entry: Entry) -> Bool {
      !checks || entries.unsafelyUnwrapped[entry.slot]?.id == entry.id
    }
  }

  /// Lower bounds only, ascending: the value passes every bound below it
  /// (a prefix, found by binary search) and the bounds equal to it that
  /// include it.
  private func collectLowers(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    var end = Self.partition(lowers) { RangeKey.order($0.presentLower, key)! < 0 }
    slots.reserve(lowers.count)
    for entry in lowers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < lowers.count, RangeKey.order(lowers[end].presentLower, key) == 0 {
      if lowers[end].lowerIncluded && liveness.admits(lowers[end]) { slots.appendReserved(lowers[end].slot) }
      end += 1
    }
  }

  /// Upper bounds only, descending: the same from the other side.
  private func collectUppers(_ key: RangeKey, _ liveness: Liveness, into slots: SlotBuffer) {
    var end = Self.partition(uppers) { RangeKey.order($0.presentUpper, key)! > 0 }
    slots.reserve(uppers.count)
    for entry in uppers[..<end] where liveness.admits(entry) { slots.appendReserved(entry.slot) }
    while end < uppers.count, RangeKey.order(uppers[end].presentUpper, key) == 0 {
      if uppers[end].upperIncluded && liveness.admits(uppers[end]) { slots.appendReserved(uppers[end].slot) }
      end += 1
    }
  }

  /// The number of leading entries for which `isBefore` holds, in a list
  /// sorted so that those entries come first.
  @inline(__always)
  private static func partition(_ entries: [Entry], isBefore: (Entry) -> Bool) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if isBefore(entries[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
