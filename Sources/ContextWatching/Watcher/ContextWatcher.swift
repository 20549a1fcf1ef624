public import ObjectGraph
public import PredicateDSL

/// Watches a context's saves for changes to the objects that match a set of
/// (entity, predicate) watches, and hands the filtered changes to a delegate,
/// a closure or an async sequence, on the queue you choose.
///
/// All watches form one compiled master filter, indexed by entity and by
/// equality conjuncts; each save is run through it while the context's graph
/// is at hand, and every object is classified per watch as inserted,
/// updated, entered, exited or deleted.
///
/// ```swift
/// let watcher = ContextWatcher(
///   context: context, target: .handler(on: .queue(.main)) { changes in
///     print("entered:", changes.entered.map(\.objectID), "exited:", changes.exited.map(\.objectID))
///   })
/// let seniors = try watcher.watch("Person", where: "age > %d", 60)
/// ```
///
/// Keep the ``WatchToken``s of the watches you want: releasing or cancelling
/// one removes its watch. A watcher stops watching when it is released.
public final class ContextWatcher: Sendable {
  /// The schema of the objects watched.
  public let schema: ObjectSchema
  /// The watcher's options.
  public let options: WatcherOptions

  let filter: LockedState<MasterFilter>
  let pipeline: DeliveryPipeline
  private let observation = LockedState<SaveObserverToken?>(nil)
  /// Whether the target receives deliveries (it does, unless it is the
  /// watches' handlers alone).
  let delivers: Bool
  /// Where the handlers of watches that name no scheduler run, and their
  /// queue, made when the first of them is added.
  private let handlerScheduler: DeliveryScheduler
  private let handlerQueue = LockedState<MonitorDeliveryQueue?>(nil)
  /// The alarm set for the earliest crossing of the timed watches, and the
  /// context whose queue crossings are judged on (see `ContextWatcher+Time`).
  let timing = LockedState(TimingState())

  /// Creates a watcher of `context`'s saves.
  ///
  /// - Parameters:
  ///   - context: The context to watch. The watcher does not keep it alive.
  ///   - target: Where deliveries go.
  ///   - options: Authors to skip, and the delivery buffer's bound.
  public convenience init(context: ObjectContext, target: DeliveryTarget, options: WatcherOptions = WatcherOptions()) {
    self.init(schema: context.schema, target: target, options: options)
    let token = context.addSaveObserver { [weak self, weak context] save in
      self?.process(save, context: context)
    }
    observation.withLock { $0 = token }
    // The observation of the context's pending changes, made when the
    // first watch that follows them is added and ended when the last one
    // is removed.
    let subscription = PendingSubscription(context: context)
    filter.withLock { $0.pendingSubscription = subscription }
    timing.withLock { $0.context = context }
  }

  /// Creates a watcher of change values from any source: feed it with
  /// ``process(_:)``. Key paths through relationships reach only the objects
  /// the change value holds.
  public init(schema: ObjectSchema, target: DeliveryTarget, options: WatcherOptions = WatcherOptions()) {
    self.schema = schema
    self.options = options
    filter = LockedState(MasterFilter(schema: schema, limits: options.predicateLimits))
    pipeline = DeliveryPipeline(target: target, limit: options.bufferLimit)
    delivers = target.delivers
    handlerScheduler = target.handlerScheduler
    pipeline.attach(self)
  }

  deinit {
    filter.withLock { $0.pendingSubscription }?.stop()
    pipeline.stream?.finish()
    timing.withLock { $0.alarm?.cancel() }
    // Tokens hold the table, not the watcher: what they keep must be empty.
    filter.withLock { $0.removeAll() }
  }

  // MARK: Watches

  /// Adds a watch of `entity` (and its sub-entities) for objects matching a
  /// predicate.
  ///
  /// ```swift
  /// let token = try watcher.watch("Person", where: "name BEGINSWITH[c] %@ AND age > %d", "a", 30)
  /// ```
  ///
  /// - Parameters:
  ///   - entity: The entity to watch; its sub-entities are watched too.
  ///   - format: The predicate, in the predicate language.
  ///   - arguments: The values of the format's `%@`, `%d` and `%K`
  ///     placeholders, in order.
  ///   - options: What the watch reports, beyond its predicate.
  ///   - handler: The watch's own handler, which gets its objects alone
  ///     (the watcher's target gets them too, unless it is
  ///     ``DeliveryTarget/watchHandlers(on:)``); nil for none.
  /// - Returns: The watch's token; keep it as long as you want the watch.
  /// - Throws: ``WatchError`` naming the watch, the key, the entity and the
  ///   position, for an unknown entity or key, a predicate that does not
  ///   parse or cannot apply to the keys' types, or contradictory options.
  /// - Complexity: One parse and, unless an equal predicate is already
  ///   watched, one compile; O(sub-entities × indexed constants) to index.
  public func watch(
    _ entity: String, where format: String, _ arguments: FilterValue..., options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try watch(entity, where: format, arguments: arguments, options: options, handler: handler)
  }

  /// Adds a watch, with the format arguments in an array.
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)`.
  public func watch(
    _ entity: String, where format: String, arguments: [FilterValue], options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    let syntax: PredicateSyntax
    do {
      syntax = try PredicateParser.parse(
        format, arguments: arguments, maximumDepth: self.options.predicateLimits.maximumDepth,
        maximumLength: self.options.predicateLimits.maximumLength, exactPairs: true)
    } catch {
      throw WatchError(watch: options.label ?? "\(entity) \(format)", entity: entity, parse: error)
    }
    return try add(entity, predicate: syntax, source: format, options: options, route: route(handler, options))
  }

  /// Adds a watch of every object of an entity (and of its sub-entities):
  /// ZSContextWatcher's watch with a nil predicate, `TRUEPREDICATE`.
  ///
  /// ```swift
  /// let everyone = try watcher.watch("Person")
  /// ```
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)`, for
  ///   an unknown entity or contradictory options.
  public func watch(
    _ entity: String, options: WatchOptions = WatchOptions(), handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try add(
      entity, predicate: PredicateSyntax(.constant(true)), source: "TRUEPREDICATE", options: options,
      route: route(handler, options))
  }

  /// Adds a watch with a parsed predicate.
  ///
  /// - Parameters:
  ///   - entity: The entity to watch; its sub-entities are watched too.
  ///   - predicate: The parsed predicate.
  ///   - source: The text the predicate was parsed from, so that errors show
  ///     their position in it.
  ///   - options: What the watch reports, beyond its predicate.
  ///   - handler: The watch's own handler; nil for none.
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)`. A
  ///   predicate with unsubstituted `$VARIABLES` is refused.
  public func watch(
    _ entity: String, predicate: PredicateSyntax, source: String? = nil, options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try add(entity, predicate: predicate, source: source, options: options, route: route(handler, options))
  }

  // MARK: Watches of several entities

  /// Adds one watch of several entities (each with its sub-entities), as
  /// KSCoreDataObserver's registrations may name several: one identifier,
  /// reported for objects of any of them.
  ///
  /// The predicate and options must make sense for each entity named
  /// (validated, and compiled, for each); an entity below another one
  /// named is covered by it.
  ///
  /// ```swift
  /// let named = try watcher.watch(["Person", "Company"], where: "name BEGINSWITH %@", "A")
  /// ```
  ///
  /// - Throws: ``WatchError`` as `watch(_:where:_:options:handler:)`, for
  ///   the first entity the watch does not fit (the error names it);
  ///   nothing is added then. An empty list is refused
  ///   (``WatchError/Code/invalidOptions``).
  /// - Complexity: One parse; per entity, what a watch of it costs.
  public func watch(
    _ entities: [String], where format: String, _ arguments: FilterValue..., options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try watch(
      entities, predicate: parse(format, arguments, for: entities.joined(separator: ", "), options), source: format,
      options: options, handler: handler)
  }

  /// Adds one watch of several entities with a parsed predicate.
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)` (of several entities).
  public func watch(
    _ entities: [String], predicate: PredicateSyntax, source: String? = nil, options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try add(entities: entities, predicate: predicate, source: source, options: options, route: route(handler, options))
  }

  /// Adds one watch of every entity of the schema (KSCoreDataObserver's
  /// registration that names none): its predicate and options must make
  /// sense for each entity, as `TRUEPREDICATE` does.
  ///
  /// ```swift
  /// let everything = try watcher.watchEveryEntity(where: "TRUEPREDICATE", handler: .eachObject { object, event, _ in
  ///   print(event, object.entityName, object.objectID)
  /// })
  /// ```
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)` (of several entities).
  public func watchEveryEntity(
    where format: String, _ arguments: FilterValue..., options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try watchEveryEntity(
      predicate: parse(format, arguments, for: "every entity", options), source: format, options: options,
      handler: handler)
  }

  /// Adds one watch of every entity with a parsed predicate.
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)` (of several entities).
  public func watchEveryEntity(
    predicate: PredicateSyntax, source: String? = nil, options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try add(entities: nil, predicate: predicate, source: source, options: options, route: route(handler, options))
  }

  /// Parses a watch's format, as a refusal of the watch (named `entities`)
  /// when it does not parse.
  private func parse(
    _ format: String, _ arguments: [FilterValue], for entities: String, _ options: WatchOptions
  ) throws(WatchError) -> PredicateSyntax {
    do {
      return try PredicateParser.parse(
        format, arguments: arguments, maximumDepth: self.options.predicateLimits.maximumDepth,
        maximumLength: self.options.predicateLimits.maximumLength, exactPairs: true)
    } catch {
      throw WatchError(watch: options.label ?? "\(entities) \(format)", entity: entities, parse: error)
    }
  }

  private func add(
    entities: [String]?, predicate: PredicateSyntax, source: String?, options: WatchOptions, route: WatchRoute?
  ) throws(WatchError) -> WatchToken {
    let (id, timed) = try filter.withLock { filter throws(WatchError) in
      let id = try filter.add(entities: entities, predicate: predicate, source: source, options: options, route: route)
      return (id, filter.hasTimedWatches)
    }
    if options.follows.contains(.pending) { followPendingChanges() }
    if timed { startTiming(id) }
    return WatchToken(id: id, watches: filter)
  }

  /// Adds a watch whose changes go to `route` (a monitor's).
  ///
  /// - Parameter now: For a caller on the context's queue that reads the
  ///   objects as of `now` (`EvaluationTime`): a watch that compares with
  ///   `now()` starts on them at once, as of the same time, so that no
  ///   crossing falls between the read and the watch's start. Nil starts it
  ///   later on the context's queue, at the clock's time then.
  func watch(
    _ entity: String, predicate: PredicateSyntax, source: String? = nil, options: WatchOptions, route: WatchRoute,
    startingAt now: Double? = nil
  ) throws(WatchError) -> WatchToken {
    try add(entity, predicate: predicate, source: source, options: options, route: route, startingAt: now)
  }

  /// Adds a watch, keeping `predicate` in its entry without copying it.
  private func add(
    _ entity: String, predicate: consuming PredicateSyntax, source: String?, options: WatchOptions,
    route: WatchRoute?, startingAt now: Double? = nil
  ) throws(WatchError) -> WatchToken {
    // Moved into the closure through an optional: a closure cannot consume
    // what it captures.
    var moved = Optional(predicate)
    let (id, timed) = try filter.withLock { filter throws(WatchError) in
      let id = try filter.add(entity: entity, predicate: moved.take()!, source: source, options: options, route: route)
      return (id, filter.hasTimedWatches)
    }
    if options.follows.contains(.pending) { followPendingChanges() }
    if timed { startTiming(id, at: now) }
    return WatchToken(id: id, watches: filter)
  }

  /// Observes the context's pending changes, unless the watcher does
  /// already (or has no context): only while a watch follows them, so that
  /// a context no watch asks this of tracks nothing for it.
  private func followPendingChanges() {
    filter.withLock { $0.pendingSubscription }?.start { [weak self] changes, context in
      self?.process(changes, context: context)
    }
  }

  /// The route of a watch's handler: on a queue of its own for a handler
  /// that names a scheduler, else on the watcher's handler queue. A
  /// coalesced watch's route is its coalescer, which delivers to the
  /// handler and to the watcher's target.
  private func route(_ handler: WatchHandler?, _ options: WatchOptions) -> WatchRoute? {
    guard options.coalesces else { return handler.map { WatchRoute(queue: queue(of: $0), body: $0.body) } }
    guard handler != nil || delivers else { return nil }
    let handlerQueue = handler.map(queue(of:))
    let context = timing.withLock { $0.context }
    let coalescer = WatchCoalescer(
      policy: options.delivery, clock: self.options.clock,
      handler: handler.map { (handlerQueue!, $0.body) }, pipeline: delivers ? pipeline : nil
    ) { [weak context] work in
      // On the context's queue, between saves, as the saves' deliveries;
      // on the calling thread for a watcher fed with `process(_:)`.
      guard let context else { return work() }
      context.perform { _ in work() }
    }
    return WatchRoute(coalescing: coalescer, handlerQueue: handlerQueue)
  }

  /// The queue a handler runs on.
  private func queue(of handler: WatchHandler) -> MonitorDeliveryQueue {
    let queue: MonitorDeliveryQueue
    if let scheduler = handler.scheduler {
      queue = MonitorDeliveryQueue(scheduler: scheduler, owner: "ContextWatcher")
    } else {
      queue = handlerQueue.withLock { shared in
        if let shared { return shared }
        let queue = MonitorDeliveryQueue(scheduler: handlerScheduler, owner: "ContextWatcher")
        shared = queue
        return queue
      }
    }
    return queue
  }

  /// Removes a watch; removing one that is gone changes nothing. Safe from
  /// any thread, during a delivery too.
  public func removeWatch(_ id: WatchID) {
    filter.withLock { $0.remove(id) }?.stopIfUnfollowed(filter)
  }

  /// The number of watches.
  public var watchCount: Int { filter.withLock { $0.count } }

  /// The label of a watch, or nil for a watch that is gone.
  public func label(of id: WatchID) -> String? { filter.withLock { $0.entry(id)?.label } }

  // MARK: Saves

  /// Runs a change value through the watches and delivers what they saw:
  /// for a watcher fed from a source other than a context. Call it in save
  /// order, from one thread at a time. A value of kind
  /// `ContextSave.Kind.pending` reaches the watches that follow pending
  /// changes, any other those that follow saves.
  public func process(_ save: ContextSave) {
    process(save, context: nil)
  }

  private func process(_ save: ContextSave, context: ObjectContext?) {
    if let author = save.author, options.ignoredAuthors.contains(author) {
      // Not classified nor delivered, but its values are the saved ones
      // that time passing judges next.
      trackIgnored(save, context: context)
      return
    }
    // Filled only for watches with handlers of their own.
    var routes: [RoutedChanges] = []
    var passed: TimePassed?
    let changes = filter.withLock { filter in
      guard filter.hasTimedWatches else {
        return filter.classify(save, context: context, delivers: delivers, routes: &routes)
      }
      return classifyTimed(save, context: context, filter: &filter, routes: &routes, passed: &passed)
    }
    if let passed { deliver(passed) }
    if let changes { pipeline.deliver(consume changes) }
    if !routes.isEmpty { WatchRoute.deliver(routes) }
  }

  // MARK: Delivery

  /// The deliveries, for a watcher created with
  /// ``DeliveryTarget/asyncSequence``, buffered from the watcher's creation
  /// and ending when it is released (see ``ContextChangesSequence``); for
  /// any other target, a sequence that ends at once.
  public var changes: ContextChangesSequence {
    ContextChangesSequence(buffer: pipeline.stream ?? Self.finishedBuffer)
  }

  private static let finishedBuffer: ChangesBuffer = {
    let buffer = ChangesBuffer()
    buffer.finish()
    return buffer
  }()

  /// Delivers what coalesced watches hold pending, then blocks until every
  /// delivery of the saves made before the call has run (or, for an async
  /// sequence, has been taken by its consumer), and so have the calls of
  /// the handlers of the watches still registered: for deterministic tests. A delivery run on a queue has also been
  /// released by the watcher by then (the delegate or closure may still
  /// hold it).
  ///
  /// - Important: Not from the delivery queue itself or a handler's, nor
  ///   from the main thread with the ``DeliveryScheduler/mainActor``
  ///   scheduler (use `await flush()`): it would wait forever, so it traps.
  /// - Complexity: O(*n*) in the watches, when some have handlers.
  public func flush() {
    flushCoalescers()
    pipeline.flush()
    for queue in filter.withLock({ $0.routeQueues() }) { queue.flush() }
  }

  /// Delivers what coalesced watches hold pending, then waits without
  /// blocking until every delivery of the saves made before the call has
  /// run, and the calls of the watches' handlers.
  public func flush() async {
    flushCoalescers()
    await pipeline.flush()
    for queue in filter.withLock({ $0.routeQueues() }) { await queue.flush() }
  }

  /// Hands on what coalesced watches hold pending: on the context's queue,
  /// where their other emissions run, so that none is under way meanwhile.
  private func flushCoalescers() {
    let coalescers = filter.withLock { $0.coalescers() }
    guard !coalescers.isEmpty else { return }
    guard let context = timing.withLock({ $0.context }) else {
      for coalescer in coalescers { coalescer.flush() }
      return
    }
    context.performAndWait { _ in
      for coalescer in coalescers { coalescer.flush() }
    }
  }

  /// Deliveries enqueued and not yet run.
  public var backlog: Int { pipeline.backlog }

  // MARK: Explaining

  /// Tells why `snapshot` matches a watch or not, clause by clause, as the
  /// watcher would judge it after a save. Relationship key paths read only
  /// what `graph` (by default none) can reach.
  ///
  /// - Returns: nil for a watch that is gone.
  public func explain(_ snapshot: ObjectSnapshot, for watch: WatchID) -> WatchExplanation? {
    let save = ContextSave(
      sequenceNumber: 0, author: nil, contextName: "", inserted: [snapshot], updated: [], deleted: [])
    return explain(snapshot, for: watch, graph: SaveGraph(side: .after, save: save, context: nil))
  }

  /// Tells why a live object matches a watch or not, clause by clause,
  /// following relationships through its context.
  ///
  /// - Returns: nil for a watch that is gone.
  /// - Important: On the object's context's queue.
  public func explain(_ object: ManagedObject, for watch: WatchID) -> WatchExplanation? {
    let save = ContextSave(sequenceNumber: 0, author: nil, contextName: "", inserted: [], updated: [], deleted: [])
    return explain(object.snapshot(), for: watch, graph: SaveGraph(side: .after, save: save, context: object.context))
  }

  private func explain(_ snapshot: ObjectSnapshot, for watch: WatchID, graph: SaveGraph) -> WatchExplanation? {
    guard let entry = filter.withLock({ $0.entry(watch, for: snapshot.layout) }) else { return nil }
    return WatchExplanation(
      entry: entry, image: WatchImage(snapshot: snapshot, graph: graph), schema: schema,
      limits: options.predicateLimits, now: options.clock.now)
  }
}
