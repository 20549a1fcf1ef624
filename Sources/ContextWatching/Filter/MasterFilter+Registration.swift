import ObjectGraph
import PredicateDSL

// Adding and removing watches: analysis, indexes, shared predicates,
// dependencies.

extension MasterFilter {
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
    if options.coalesces {
      if options.follows == .all {
        throw WatchError(
          .invalidOptions, watch: label(predicate), entity: entityName,
          message:
            "a coalesced watch follows saves or pending changes, not both: a save reports again what its pending changes did"
        )
      }
      if let seconds = options.delivery.seconds, !(seconds > 0) {
        throw WatchError(
          .invalidOptions, watch: label(predicate), entity: entityName,
          message: "a watch coalesced every \(seconds) seconds: the interval must be positive (or use .whenReady)")
      }
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
    if head == nil && options.coalesces { coalescedCount += 1 }
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
  mutating func file(
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
  func unknownEntity(_ name: String, watch: String) -> WatchError {
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
  ///
  /// - Returns: The pending-changes subscription, when the watch was the
  ///   last to follow pending changes: the caller ends it
  ///   (``PendingSubscription/stopIfUnfollowed(_:)``) once out of the lock.
  @discardableResult
  mutating func remove(_ id: WatchID) -> PendingSubscription? {
    guard let entry = entry(id) else { return nil }
    let followedPending = followsPendingCount > 0
    for member in entry.members { removeEntry(at: member) }
    removeEntry(at: id.slot)
    return followedPending && followsPendingCount == 0 ? pendingSubscription : nil
  }

  /// Removes the entry in `slot`: a watch, or a member of a group.
  mutating func removeEntry(at slot: Int) {
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
    if entry.head == nil && entry.options.coalesces { coalescedCount -= 1 }
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

  /// The coalescers of the coalesced watches, each once.
  ///
  /// - Complexity: O(*n*) in the watches.
  func coalescers() -> [WatchCoalescer] {
    guard coalescedCount > 0 else { return [] }
    var seen: Set<ObjectIdentifier> = []
    return entries.compactMap { entry in
      guard let coalescer = entry?.route?.coalescer, seen.insert(ObjectIdentifier(coalescer)).inserted else {
        return nil
      }
      return coalescer
    }
  }

  /// The slot of the shared predicate `residual` on `entity`, compiled and
  /// added unless an equal one is there. `TRUEPREDICATE` comes here only
  /// when the entity has none yet: `add` takes the shared one from
  /// `truePredicateSlots` itself, the path of most watches.
  mutating func sharedPredicate(
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
  func resolve(_ dependency: PredicateAnalysis.Dependency, from layout: EntityLayout) -> WatchEntry.Dependency? {
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
}
