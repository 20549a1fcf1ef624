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
/// Non-copyable: its memo, marks and scratch lists are objects that a copy
/// would share with the original, so the compiler refuses copies. It lives
/// in the watcher's `LockedState` and is reached in place, under its lock.
struct MasterFilter: ~Copyable {
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
  /// How many watches (groups' members included) follow pending changes:
  /// while none does, the watcher does not ask the context for them.
  private(set) var followsPendingCount = 0
  /// How many of them do not follow saves.
  private(set) var followsOnlyPending = 0
  /// How many slots hold members of groups (not watches of their own).
  private var memberCount = 0
  private var buckets: [Bucket]
  /// The range indexes under equality keys whose tree an insertion dropped
  /// (`RangeIndex.insertInOrder`), each listed once until
  /// `prepareRanges` builds their trees; an index removed since is built
  /// for nothing. Invariant: an index kept in order that has more than
  /// `TreeOfMaxima.minimumCount` ranges and no tree is listed, or
  /// was built by `RangeIndex.takeEntries`.
  private var unbuiltTrees: [RangeIndex] = []
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
  /// The watches whose predicates compare with `now()`, by slot, with the
  /// crossing times of their objects (see `MasterFilter+Time`).
  var timed: [Int: TimedWatch] = [:]
  /// The sequence number of the last save classified, which deliveries
  /// caused by time passing carry.
  var lastSequenceNumber = 0
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

  struct PredicateKey: Hashable {
    var entity: Int
    var syntax: PredicateSyntax

    /// Equal only for the same syntax with string constants equal code
    /// unit for code unit. `PredicateSyntax`'s equality compares strings
    /// as Swift does, by canonical equivalence (a precomposed `é` equals
    /// `e` and a combining acute accent), where predicates compare them
    /// literally: two watches differing so must not share a compiled
    /// predicate. The printed syntax keeps the strings as they are. The
    /// hash stays the syntax's: literally equal keys are equal to Swift.
    static func == (lhs: PredicateKey, rhs: PredicateKey) -> Bool {
      lhs.entity == rhs.entity && lhs.syntax == rhs.syntax
        && lhs.syntax.description.utf8.elementsEqual(rhs.syntax.description.utf8)
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(entity)
      hasher.combine(syntax)
    }
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

  /// The limits the watches' predicates compile under: their `MATCHES`
  /// patterns' budget (the watcher parses under the others).
  let limits: PredicateLimits

  /// `capacity` and `firstNumber` other than their defaults are for tests
  /// of the limits.
  init(
    schema: ObjectSchema, limits: PredicateLimits = .default, capacity: Int = WatchID.maximumWatchCount,
    firstNumber: UInt64 = 1
  ) {
    precondition(capacity > 0 && capacity <= WatchID.maximumWatchCount, "capacity beyond what identifiers hold")
    self.schema = schema
    self.limits = limits
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
    if options.follows.isEmpty {
      throw WatchError(
        .invalidOptions, watch: label(predicate), entity: entityName,
        message: "a watch follows saves, pending changes or both, not nothing")
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
    // Comparisons with `now()` are refused unless time crossings can be
    // found from one attribute's value.
    var timedPredicate: TimedPredicate?
    if TimedPredicate.mayReadNow(source), TimedPredicate.readsNow(predicate) {
      do throws(PredicateCompileError) {
        timedPredicate = try TimedPredicate.analyse(predicate, entity: layout)
      } catch {
        var error = error
        error.source = source
        throw WatchError(watch: label(predicate), entity: entityName, compile: error)
      }
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
    if entry.followsPending {
      followsPendingCount += 1
      if !options.follows.contains(.saves) { followsOnlyPending += 1 }
    }
    if let timedPredicate { timed[slot] = TimedWatch(predicate: timedPredicate) }
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
            if let waiting = keyed.insert(bounds, on: rangeSlot, id: id, hasResidual: hasResidual) {
              unbuiltTrees.append(waiting)
            }
          } else {
            keyed.plain.insert(slot)
          }
        }
      }
    case .range(let bounds)?:
      for kind in layout.kindIndexes {
        let rangeIndex = buckets[kind].ranges[indexSlot] ?? BufferedRangeIndex()
        rangeIndex.file(bounds, id: id)
        buckets[kind].ranges[indexSlot] = rangeIndex
      }
    case .textRange(let bounds)?:
      for kind in layout.kindIndexes {
        let rangeIndex = buckets[kind].textRanges[indexSlot] ?? TextRangeIndex()
        rangeIndex.insert(bounds, id: id)
        buckets[kind].textRanges[indexSlot] = rangeIndex
      }
    case nil:
      for kind in layout.kindIndexes { buckets[kind].unindexed.insert(slot) }
    }
  }

  /// The error for a watch of an entity the schema lacks.
  private func unknownEntity(_ name: String, watch: String) -> WatchError {
    let names = schema.entities.map(\.name).joined(separator: ", ")
    return WatchError(
      .unknownEntity, watch: watch, entity: name, message: "unknown entity '\(name)' (entities: \(names))")
  }

  /// Removes every watch, for a watcher going away: the tokens that
  /// outlive it hold an empty filter. Numbering goes on, so no identifier
  /// is handed out twice.
  mutating func removeAll() {
    self = MasterFilter(schema: schema, limits: limits, capacity: capacity, firstNumber: nextNumber)
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
    if !timed.isEmpty { timed[slot] = nil }
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
          if rangeIndex.liveCount == 0 { buckets[kind].ranges[entry.indexSlot] = nil }
        }
      case .textRange?:
        if let rangeIndex = buckets[kind].textRanges[entry.indexSlot] {
          rangeIndex.noteRemoval()
          if rangeIndex.count == 0 { buckets[kind].textRanges[entry.indexSlot] = nil }
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
    if entry.followsPending {
      followsPendingCount -= 1
      if !entry.options.follows.contains(.saves) { followsOnlyPending -= 1 }
    }
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
      key.syntax, source: source, limits: limits,
      resolver: ObjectKeyResolver<WatchImage>(schema: schema, layout: schema.layouts[key.entity]))
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
  private func resolve(_ dependency: PredicateAnalysis.Dependency, from layout: EntityLayout) -> WatchEntry.Dependency?
  {
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
    if !buckets[entity].ranges.isEmpty {
      for (attribute, index) in buckets[entity].ranges {
        guard let key = image.rangeKey(attribute) else { continue }
        rangeCandidates.removeAll()
        index.collectBuffered(key, live: entries, into: rangeCandidates)
        for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
      }
    }
    guard !buckets[entity].textRanges.isEmpty else { return }
    for (attribute, index) in buckets[entity].textRanges {
      rangeCandidates.removeAll()
      image.withAttribute(attribute) { value in index.collect(value, live: entries, into: rangeCandidates) }
      for slot in rangeCandidates.slots where test(slot, image, failures: &failures) { matched.append(slot) }
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
  /// removed entries when many are pending, and builds the trees that
  /// insertions under equality keys dropped: once per save, before
  /// matching, so that matching reads the filter without changing it.
  mutating func prepareRanges() {
    if !unbuiltTrees.isEmpty {
      for index in unbuiltTrees { index.buildTree() }
      unbuiltTrees.removeAll()
    }
    for bucket in buckets {
      for index in bucket.ranges.values { index.prepareBuffered(live: entries) }
      for index in bucket.textRanges.values { index.prepare(live: entries) }
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
}
