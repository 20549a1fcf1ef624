import ObjectGraph
import PredicateDSL

/// Every watch of a watcher, combined into one filter: ZSContextWatcher's
/// master predicate (each watch's predicate with its entity guard, all ORed)
/// compiled and indexed.
///
/// - **Entity first.** Each entity has a bucket of the watches that apply to
///   its objects (watches on it and on its ancestors), so an object meets
///   only the watches of its entity.
/// - **Indexes.** A watch whose predicate has a top-level `key == constant` or
///   `key IN {constants}` conjunct is filed under each constant in a hash
///   index of its bucket; an object reaches it only when the object's value
///   of that key is one of them. Failing that, a `key > c` (`>=`, `<`, `<=`,
///   `BETWEEN`) conjunct on a number or date files it in a range index of
///   sorted bounds. The other watches of the bucket are always candidates.
/// - **Instances.** A watch whose options name its objects
///   (`WatchOptions.objectIDs`) is filed under each of them instead, in a
///   hash table from object to watches: an object meets only the watches
///   that name it, then their indexed conjuncts and residuals. 10,000 watches
///   each of one object cost one lookup per changed object, not 10,000
///   tests.
/// - **Shared predicates.** The predicate a candidate must still match (the
///   residual, without the indexed conjunct) is compiled once per distinct
///   predicate and entity, and evaluated once per object image however many
///   watches share it.
///
/// Adding and removing a watch touch only its own entries: O(kinds × keys).
///
/// A watch of several entities (or of every entity) is a group of entries,
/// one per entity named, each validated and compiled for its entity: the
/// first (the group's head) holds the watch's identifier, the others
/// (members) have slots of their own, identifiers of their own within the
/// filter (its number, their slots), and report the head's identifier.
///
/// A value reached only in place, under the watcher's lock: its memo, marks
/// and scratch lists are objects that copies would share, so it is never
/// copied while in use.
struct MasterFilter {
  let schema: ObjectSchema
  private(set) var entries: [WatchEntry?] = []
  /// What the hot path reads of each watch slot, side by side.
  private(set) var slotInfo: [SlotInfo] = []
  private var freeSlots: [Int] = []
  /// The number of the next watch (see `WatchID`).
  private var nextNumber: UInt64 = 1
  /// How many watches have a handler of their own (a `WatchRoute`): with
  /// none, classifying a save routes nothing.
  private(set) var routedCount = 0
  /// How many slots hold members of groups (not watches of their own).
  private var memberCount = 0
  private var buckets: [Bucket]
  private var predicates: [SharedPredicate?] = []
  private var freePredicates: [Int] = []
  private var predicateIndex: [PredicateKey: Int] = [:]
  /// Per entity, the shared slot of the residual TRUEPREDICATE (the residual
  /// of every watch that is one indexed comparison), found without hashing
  /// a predicate.
  private var truePredicateSlots: [Int?]
  /// Per entity, the watches that read through relationships into it.
  private var dependents: [[Int: Set<Int>]]
  private let memo = Memo()
  /// The compiled shared predicates by slot, for the hot path (a freed slot
  /// holds a constant-false filter until reused).
  private var filters: [FilterEvaluator<WatchImage>] = []
  private let unusedFilter: FilterEvaluator<WatchImage>?
  /// Scratch marks per watch slot, for classifying updates.
  private let marks = Marks()
  /// Per entity, the attribute slots (below 64) some watch of its bucket
  /// reads, as bits: an update that changes none of them matches the same
  /// watches before and after. Beside the buckets, so that reading one
  /// copies nothing.
  private var readMasks: [UInt64]
  /// Per entity, the watches of its bucket that read more than attributes
  /// (relationships, the object whole): with any, both images of every
  /// update are matched.
  private var broadReaders: [Int]
  /// Per entity, how many watches of its bucket read each of the first 64
  /// attribute slots (for keeping `readMasks` as watches come and go).
  private var readerCounts: [[Int]]
  /// Scratch list of range candidates.
  private let rangeCandidates = SlotBuffer()
  /// Scratch lists of the watches an object's images matched (an update's
  /// before and after; an inserted or deleted object's one image).
  let scratch = (was: SlotBuffer(), now: SlotBuffer())
  /// The collector's lists, reused save after save.
  let collected = Collector.Storage()

  /// The watches applying to objects of one entity.
  struct Bucket {
    var unindexed = SlotList()
    /// The watches that name their objects (an instance filter), filed
    /// under each object they name and nowhere else in the bucket.
    var instances: [InstanceKey: SlotList] = [:]
    /// Per indexed attribute slot, the watches filed under each key. An
    /// entity has few indexed attributes: a short array, walked for every
    /// object, costs less than a dictionary.
    var indexes: [(attribute: Int, keys: KeyTable)] = []
    /// Per attribute slot, the watches indexed by range.
    var ranges: [Int: RangeIndex] = [:]
    var count = 0

    /// The position of the index of `attribute`, added empty if need be.
    mutating func indexPosition(of attribute: Int) -> Int {
      if let position = indexes.firstIndex(where: { $0.attribute == attribute }) { return position }
      indexes.append((attribute, KeyTable()))
      return indexes.count - 1
    }
  }

  /// The watches filed under one key of an equality index: those whose
  /// predicate has nothing more to index, and those narrowed by a range on
  /// another attribute (a composite index: `city == 'Oslo' AND age > 30`
  /// reaches an Oslo object only if its age passes the bound). A class, so
  /// that a lookup hands out one reference instead of copying the lists.
  ///
  /// It is itself the range index of the first attribute its watches are
  /// narrowed by (`firstRangeAttribute`): registering and matching reach
  /// those bounds through the key's object, one memory access and one
  /// allocation fewer than a separate index, which counts when the key
  /// tables are too large for the caches. Further attributes have their
  /// own indexes (`moreRanges`).
  final class KeyedWatches: RangeIndex {
    /// The key these watches are filed under.
    let key: IndexKey
    /// The watches of another key with the same fingerprint (a hash
    /// collision, or an exact fingerprint of another kind).
    // Touched only under the watcher's lock (no run-time exclusivity checks).
    @exclusivity(unchecked) var collision: KeyedWatches?
    @exclusivity(unchecked) var plain = SlotList()
    /// Range indexes of further attributes; an entity has few attributes.
    @exclusivity(unchecked) private(set) var moreRanges: [(attribute: Int, index: RangeIndex)] = []
    /// The attribute slot of the bounds this object indexes as a range
    /// index; -1 while no watch under the key has a range. (This and the
    /// next are 32 bits, side by side: a key's object is a word smaller.)
    @exclusivity(unchecked) private var firstRangeSlot: Int32 = -1
    /// How many watches in the range indexes have more to their predicate
    /// than the key and the range (a residual to evaluate). With none, the
    /// range indexes' candidates are matches, collected without a test.
    @exclusivity(unchecked) private var rangedWithResidualCount: Int32 = 0

    /// The attribute slot of the bounds this object indexes, or -1.
    var firstRangeAttribute: Int { Int(firstRangeSlot) }
    /// Whether some watch in the range indexes has a residual.
    var hasRangedWithResidual: Bool { rangedWithResidualCount != 0 }

    init(key: IndexKey) {
      self.key = key
      super.init()
    }

    var isEmpty: Bool { plain.isEmpty && firstRangeSlot < 0 }

    /// Files a watch narrowed by a range on `attribute`; `hasResidual` tells
    /// whether its predicate has more to evaluate.
    func insert(_ bounds: RangeBounds, on attribute: Int, id: WatchID, hasResidual: Bool) {
      if hasResidual { rangedWithResidualCount += 1 }
      if firstRangeSlot == attribute {
        insertInOrder(bounds, id: id)
      } else if firstRangeSlot < 0 {
        firstRangeSlot = Int32(attribute)
        insertInOrder(bounds, id: id)
      } else if let position = moreRanges.firstIndex(where: { $0.attribute == attribute }) {
        moreRanges[position].index.insertInOrder(bounds, id: id)
      } else {
        let index = RangeIndex()
        index.insertInOrder(bounds, id: id)
        moreRanges.append((attribute, index))
      }
    }

    func remove(_ id: WatchID, on attribute: Int, hasResidual: Bool) {
      if hasResidual { rangedWithResidualCount -= 1 }
      if firstRangeAttribute == attribute {
        remove(id)
        guard count == 0 else { return }
        // The next index, if any, moves up: `firstRangeAttribute` is -1
        // only when no range index is left.
        if moreRanges.isEmpty {
          firstRangeSlot = -1
        } else {
          let (next, index) = moreRanges.removeFirst()
          takeEntries(of: index)
          firstRangeSlot = Int32(next)
        }
      } else if let position = moreRanges.firstIndex(where: { $0.attribute == attribute }) {
        moreRanges[position].index.remove(id)
        if moreRanges[position].index.count == 0 { moreRanges.remove(at: position) }
      }
    }
  }

  /// Watch slots in an array, for fast iteration, with O(1) removal: a
  /// short list (most index keys hold one watch) is searched on removal; a
  /// long one keeps a map of positions.
  struct SlotList {
    private(set) var slots: [Int] = []
    private var positions: [Int: Int]?

    private static let mapThreshold = 16

    var isEmpty: Bool { slots.isEmpty }

    mutating func insert(_ slot: Int) {
      if positions == nil && slots.count >= Self.mapThreshold {
        positions = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1, $0) })
      }
      if positions != nil {
        guard positions![slot] == nil else { return }
        positions![slot] = slots.count
      } else if slots.contains(slot) {
        return
      } else if slots.count == 1 {
        // A second watch under a key makes room for four: growing one at a
        // time allocates at 2, 4 and 8. (Most keys hold one watch, in an
        // array of one.)
        slots.reserveCapacity(4)
      }
      slots.append(slot)
    }

    mutating func remove(_ slot: Int) {
      let position: Int
      if positions != nil {
        guard let found = positions!.removeValue(forKey: slot) else { return }
        position = found
      } else {
        guard let found = slots.firstIndex(of: slot) else { return }
        position = found
      }
      let last = slots.removeLast()
      if position < slots.count {
        slots[position] = last
        positions?[last] = position
      }
    }
  }

  struct PredicateKey: Hashable {
    var entity: Int
    var syntax: PredicateSyntax
  }

  /// A class, so that reading one on the hot path is one retain, not a
  /// copy of its fields.
  final class SharedPredicate {
    let key: PredicateKey
    let filter: CompiledFilter<WatchImage>
    var users: Int

    init(key: PredicateKey, filter: CompiledFilter<WatchImage>) {
      self.key = key
      self.filter = filter
      users = 1
    }
  }

  /// The most watches the filter holds at once: `WatchID`'s limit, or
  /// fewer for tests.
  let capacity: Int

  /// `capacity` and `firstNumber` other than their defaults are for tests
  /// of the limits.
  init(schema: ObjectSchema, capacity: Int = WatchID.maximumWatchCount, firstNumber: UInt64 = 1) {
    precondition(capacity > 0 && capacity <= WatchID.maximumWatchCount, "capacity beyond what identifiers hold")
    self.schema = schema
    self.capacity = capacity
    nextNumber = firstNumber
    // A constant predicate compiles without reading a key, so any entity
    // serves (and a schema without entities has no watches to free).
    unusedFilter = schema.layouts.first.flatMap { layout in
      try? CompiledFilter(
        PredicateSyntax(.constant(false)), resolver: ObjectKeyResolver<WatchImage>(schema: schema, layout: layout)
      ).evaluator
    }
    buckets = schema.layouts.map { _ in Bucket() }
    readMasks = schema.layouts.map { _ in 0 }
    broadReaders = schema.layouts.map { _ in 0 }
    readerCounts = schema.layouts.map { _ in [Int](repeating: 0, count: 64) }
    dependents = schema.layouts.map { _ in [:] }
    truePredicateSlots = schema.layouts.map { _ in nil }
  }

  /// The number of watches: every slot is either held or free, and a
  /// held one is a watch or a member of a group.
  var count: Int { entries.count - freeSlots.count - memberCount }

  /// The watch with this identifier, or nil for one that is gone (its slot
  /// empty, or reused by a later watch). For a group, its head.
  func entry(_ id: WatchID) -> WatchEntry? {
    let slot = id.slot
    guard slot < entries.count, let entry = entries[slot], entry.id == id else { return nil }
    return entry
  }

  /// The entry of a watch that applies to objects of `layout`: the watch's
  /// own, or for a group the member of the object's entity (the head when
  /// none is).
  func entry(_ id: WatchID, for layout: EntityLayout) -> WatchEntry? {
    guard let head = entry(id) else { return nil }
    for slot in head.members {
      if let member = entries[slot], layout.isKind(of: member.entity) { return member }
    }
    return head
  }

  /// Validates and adds a watch of several entities, or of every entity
  /// (`entityNames` nil: each entity without a parent, with its
  /// sub-entities): one entry per entity (an entity whose ancestor is
  /// named too is covered by it). The predicate and options must be valid
  /// for each: the first refusal is thrown, and nothing is added.
  mutating func add(
    entities entityNames: [String]?, predicate: PredicateSyntax, source: String?, options: WatchOptions,
    route: WatchRoute? = nil
  ) throws(WatchError) -> WatchID {
    let groupName = entityNames.map { $0.joined(separator: ", ") } ?? "every entity"
    var names: [String]
    if let entityNames {
      guard !entityNames.isEmpty else {
        throw WatchError(
          .invalidOptions, watch: options.label ?? "\(groupName) \(source ?? predicate.description)", entity: "",
          message: "a watch names at least one entity")
      }
      for name in entityNames where schema.layout(named: name) == nil {
        throw unknownEntity(name, watch: options.label ?? "\(groupName) \(source ?? predicate.description)")
      }
      let named = Set(entityNames)
      var seen: Set<String> = []
      names = entityNames.filter { name in
        let layout = schema.layout(named: name)!
        return seen.insert(name).inserted && !layout.ancestorNames.contains { $0 != name && named.contains($0) }
      }
    } else {
      names = schema.layouts.filter { $0.parentIndex == nil }.map(\.name)
    }
    if names.count == 1 {
      return try add(entity: names[0], predicate: predicate, source: source, options: options, route: route)
    }
    let firstNumber = nextNumber
    var added: [WatchID] = []
    do throws(WatchError) {
      for name in names {
        added.append(
          try add(
            entity: name, predicate: predicate, source: source, options: options, route: route, head: added.first,
            groupName: groupName))
      }
    } catch {
      for id in added.reversed() { removeEntry(at: id.slot) }
      nextNumber = firstNumber
      throw error
    }
    entries[added[0].slot]!.members = added.dropFirst().map(\.slot)
    return added[0]
  }

  // MARK: Adding and removing

  /// Validates and adds a watch.
  ///
  /// Takes the predicate to keep it in the watch's entry without a copy
  /// (copying a predicate copies its nodes).
  ///
  /// - Parameters:
  ///   - head: For a member of a group, the group's identifier: the entry
  ///     reports it, and takes its number.
  ///   - groupName: For a member of a group, the entities it names, for
  ///     labels.
  mutating func add(
    entity entityName: String, predicate: consuming PredicateSyntax, source: String?, options: WatchOptions,
    route: WatchRoute? = nil, head: WatchID? = nil, groupName: String? = nil
  ) throws(WatchError) -> WatchID {
    // Built only for errors: describing a predicate costs more than adding it.
    // (Given the predicate rather than capturing it, which would keep it
    // from moving into the entry.)
    func label(_ predicate: borrowing PredicateSyntax) -> String {
      options.label ?? "\(groupName ?? entityName) \(source ?? predicate.description)"
    }
    // Before anything changes: a refused watch leaves the filter as it was.
    if freeSlots.isEmpty && entries.count >= capacity {
      throw WatchError(
        .tooManyWatches, watch: label(predicate), entity: entityName,
        message: "the watcher already holds \(capacity) watches, the most it can")
    }
    if head == nil && nextNumber >= WatchID.numberLimit {
      throw WatchError(
        .tooManyWatches, watch: label(predicate), entity: entityName,
        message: "the watcher has numbered \(WatchID.numberLimit - 1) watches, the most it can; use a new watcher")
    }
    guard let layout = schema.layout(named: entityName) else {
      throw unknownEntity(entityName, watch: label(predicate))
    }
    if options.watchedKeys != nil && !options.ignoredKeys.isEmpty {
      throw WatchError(
        .invalidOptions, watch: label(predicate), entity: entityName,
        message: "a watch takes watched keys or ignored keys, not both")
    }
    let optionKeys = options.watchedKeys ?? options.ignoredKeys
    for key in optionKeys.isEmpty ? [] : optionKeys.sorted() where layout.slot(key) == nil {
      throw WatchError(
        .unknownKey, watch: label(predicate), entity: entityName, key: key,
        message: "\(entityName) has no key '\(key)' (keys: \(layout.keys.joined(separator: ", ")))")
    }

    // The residual is compiled (or shared) below, which validates it. The
    // indexed conjunct is valid as found: it is only formed from constants
    // that fit the attribute's type.
    let (indexSlot, index, secondary, residual) = IndexedConjunct.split(predicate, entity: layout)
    // Not `residual != nil`, which resolved to the Equatable `!=` of two
    // optionals: a copy of the residual and a generic destroy of the pair.
    let hasResidual = if case .some = residual { true } else { false }
    var ignoredKeys =
      layout.ignoredKeys.isEmpty || options.countsIgnoredKeys
      ? options.ignoredKeys : options.ignoredKeys.union(layout.ignoredKeys)
    // The indexed conjunct reads its attributes; the residual is analysed,
    // then compiled (or shared), in one place: the residual moves there
    // rather than being copied to outlive the checks.
    var analysis = PredicateAnalysis(collectsReadKeys: !ignoredKeys.isEmpty)
    let predicateSlot: Int
    do throws(PredicateCompileError) {
      if let residual = consume residual {
        analysis.visit(residual, entity: layout, schema: schema)
        predicateSlot = try sharedPredicate(residual, entity: layout.index, source: source)
      } else if let slot = truePredicateSlots[layout.index] {
        // Most watches: one indexed comparison, sharing TRUEPREDICATE.
        predicates[slot]!.users += 1
        predicateSlot = slot
      } else {
        predicateSlot = try sharedPredicate(PredicateSyntax(.constant(true)), entity: layout.index, source: source)
      }
    } catch {
      throw WatchError(watch: label(predicate), entity: entityName, compile: error)
    }
    if index != nil {
      analysis.noteRead(attribute: indexSlot, of: layout)
      if let (rangeSlot, _) = secondary { analysis.noteRead(attribute: rangeSlot, of: layout) }
    }
    if !ignoredKeys.isEmpty {
      ignoredKeys.subtract(analysis.readsWholeObject ? Set(layout.keys) : analysis.readKeys)
    }
    var dependencies: [WatchEntry.Dependency] = []
    if !analysis.dependencies.isEmpty {
      for dependency in analysis.dependencies.sorted(by: { $0.path.count < $1.path.count }) {
        guard var resolved = resolve(dependency, from: layout) else { continue }
        resolved.number = dependencies.count
        dependencies.append(resolved)
      }
    }
    let slot = freeSlots.popLast() ?? entries.count
    let id = WatchID(number: head?.number ?? nextNumber, slot: slot)
    if head == nil {
      nextNumber += 1
    } else {
      memberCount += 1
    }
    // Filed from the locals, before they move into the entry: reading the
    // conjunct back out of the entry would copy it (its keys and bounds).
    if let objectIDs = options.objectIDs {
      for kind in layout.kindIndexes {
        for objectID in objectIDs { buckets[kind].instances[InstanceKey(objectID), default: SlotList()].insert(slot) }
      }
    } else {
      file(index, on: indexSlot, secondary: secondary, of: layout, slot: slot, id: id, hasResidual: hasResidual)
    }
    for kind in layout.kindIndexes {
      buckets[kind].count += 1
      countReads(analysis.attributeMask, 1, in: kind)
    }
    for dependency in dependencies {
      for kind in dependency.targetKinds { dependents[kind][slot, default: []].insert(dependency.number) }
    }
    let entry = WatchEntry(
      id: id, entity: layout, predicate: predicate, source: source, options: options, ignoredKeys: ignoredKeys,
      indexSlot: indexSlot, index: consume index, secondary: secondary, predicateSlot: predicateSlot,
      hasResidual: hasResidual, dependencies: dependencies, attributeMask: analysis.attributeMask, route: route,
      head: head, groupName: groupName)
    if route != nil && head == nil { routedCount += 1 }
    if slot == entries.count {
      entries.append(entry)
      slotInfo.append(SlotInfo(entry))
      marks.grow(to: entries.count)
    } else {
      entries[slot] = entry
      slotInfo[slot] = SlotInfo(entry)
    }
    return id
  }

  /// Files a watch under its indexed conjunct (or with the unindexed
  /// watches) in the buckets of `layout`'s kinds. The conjunct is borrowed:
  /// matching it from a local copied its keys.
  private mutating func file(
    _ index: borrowing IndexedConjunct.Kind?, on indexSlot: Int, secondary: (slot: Int, bounds: RangeBounds)?,
    of layout: EntityLayout, slot: Int, id: WatchID, hasResidual: Bool
  ) {
    switch index {
    case .equal(let keys)?:
      for kind in layout.kindIndexes {
        let position = buckets[kind].indexPosition(of: indexSlot)
        for key in keys {
          let keyed = buckets[kind].indexes[position].keys.insert(key)
          if let (rangeSlot, bounds) = secondary {
            keyed.insert(bounds, on: rangeSlot, id: id, hasResidual: hasResidual)
          } else {
            keyed.plain.insert(slot)
          }
        }
      }
    case .range(let bounds)?:
      for kind in layout.kindIndexes {
        let rangeIndex = buckets[kind].ranges[indexSlot] ?? RangeIndex()
        rangeIndex.insert(bounds, id: id)
        buckets[kind].ranges[indexSlot] = rangeIndex
      }
    case nil:
      for kind in layout.kindIndexes { buckets[kind].unindexed.insert(slot) }
    }
  }

  /// The error for a watch of an entity the schema lacks.
  private func unknownEntity(_ name: String, watch: String) -> WatchError {
    let names = schema.entities.map(\.name).joined(separator: ", ")
    return WatchError(.unknownEntity, watch: watch, entity: name, message: "unknown entity '\(name)' (entities: \(names))")
  }

  /// Removes every watch, for a watcher going away: the tokens that
  /// outlive it hold an empty filter. Numbering goes on, so no identifier
  /// is handed out twice.
  mutating func removeAll() {
    self = MasterFilter(schema: schema, capacity: capacity, firstNumber: nextNumber)
  }

  /// Removes a watch (a group with its members); removing one that is
  /// gone changes nothing.
  mutating func remove(_ id: WatchID) {
    guard let entry = entry(id) else { return }
    for member in entry.members { removeEntry(at: member) }
    removeEntry(at: id.slot)
  }

  /// Removes the entry in `slot`: a watch, or a member of a group.
  private mutating func removeEntry(at slot: Int) {
    guard let entry = entries[slot] else { return }
    for kind in entry.entity.kindIndexes {
      if let objectIDs = entry.options.objectIDs {
        for objectID in objectIDs {
          let key = InstanceKey(objectID)
          buckets[kind].instances[key]?.remove(slot)
          if buckets[kind].instances[key]?.isEmpty == true { buckets[kind].instances[key] = nil }
        }
        buckets[kind].count -= 1
        countReads(entry.attributeMask, -1, in: kind)
        continue
      }
      switch entry.index {
      case .equal(let keys)?:
        guard let position = buckets[kind].indexes.firstIndex(where: { $0.attribute == entry.indexSlot }) else { break }
        for key in keys {
          // One lookup per key: the lists are a class, changed in place.
          guard let keyed = buckets[kind].indexes[position].keys.watches(for: key) else { continue }
          if let (rangeSlot, _) = entry.secondary {
            keyed.remove(entry.id, on: rangeSlot, hasResidual: entry.hasResidual)
          } else {
            keyed.plain.remove(slot)
          }
          if keyed.isEmpty { buckets[kind].indexes[position].keys.remove(keyed) }
        }
        if buckets[kind].indexes[position].keys.isEmpty { buckets[kind].indexes.remove(at: position) }
      case .range?:
        if let rangeIndex = buckets[kind].ranges[entry.indexSlot] {
          rangeIndex.noteRemoval()
          // With no live watch left, its stale entries go with it, and
          // matching no longer visits it.
          if rangeIndex.count == 0 { buckets[kind].ranges[entry.indexSlot] = nil }
        }
      case nil:
        buckets[kind].unindexed.remove(slot)
      }
      buckets[kind].count -= 1
      countReads(entry.attributeMask, -1, in: kind)
    }
    for dependency in entry.dependencies {
      for kind in dependency.targetKinds { dependents[kind][slot] = nil }
    }
    if let shared = predicates[entry.predicateSlot] {
      shared.users -= 1
      if shared.users == 0 {
        predicateIndex[shared.key] = nil
        if truePredicateSlots[shared.key.entity] == entry.predicateSlot { truePredicateSlots[shared.key.entity] = nil }
        predicates[entry.predicateSlot] = nil
        if let unusedFilter { filters[entry.predicateSlot] = unusedFilter }
        freePredicates.append(entry.predicateSlot)
      }
    }
    if entry.route != nil && entry.head == nil { routedCount -= 1 }
    if entry.head != nil { memberCount -= 1 }
    entries[slot] = nil
    freeSlots.append(slot)
  }

  /// The queues of the watches' own handlers, each once.
  ///
  /// - Complexity: O(*n*) in the watches.
  func routeQueues() -> [MonitorDeliveryQueue] {
    guard routedCount > 0 else { return [] }
    var seen: Set<ObjectIdentifier> = []
    return entries.compactMap { entry in
      guard let queue = entry?.route?.queue, seen.insert(ObjectIdentifier(queue)).inserted else { return nil }
      return queue
    }
  }

  /// The slot of the shared predicate `residual` on `entity`, compiled and
  /// added unless an equal one is there. `TRUEPREDICATE` comes here only
  /// when the entity has none yet: `add` takes the shared one from
  /// `truePredicateSlots` itself, the path of most watches.
  private mutating func sharedPredicate(
    _ residual: PredicateSyntax, entity: Int, source: String?
  ) throws(PredicateCompileError) -> Int {
    let isTrue = if case .constant(true) = residual.kind { true } else { false }
    let key = PredicateKey(entity: entity, syntax: residual)
    if !isTrue, let slot = predicateIndex[key] {
      predicates[slot]!.users += 1
      return slot
    }
    let filter = try CompiledFilter(
      key.syntax, source: source, resolver: ObjectKeyResolver<WatchImage>(schema: schema, layout: schema.layouts[key.entity]))
    let shared = SharedPredicate(key: key, filter: filter)
    let slot: Int
    if let free = freePredicates.popLast() {
      slot = free
      predicates[slot] = shared
      filters[slot] = filter.evaluator
    } else {
      slot = predicates.count
      predicates.append(shared)
      filters.append(filter.evaluator)
    }
    predicateIndex[key] = slot
    if isTrue { truePredicateSlots[key.entity] = slot }
    memo.grow(to: predicates.count)
    return slot
  }

  /// Turns relationship names into the entities whose changes matter and
  /// the inverse slots that lead back to the watched object.
  private func resolve(_ dependency: PredicateAnalysis.Dependency, from layout: EntityLayout) -> WatchEntry.Dependency? {
    var current = layout
    var inverseSteps: [(entity: EntityLayout, slot: Int)] = []
    for name in dependency.path {
      guard case .relationship(let slot) = current.slot(name) else { return nil }
      let relationship = current.relationships[slot]
      let destination = schema.layouts[relationship.destinationIndex]
      inverseSteps.append((destination, relationship.inverseSlot))
      current = destination
    }
    return WatchEntry.Dependency(
      number: 0, path: dependency.path, keys: dependency.keys, target: current,
      targetKinds: current.kindIndexes, inverseSlots: inverseSteps.reversed().map(\.slot))
  }

  // MARK: Matching

  /// The watches that match `image`, into `matched`: candidates from the
  /// entity's bucket and its indexes, then their shared residual
  /// predicates, each evaluated once.
  /// Call `prepareRanges()` first, once per save.
  func matches(_ image: WatchImage, into matched: SlotBuffer, failures: inout [WatchFailure]) {
    matched.removeAll()
    let entity = image.layout.index
    guard buckets[entity].count > 0 else { return }
    memo.next()
    let unindexed = buckets[entity].unindexed.slots
    for slot in unindexed where test(slot, image, failures: &failures) { matched.append(slot) }
    if !buckets[entity].instances.isEmpty, let named = buckets[entity].instances[InstanceKey(image.snapshot.objectID)] {
      // Not filed in the indexes: their indexed conjuncts are tested here.
      for slot in named.slots where passesIndexedConjuncts(slot, image) && test(slot, image, failures: &failures) {
        matched.append(slot)
      }
    }
    for position in buckets[entity].indexes.indices {
      let attribute = buckets[entity].indexes[position].attribute
      let keys = buckets[entity].indexes[position].keys
      guard let keyed = image.withAttribute(attribute, { value in keys.watches(for: value) }) else { continue }
      for slot in keyed.plain.slots where test(slot, image, failures: &failures) { matched.append(slot) }
      // Kept sorted on insertion and removal: read-only here.
      let rangeAttribute = keyed.firstRangeAttribute
      guard rangeAttribute >= 0 else { continue }
      guard !keyed.hasRangedWithResidual else {
        collect(keyed, rangeAttribute, image, into: matched, failures: &failures)
        for (attribute, index) in keyed.moreRanges {
          collect(index, attribute, image, into: matched, failures: &failures)
        }
        continue
      }
      // The key and the range are the whole predicate: every candidate
      // matches.
      if let key = image.rangeKey(rangeAttribute) { keyed.collect(key, live: nil, into: matched) }
      for (attribute, index) in keyed.moreRanges {
        if let key = image.rangeKey(attribute) { index.collect(key, live: nil, into: matched) }
      }
    }
    guard !buckets[entity].ranges.isEmpty else { return }
    for (attribute, index) in buckets[entity].ranges {
      collect(index, attribute, image, live: entries, into: matched, failures: &failures)
    }
  }

  /// The candidates of one range index that match `image`, into `matched`.
  @inline(__always)
  private func collect(
    _ index: RangeIndex, _ attribute: Int, _ image: WatchImage, live: [WatchEntry?]? = nil, into matched: SlotBuffer,
    failures: inout [WatchFailure]
  ) {
    guard let key = image.rangeKey(attribute) else { return }
    rangeCandidates.removeAll()
    index.collect(key, live: live, into: rangeCandidates)
    for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
  }

  /// Sorts the range indexes that watches were added to, and drops their
  /// removed entries when many are pending: once per save, before
  /// matching, so that matching reads the filter without changing it.
  func prepareRanges() {
    for bucket in buckets {
      for index in bucket.ranges.values { index.prepare(live: entries) }
    }
  }

  /// Counts a watch's reads in or out of an entity's bucket (`change` is 1
  /// or -1).
  private mutating func countReads(_ mask: UInt64?, _ change: Int, in entity: Int) {
    guard var mask else {
      broadReaders[entity] += change
      return
    }
    while mask != 0 {
      let slot = mask.trailingZeroBitCount
      readerCounts[entity][slot] += change
      if readerCounts[entity][slot] == 0 {
        readMasks[entity] &= ~(1 << UInt64(slot))
      } else {
        readMasks[entity] |= 1 << UInt64(slot)
      }
      mask &= mask - 1
    }
  }

  /// Whether an update changed none of the attributes that the watches of
  /// its entity read, so that it matches the same watches before and after.
  @inline(__always)
  func readsUnchanged(_ update: borrowing ObjectUpdate, entity: Int) -> Bool {
    broadReaders[entity] == 0 && update.changedAttributes & readMasks[entity] == 0
  }

  /// Marks for classifying an update: bit 0 matched before, bit 1 after.
  func mark(_ slot: Int, _ bit: UInt8) {
    marks.storage[slot] |= bit
  }

  /// Takes a slot's marks and clears them.
  func takeMarks(_ slot: Int) -> UInt8 {
    defer { marks.storage[slot] = 0 }
    return marks.storage[slot]
  }

  /// Whether one watch matches `image`, whatever the index says (for
  /// objects reached through relationships, and for `explain`).
  func matches(_ slot: Int, _ image: WatchImage, failures: inout [WatchFailure]) -> Bool {
    guard let entry = entries[slot], image.layout.isKind(of: entry.entity) else { return false }
    guard passesIndexedConjuncts(slot, image) else { return false }
    memo.next()
    return test(slot, image, failures: &failures)
  }

  /// Whether `image` passes the conjuncts of a watch's predicate that an
  /// index would serve (its equality and range; none for most watches of
  /// an instance filter), which its residual leaves out.
  @inline(__always)
  private func passesIndexedConjuncts(_ slot: Int, _ image: WatchImage) -> Bool {
    guard slotInfo[slot].hasIndexedConjunct else { return true }
    let entry = entries[slot].unsafelyUnwrapped
    if let index = entry.index, !index.admits(image.attribute(entry.indexSlot)) { return false }
    if let (rangeSlot, bounds) = entry.secondary, !bounds.contains(image.attribute(rangeSlot)) { return false }
    return true
  }

  private func test(_ slot: Int, _ image: WatchImage, failures: inout [WatchFailure]) -> Bool {
    let predicate = Int(slotInfo[slot].predicate)
    if let known = memo.result(predicate) { return known }
    let result: Bool
    do {
      result = try filters[predicate].evaluate(image)
    } catch {
      failures.append(WatchFailure(watch: slotInfo[slot].id, objectID: image.snapshot.objectID, error: error))
      result = false
    }
    memo.record(predicate, result)
    return result
  }

  /// The watches (by slot) that read into objects of `entity` through
  /// relationships, with the dependencies concerned.
  func dependents(of entity: EntityLayout) -> [Int: Set<Int>] { dependents[entity.index] }

  /// Whether some watch reads through relationships into objects of the
  /// entity with this index.
  func hasDependents(entity: Int) -> Bool { !dependents[entity].isEmpty }

  /// Whether some watch reads through relationships at all.
  var hasDependents: Bool { dependents.contains { !$0.isEmpty } }

  /// Results of shared predicates for the current image, by predicate
  /// slot, stamped with a generation so that moving to the next image is
  /// one increment. Raw storage: the hot path reads and writes it without
  /// uniqueness checks.
  final class Memo {
    // Touched only under the watcher's lock, one call at a time: run-time
    // exclusivity checks would cost more than the memo saves.
    @exclusivity(unchecked) private var generations: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var results: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var generation: UInt32 = 1

    init() {
      generations = .allocate(capacity: capacity)
      generations.initialize(repeating: 0, count: capacity)
      results = .allocate(capacity: capacity)
      results.initialize(repeating: false, count: capacity)
    }

    deinit {
      generations.deallocate()
      results.deallocate()
    }

    func grow(to count: Int) {
      guard count > capacity else { return }
      let newCapacity = max(count, capacity * 2)
      generations = generations.regrown(from: capacity, to: newCapacity, filling: 0)
      results = results.regrown(from: capacity, to: newCapacity, filling: false)
      capacity = newCapacity
    }

    @inline(__always)
    func next() {
      generation &+= 1
      if generation == 0 {
        generations.update(repeating: 0, count: capacity)
        generation = 1
      }
    }

    @inline(__always)
    func result(_ slot: Int) -> Bool? { generations[slot] == generation ? results[slot] : nil }

    @inline(__always)
    func record(_ slot: Int, _ result: Bool) {
      generations[slot] = generation
      results[slot] = result
    }
  }
}

/// What the classifier needs of a watch slot for every candidate and match,
/// in one small value: reading each watch's `WatchEntry` object instead
/// would cost a cache miss per match when there are many watches.
struct SlotInfo {
  /// The watch reported: the entry's own, or its group's head.
  let id: WatchID
  let predicate: Int32
  private let flags: UInt8

  init(_ entry: WatchEntry) {
    id = entry.head ?? entry.id
    predicate = Int32(entry.predicateSlot)
    flags =
      (entry.filtersEvents ? 1 : 0) | (entry.countsEveryUpdate ? 2 : 0) | (entry.index != nil ? 4 : 0)
      | (entry.route != nil ? 8 : 0)
  }

  /// Whether the watch's options filter events or objects.
  var filtersEvents: Bool { flags & 1 != 0 }
  /// Whether every update counts, whatever keys it changed.
  var countsEveryUpdate: Bool { flags & 2 != 0 }
  /// Whether the predicate has a conjunct for an index (an equality or a
  /// range), which the residual leaves out.
  var hasIndexedConjunct: Bool { flags & 4 != 0 }
  /// Whether the watch has a handler of its own (a `WatchRoute`).
  var isRouted: Bool { flags & 8 != 0 }
}

/// A list in raw storage, reused object after object and save after save:
/// appending checks no uniqueness and clearing frees nothing, where an
/// array in the filter's struct would check on every write. The classifier's
/// lists of watch slots (``SlotBuffer``) and the collector's records and
/// matches are these.
final class ScratchBuffer<Element> {
  // Touched only under the watcher's lock, one call at a time.
  @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
  @exclusivity(unchecked) private(set) var count = 0
  @exclusivity(unchecked) private var capacity: Int

  init(capacity: Int = 64) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  var isEmpty: Bool { count == 0 }

  /// The elements, valid until the next change.
  var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

  /// The elements, writable in place (for sorting), valid until the next
  /// change.
  var mutableElements: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: count) }

  /// The last element, in place.
  var last: Element {
    get { base[count - 1] }
    set { base[count - 1] = newValue }
  }

  @inline(__always)
  func append(_ element: Element) {
    if count == capacity { grow() }
    (base + count).initialize(to: element)
    count += 1
  }

  /// Makes room for `additional` more elements: the `appendReserved` calls
  /// that follow check nothing, and a loop of them calls no function, so
  /// the lists it walks need no retain.
  @inline(__always)
  func reserve(_ additional: Int) {
    if count + additional > capacity { grow(to: count + additional) }
  }

  /// Appends an element there is room for (see `reserve`; checked in debug
  /// builds, where the tests run).
  @inline(__always)
  func appendReserved(_ element: Element) {
    assert(count < capacity, "appendReserved without reserve")
    (base + count).initialize(to: element)
    count += 1
  }

  func removeAll() {
    base.deinitialize(count: count)
    count = 0
  }

  /// Empties the list, and gives back its storage when it grew past
  /// `limit` elements (one very large save does not keep its scratch space
  /// for good).
  func removeAll(keepingCapacityUpTo limit: Int) {
    removeAll()
    guard capacity > limit else { return }
    base.deallocate()
    (base, capacity) = (.allocate(capacity: limit), limit)
  }

  private func grow(to minimum: Int = 0) {
    let newCapacity = Swift.max(capacity * 2, 16, minimum)
    let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    newBase.moveInitialize(from: base, count: count)
    base.deallocate()
    (base, capacity) = (newBase, newCapacity)
  }
}

/// Watch slots, for the classifier's candidates and matches.
typealias SlotBuffer = ScratchBuffer<Int>

/// An object identifier as the instance index files it: hashed by mixing
/// its number with the table's seed (SplitMix64's finalizer), one word,
/// instead of a SipHash of it.
struct InstanceKey: Hashable {
  let rawValue: UInt64

  init(_ objectID: ObjectID) { rawValue = objectID.rawValue }

  func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

  func _rawHashValue(seed: Int) -> Int { mixedHash(rawValue, seed: seed) }
}

extension ScratchBuffer<Int> {
  /// The slots, valid until the next change.
  var slots: UnsafeBufferPointer<Int> { elements }
}

/// Marks per watch slot in raw storage: the classifier sets and clears
/// them for every match, without the uniqueness check that every write to
/// an array in the filter's struct costs.
final class Marks {
  // Touched only under the watcher's lock, one call at a time.
  @exclusivity(unchecked) private(set) var storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var capacity = 16

  init() {
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: 0, count: capacity)
  }

  deinit { storage.deallocate() }

  /// Makes room for slots below `count`; new marks are clear.
  func grow(to count: Int) {
    guard count > capacity else { return }
    let newCapacity = max(count, capacity * 2)
    storage = storage.regrown(from: capacity, to: newCapacity, filling: 0)
    capacity = newCapacity
  }
}

extension UnsafeMutablePointer where Pointee: BitwiseCopyable {
  /// A buffer of `newCapacity` elements holding this one's first
  /// `capacity` and `value` after them; this buffer is deallocated.
  func regrown(from capacity: Int, to newCapacity: Int, filling value: Pointee) -> UnsafeMutablePointer {
    let grown = UnsafeMutablePointer.allocate(capacity: newCapacity)
    grown.initialize(from: self, count: capacity)
    (grown + capacity).initialize(repeating: value, count: newCapacity - capacity)
    deallocate()
    return grown
  }
}

/// One watch, validated and compiled. A class: the classifier reads entries
/// for every candidate, and a reference is one retain where a struct of
/// these fields would be a dozen.
final class WatchEntry {
  let id: WatchID
  let entity: EntityLayout
  /// The whole predicate, arguments substituted.
  let predicate: PredicateSyntax
  let source: String?
  let options: WatchOptions
  /// Keys whose changes alone do not count (never one the predicate reads).
  let ignoredKeys: Set<String>
  /// The attribute slot of the indexed conjunct, when there is one.
  let indexSlot: Int
  /// The conjunct an index serves; the shared predicate is the rest.
  let index: IndexedConjunct.Kind?
  /// A range under the equality, served by a composite index.
  let secondary: (slot: Int, bounds: RangeBounds)?
  let predicateSlot: Int
  let dependencies: [Dependency]
  /// The attribute slots the predicate reads, as bits; nil when it reads
  /// more (see `PredicateAnalysis.attributeMask`).
  let attributeMask: UInt64?
  /// Whether the options filter events or objects (most watches do not).
  let filtersEvents: Bool
  /// Whether every update counts (no watched keys, no ignored keys): most
  /// watches, which then skip looking at the changed keys.
  let countsEveryUpdate: Bool
  /// Whether the predicate has more than its indexed conjuncts (a residual
  /// other than `TRUEPREDICATE` to evaluate).
  let hasResidual: Bool
  /// The watch's own handler and its queue, if it has one (a group's
  /// members share their head's).
  let route: WatchRoute?
  /// For a member of a group (a watch of several entities), the group's
  /// identifier, which the member reports; nil for a watch of its own.
  let head: WatchID?
  /// For a watch of several entities, what its label calls them.
  let groupName: String?
  /// For a group's head, the slots of its members (set once they are all
  /// added; changed only under the watcher's lock).
  var members: [Int] = []

  init(
    id: WatchID, entity: EntityLayout, predicate: PredicateSyntax, source: String?, options: WatchOptions,
    ignoredKeys: Set<String>, indexSlot: Int, index: IndexedConjunct.Kind?,
    secondary: (slot: Int, bounds: RangeBounds)?, predicateSlot: Int, hasResidual: Bool, dependencies: [Dependency],
    attributeMask: UInt64?, route: WatchRoute? = nil, head: WatchID? = nil, groupName: String? = nil
  ) {
    self.hasResidual = hasResidual
    self.route = route
    self.head = head
    self.groupName = groupName
    self.id = id
    self.entity = entity
    self.predicate = predicate
    self.source = source
    self.options = options
    self.ignoredKeys = ignoredKeys
    self.indexSlot = indexSlot
    self.index = index
    self.secondary = secondary
    self.predicateSlot = predicateSlot
    self.dependencies = dependencies
    self.attributeMask = attributeMask
    filtersEvents = options.events != .all || options.objectIDs != nil
    countsEveryUpdate = options.watchedKeys == nil && ignoredKeys.isEmpty
  }

  /// The watch's label: its own, or its entity and predicate.
  var label: String { options.label ?? "\(groupName ?? entity.name) \(source ?? predicate.description)" }

  /// A relationship path the predicate reads through.
  struct Dependency {
    /// The dependency's position in the watch's `dependencies`.
    var number: Int
    let path: [String]
    /// Keys read on the far entity; nil for any attribute.
    let keys: Set<String>?
    let target: EntityLayout
    let targetKinds: [Int]
    /// Inverse relationship slots leading back from the far end to the
    /// watched object, one per step.
    let inverseSlots: [Int]

    /// Whether the changes of an update of the far object matter.
    func isAffected(by update: ObjectUpdate) -> Bool {
      guard let keys else { return update.hasChangedAttributeKey }
      return update.containsChangedKey(where: keys.contains)
    }
  }

  /// Whether `update` counts for this watch by its changed keys (it still
  /// has to match before and after). The classifier answers without
  /// calling this for watches that count every update
  /// (`countsEveryUpdate`: any changed key counts).
  func counts(_ update: borrowing ObjectUpdate) -> Bool {
    if let watched = options.watchedKeys { return update.containsChangedKey(where: watched.contains) }
    return update.containsChangedKey { !ignoredKeys.contains($0) }
  }
}
