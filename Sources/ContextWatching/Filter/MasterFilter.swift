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
  // The stored properties are internal, not private: the extensions in
  // MasterFilter+*.swift (registration, matching, classification, time)
  // reach them. Nothing outside the filter does.
  let schema: ObjectSchema
  var entries: [WatchEntry?] = []
  /// What the hot path reads of each watch slot, side by side.
  var slotInfo: [SlotInfo] = []
  var freeSlots: [Int] = []
  /// The number of the next watch (see `WatchID`).
  var nextNumber: UInt64 = 1
  /// How many watches have a handler of their own (a `WatchRoute`): with
  /// none, classifying a save routes nothing.
  var routedCount = 0
  /// How many watches deliver coalesced (see `DeliveryPolicy`): their
  /// changes go to their coalescers alone, never into a save's delivery.
  var coalescedCount = 0
  /// How many watches (groups' members included) follow pending changes:
  /// while none does, the watcher does not ask the context for them.
  var followsPendingCount = 0
  /// The watcher's subscription to its context's pending changes, handed
  /// back by a removal that leaves no watch following them; nil for a
  /// watcher without a context.
  var pendingSubscription: PendingSubscription?
  /// How many of them do not follow saves.
  var followsOnlyPending = 0
  /// How many slots hold members of groups (not watches of their own).
  var memberCount = 0
  var buckets: [Bucket]
  /// The range indexes under equality keys whose tree an insertion dropped
  /// (`RangeIndex.insertInOrder`), each listed once until
  /// `prepareRanges` builds their trees; an index removed since is built
  /// for nothing. Invariant: an index kept in order that has more than
  /// `TreeOfMaxima.minimumCount` ranges and no tree is listed, or
  /// was built by `RangeIndex.takeEntries`.
  var unbuiltTrees: [RangeIndex] = []
  var predicates: [SharedPredicate?] = []
  var freePredicates: [Int] = []
  var predicateIndex: [PredicateKey: Int] = [:]
  /// Per entity, the shared slot of the residual TRUEPREDICATE (the residual
  /// of every watch that is one indexed comparison), found without hashing
  /// a predicate.
  var truePredicateSlots: [Int?]
  /// Per entity, the watches that read through relationships into it.
  var dependents: [[Int: Set<Int>]]
  let memo = Memo()
  /// The watches whose predicates compare with `now()`, by slot, with the
  /// crossing times of their objects (see `MasterFilter+Time`).
  var timed: [Int: TimedWatch] = [:]
  /// The sequence number of the last save classified, which deliveries
  /// caused by time passing carry.
  var lastSequenceNumber = 0
  /// The compiled shared predicates by slot, for the hot path (a freed slot
  /// holds a constant-false filter until reused).
  var filters: [FilterEvaluator<WatchImage>] = []
  let unusedFilter: FilterEvaluator<WatchImage>?
  /// Scratch marks per watch slot, for classifying updates.
  let marks = Marks()
  /// Per entity, the attribute slots (below 64) some watch of its bucket
  /// reads, as bits: an update that changes none of them matches the same
  /// watches before and after. Beside the buckets, so that reading one
  /// copies nothing.
  var readMasks: [UInt64]
  /// Per entity, the watches of its bucket that read more than attributes
  /// (relationships, the object whole): with any, both images of every
  /// update are matched.
  var broadReaders: [Int]
  /// Per entity, how many watches of its bucket read each of the first 64
  /// attribute slots (for keeping `readMasks` as watches come and go).
  var readerCounts: [[Int]]
  /// Scratch list of range candidates.
  let rangeCandidates = SlotBuffer()
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
      guard !names.isEmpty else {
        throw WatchError(
          .invalidOptions, watch: options.label ?? "\(groupName) \(source ?? predicate.description)", entity: "",
          message: "the schema has no entities to watch")
      }
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
}
