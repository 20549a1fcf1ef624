import Foundation
public import ObjectGraph
import PredicateDSL
import Synchronization

/// A sorted, optionally sectioned list of the objects that match a
/// request, kept up to date save by save, with the changes a table or
/// collection view applies as a batch update. CoreStore's `ListMonitor`,
/// NSFetchedResultsController's role.
///
/// ```swift
/// let people = try ListMonitor(
///   context: context,
///   request: ListRequest("Person", where: "age >= 18", sortedBy: [.ascending("city"), .ascending("name")],
///                        sectionedBy: "city"),
///   scheduler: .queue(.main))
/// people.addObserver(tableController)      // will/did change, objects, sections
/// print(people.numberOfSections, people.object(at: ListIndexPath(item: 0, section: 0)))
/// ```
///
/// A list monitor is a watch of its request's predicate, plus an ordered
/// index of the matching objects: the watcher's validation, relationship
/// re-evaluation and delivery order apply. The monitors of a context share
/// one watcher, so a save is routed to the lists it changes through one
/// master filter, whatever the number of lists. It
/// fetches once, when it is created, and from then on applies each save
/// from the objects the save changed, in O(*k* log *n*) for *k* changed
/// objects in a list of *n*, never re-fetching.
///
/// Reads return the content as of the last change delivered to the
/// observers, so that they agree with the index paths the observers got.
/// Read from the monitor's scheduler to see the content observers see;
/// reads from elsewhere are safe and see some delivered content.
public final class ListMonitor: Sendable {
  /// The saving side: what turns a save's watched changes into edits, on
  /// the context's queue.
  ///
  /// A class, replaced whole and never changed, so that a save reads it
  /// with one retain (a struct's copy would retain each of its references).
  private final class SaveSide: Sendable {
    let order: ListOrder
    /// Where the watches send a save's changes: to ``saw(_:)``, on the
    /// saving thread.
    let route: WatchRoute
    let listWatch: WatchID
    /// Watches of the entities a sort key's path reaches: which path, and
    /// the step whose destination the watch watches.
    let pathWatches: [WatchID: (path: Int, step: Int)]
    let tokens: [WatchToken]
    let request: ListRequest

    init(
      order: ListOrder, route: WatchRoute, listWatch: WatchID, pathWatches: [WatchID: (path: Int, step: Int)],
      tokens: [WatchToken], request: ListRequest
    ) {
      self.order = order
      self.route = route
      self.listWatch = listWatch
      self.pathWatches = pathWatches
      self.tokens = tokens
      self.request = request
    }
  }

  /// The context whose objects are listed (held strongly, as
  /// NSFetchedResultsController holds its context).
  public let context: ObjectContext
  /// What the monitor follows: saves (the default), pending changes (see
  /// ``WatchOptions/follows``), or both.
  public let follows: ChangeKinds
  /// The watcher shared by the context's monitors, kept alive by them.
  private let hub: MonitorHub
  /// Nil until the monitor's watches are registered.
  private let saving: LockedState<SaveSide?>
  // `state`, `currentRequest`, `delivery`, `observers` and
  // `hasHadSequences` are internal, not private: the reading and observing
  // halves of the monitor (ListMonitor+Reading.swift, +Observing.swift)
  // reach them. Nothing else in the module does.
  /// The whole list. Delivery jobs (which run one at a time, in order)
  /// change it; readers copy its content under the lock.
  let state: LockedState<ListState>
  /// The request listed, as of the last delivery.
  let currentRequest: LockedState<ListRequest>
  let delivery: MonitorDeliveryQueue
  /// The coalescer of a monitor that does not deliver every save (see
  /// ``DeliveryPolicy``), set once at the end of `init` (it reaches the
  /// monitor); nil for a monitor that delivers every save, which then
  /// allocates nothing for it and takes no lock.
  let coalescer: LockedState<DeliveryCoalescer<ListEditBatch>?>?
  /// What closures registered on the monitor receive: an update, or the
  /// end of the monitor's reports (which only sequences act on).
  enum Signal: Sendable {
    case update(ListMonitorUpdate)
    case finished
  }

  let observers = ObserverList<any ListObserver, Signal>()
  /// Whether an update sequence was ever registered: only then does the
  /// monitor's release have sequences to end.
  let hasHadSequences = Atomic<Bool>(false)
  /// A monitor built on this one (a ``RecordListMonitor``'s relay), held
  /// strongly and told of every change as a whole.
  private let follower: (any ListChangesRelay)?

  /// Creates a monitor of `request` over `context`'s objects, fetched now.
  ///
  /// Call it on the context's queue or off it (it then waits for the
  /// queue); not from inside a save observer.
  ///
  /// - Throws: ``MonitorError``: ``MonitorError/Code/unknownEntity`` for
  ///   an entity the schema does not have, else
  ///   ``MonitorError/Code/invalidRequest`` for an unknown key, a predicate
  ///   that does not apply, a sort key without an order or through a
  ///   to-many relationship, more distinct sort keys than
  ///   ``ListRequest/maximumSortKeyCount``, or a section key that is not the
  ///   first sort key; its ``MonitorError/watchError`` names the key and
  ///   the position.
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler
  ) throws(MonitorError) {
    try self.init(context: context, request: request, scheduler: scheduler, follows: .saves)
  }

  /// Creates a monitor of `request` that follows `follows`: with
  /// ``ChangeKinds/pending``, the list changes as the context publishes its
  /// pending changes, before any save (see
  /// `ObjectContext.processPendingChanges()`), as an
  /// NSFetchedResultsController does; a later save of the same values
  /// changes nothing more, and tells observers nothing.
  ///
  /// ```swift
  /// let drafts = try ListMonitor(
  ///   context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]),
  ///   scheduler: .queue(.main), follows: .pending)
  /// ```
  ///
  /// - Throws: ``MonitorError`` as ``init(context:request:scheduler:)``; an
  ///   empty `follows` is an invalid request.
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds
  ) throws(MonitorError) {
    try self.init(context: context, request: request, scheduler: scheduler, follows: follows, delivery: .everySave)
  }

  /// Creates a monitor of `request` that delivers by `delivery`: coalesced
  /// over an interval or until its observers have finished with the last
  /// change, it delivers one batch update from the list it last delivered
  /// to the current one (see ``DeliveryPolicy``), and `flush()` delivers
  /// what is pending. Intervals, and `now()` in the request's predicate,
  /// are read on `clock`: the system's by default, a `ManualWatchClock` in
  /// tests (pass `.everySave` to set only the clock).
  ///
  /// ```swift
  /// let board = try ListMonitor(
  ///   context: context, request: ListRequest("Person", sortedBy: [.ascending("name")]),
  ///   scheduler: .queue(.main), delivery: .coalesced(every: .milliseconds(250)))
  /// ```
  ///
  /// - Throws: ``MonitorError`` as ``init(context:request:scheduler:follows:)``;
  ///   a coalescing interval that is not positive, or a monitor that
  ///   coalesces and follows both saves and pending changes, is an invalid
  ///   request.
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds = .saves,
    delivery: DeliveryPolicy, clock: any WatchClock = SystemWatchClock.shared
  ) throws(MonitorError) {
    do {
      try self.init(
        context: context, request: request, scheduler: scheduler, follows: follows, delivery: delivery, clock: clock,
        follower: nil)
    } catch {
      throw MonitorError(refusing: error)
    }
  }

  /// Creates a monitor as ``init(context:request:scheduler:)`` does, with a
  /// follower told of each change before and after the observers.
  init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds = .saves,
    delivery policy: DeliveryPolicy = .everySave, clock: any WatchClock = SystemWatchClock.shared,
    follower: (any ListChangesRelay)?
  ) throws(WatchError) {
    let order = try ListOrder(request, schema: context.schema)
    try Self.validate(policy, follows: follows, request: request)
    self.context = context
    self.follows = follows
    hub = MonitorHub.hub(for: context, clock: clock)
    self.follower = follower
    coalescer = policy == .everySave ? nil : LockedState(nil)
    delivery = MonitorDeliveryQueue(scheduler: scheduler, owner: "ListMonitor")
    let sectionName = request.sectionName ?? ListRequest.defaultSectionName
    var empty = ListState(
      order: order, limit: request.limit, offset: request.offset, sectionName: sectionName, sequenceNumber: 0)
    empty.content.sectionIndexTitle = request.sectionIndexTitle ?? ListRequest.defaultSectionIndexTitle
    saving = LockedState(nil)
    state = LockedState(empty)
    currentRequest = LockedState(request)
    // The route reaches the monitor weakly: the watcher never keeps it
    // alive, and a released monitor's watches go with its tokens.
    let route = WatchRoute(saving: { [weak self] changes in self?.saw(changes) })
    // Registered and fetched in one turn of the context's queue, where
    // saves run: no save falls between the fetch and the first edit. The
    // fetch reads `now()` on the watcher's clock, at the time the watch's
    // crossings start from, so that no crossing falls between them either.
    try context.performAndWait { context throws(WatchError) in
      let now = hub.watcher.options.clock.now
      let side = try Self.makeSaveSide(
        request, route: route, watcher: hub.watcher, schema: context.schema, follows: follows, now: now)
      let objects = try Self.fetch(request, order: side.order, context: context, at: now)
      let sequenceNumber = context.sequenceNumber
      state.withLock { state in
        state.sequenceNumber = sequenceNumber
        state.load(objects.objects, derived: objects.derived)
      }
      saving.withLock { $0 = side }
    }
    coalescer?.withLock { coalescer in
      coalescer = DeliveryCoalescer(
        policy: policy, clock: hub.watcher.options.clock, pacedConsumers: 1,
        resume: { [weak context] work in
          // On the context's queue, between saves, as the saves' edits.
          guard let context else { return work() }
          context.perform { _ in work() }
        }
      ) { [weak self] batch, done in
        guard let self else { return done() }
        delivery.enqueue { [weak self] in
          defer { done() }
          guard let self, saving.withLock({ $0?.listWatch }) == batch.listWatch else { return }
          apply(batch.edits, sequenceNumber: batch.sequenceNumber)
        }
      }
    }
  }

  /// Refuses a delivery policy a list monitor cannot keep, as the watcher
  /// refuses it for a watch.
  private static func validate(
    _ policy: DeliveryPolicy, follows: ChangeKinds, request: ListRequest
  ) throws(WatchError) {
    let label = request.displayLabel
    if policy != .everySave && follows == .all {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity,
        message:
          "a coalesced list monitor follows saves or pending changes, not both: a save reports again what its pending changes did"
      )
    }
    if let seconds = policy.seconds, !(seconds > 0) {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity,
        message: "a list monitor coalesced every \(seconds) seconds: the interval must be positive (or use .whenReady)")
    }
  }

  deinit {
    // Ends every update sequence (closure observers ignore the signal);
    // a monitor that never had one releases without reading its observers.
    guard hasHadSequences.load(ordering: .relaxed) else { return }
    for member in observers.snapshot() {
      if case .closure(let closure) = member { closure(.finished) }
    }
  }

  // MARK: Changing the request

  /// Lists another request (a new predicate, arguments, sort or section
  /// keys, limit, offset): one delivery with the changes from the old list
  /// to the new, after those of earlier saves.
  ///
  /// - Throws: ``MonitorError`` as ``init(context:request:scheduler:)``;
  ///   the monitor then keeps its request.
  /// - Complexity: A fetch, and O(*n* log *n*) to order and compare.
  public func setRequest(_ request: ListRequest) throws(MonitorError) {
    do { try replaceList(with: request) } catch { throw MonitorError(refusing: error) }
  }

  /// Fetches the list again, as NSFetchedResultsController's
  /// `performFetch()` and CoreStore's `refetch` do: one delivery with the
  /// changes from the list as it was to the fetch's (none when the list was
  /// current), between ``ListObserver/listMonitorWillRefetch(_:)`` and
  /// ``ListObserver/listMonitorDidRefetch(_:)``.
  ///
  /// - Throws: ``MonitorError`` when the watcher refuses the request
  ///   again (it holds as many watches as it can); the monitor then keeps
  ///   its list.
  /// - Complexity: A fetch, and O(*n* log *n*) to order and compare.
  public func refetch() throws(MonitorError) {
    do { try replaceList(with: request) } catch { throw MonitorError(refusing: error) }
  }

  /// Fetches `request` and replaces the list with it, telling observers
  /// it is a refetch and what changed.
  private func replaceList(with request: ListRequest) throws(WatchError) {
    try context.performAndWait { context throws(WatchError) in
      guard let route = saving.withLock({ $0?.route }) else { return }
      let now = hub.watcher.options.clock.now
      let side = try Self.makeSaveSide(
        request, route: route, watcher: hub.watcher, schema: context.schema, follows: follows, now: now)
      let objects = try Self.fetch(request, order: side.order, context: context, at: now)
      guard
        let previous = saving.withLock({ saving in
          defer { saving = side }
          return saving
        })
      else { return }
      for token in previous.tokens { token.cancel() }
      // The new list's delivery brings every pending edit with it.
      coalescer?.withLock { $0 }?.discardPending()
      let sectionsAreComparable = previous.request.sectionKey == request.sectionKey
      delivery.enqueue { [weak self] in
        guard let self else { return }
        // The new list is built aside, so that observers told it will
        // change still read the old one.
        var next = state.withLock { $0 }
        var changes = next.replace(
          order: side.order, limit: request.limit, offset: request.offset,
          sectionName: request.sectionName ?? ListRequest.defaultSectionName,
          objects: objects.objects, derived: objects.derived, sectionsAreComparable: sectionsAreComparable)
        next.content.sectionIndexTitle = request.sectionIndexTitle ?? ListRequest.defaultSectionIndexTitle
        changes.isRefetch = true
        let members = observers.snapshot()
        follower?.listMonitorWillRefetch(self)
        for case .object(let observer) in members { observer.listMonitorWillRefetch(self) }
        deliver(changes, to: members) {
          state.withLock { $0 = next }
          currentRequest.withLock { $0 = request }
        }
        follower?.listMonitorDidRefetch(self)
        for case .object(let observer) in members { observer.listMonitorDidRefetch(self) }
      }
    }
  }

  // MARK: Saves

  /// Turns the watches' view of a save into edits of the list, on the
  /// saving thread (the context's queue, with the graph after the save at
  /// hand), and hands them to the delivery queue.
  private func saw(_ watched: [WatchChanges]) {
    guard let side = saving.withLock({ $0 }) else { return }
    var edits: [ListEdit] = []
    // The route also serves the watches of sort paths: objects related to
    // listed ones, whose derived values a change may have moved.
    var related: [(far: ObjectID, path: Int, step: Int)] = []
    for changes in watched {
      if changes.watch == side.listWatch {
        appendEdits(of: changes, order: side.order, to: &edits)
      } else if let (path, step) = side.pathWatches[changes.watch] {
        for update in changes.updated { related.append((update.objectID, path, step)) }
      }
    }
    if !related.isEmpty { Self.appendRelatedEdits(related, order: side.order, context: context, to: &edits) }
    guard !edits.isEmpty, let sequenceNumber = watched.first?.sequenceNumber else { return }
    if let coalescer = coalescer?.withLock({ $0 }) {
      coalescer.add(ListEditBatch.Edits(edits: edits, sequenceNumber: sequenceNumber, listWatch: side.listWatch))
      return
    }
    let batch = edits
    delivery.enqueue { [weak self] in self?.apply(batch, sequenceNumber: sequenceNumber) }
  }

  /// Applies one save's edits (or a coalesced batch's) to the list and
  /// tells the observers, on the delivery queue.
  private func apply(_ batch: [ListEdit], sequenceNumber: Int) {
    let skipsUnchanged = follows.contains(.pending)
    let plan = state.withLock { state in
      // Following pending changes, a save usually brings values the list
      // shows already: such edits are dropped, so that nothing is told.
      guard skipsUnchanged else { return state.prepare(batch, sequenceNumber: sequenceNumber) }
      let edits = batch.filter { !state.isUnchanged(by: $0) }
      return state.prepare(edits, sequenceNumber: sequenceNumber)
    }
    guard plan.changesListedObjects else {
      // Only objects outside the window changed: nothing to tell.
      _ = state.withLock { $0.commit(plan) }
      return
    }
    deliver(plan) { state.withLock { $0.commit(plan) } }
  }

  /// The edits of the list watch's objects: one per object, each in one of
  /// the arrays.
  private func appendEdits(of changes: WatchChanges, order: ListOrder, to edits: inout [ListEdit]) {
    edits.reserveCapacity(
      edits.count + changes.inserted.count + changes.updated.count + changes.entered.count + changes.exited.count
        + changes.deleted.count)
    for snapshot in changes.inserted {
      edits.append(Self.edit(listing: snapshot, changedKeys: [], order: order, context: context))
    }
    // The updated objects, then the entered ones: two loops, where a loop
    // over an array of the two would allocate that array.
    for update in changes.updated {
      edits.append(Self.edit(listing: update.after, changedKeys: update.changedKeys, order: order, context: context))
    }
    for update in changes.entered {
      edits.append(Self.edit(listing: update.after, changedKeys: update.changedKeys, order: order, context: context))
    }
    for update in changes.exited {
      edits.append(
        ListEdit(
          objectID: update.objectID, new: nil, derived: [], changedKeys: update.changedKeys, isRelatedOnly: false))
    }
    for snapshot in changes.deleted {
      edits.append(ListEdit(objectID: snapshot.objectID, new: nil, derived: [], changedKeys: [], isRelatedOnly: false))
    }
  }

  /// The edits of listed objects reached from changed related objects
  /// (`far`, changed on the key that `step` of sort path `path` reads): an
  /// object the list watch already edited gets the path's key among its
  /// changed keys when its edit is a related one; any other is re-listed
  /// with its derived values.
  private static func appendRelatedEdits(
    _ related: [(far: ObjectID, path: Int, step: Int)], order: ListOrder, context: ObjectContext,
    to edits: inout [ListEdit]
  ) {
    var edited: [ObjectID: Int] = [:]
    for (index, edit) in edits.enumerated() { edited[edit.objectID] = index }
    for (far, path, step) in related {
      let key = String(order.paths[path].keyPath.prefix { $0 != "." })
      for root in roots(from: far, through: order.paths[path], step: step, in: context) {
        if let index = edited[root.objectID] {
          if edits[index].isRelatedOnly && !edits[index].changedKeys.contains(key) {
            edits[index].changedKeys.append(key)
          }
          continue
        }
        edited[root.objectID] = edits.count
        let derived = order.derivedValues(of: root, in: context)
        edits.append(
          ListEdit(
            objectID: root.objectID, new: order.listed(root.snapshot(), derived: derived), derived: derived,
            changedKeys: [key], isRelatedOnly: true))
      }
    }
  }

  /// Tells the observers (`members`, a snapshot) that the list will
  /// change, makes the change with `change`, then tells them what changed,
  /// on the delivery queue.
  private func deliver(
    _ changes: ListChanges, to members: [ObserverList<any ListObserver, Signal>.Member], change: () -> Void
  ) {
    guard !changes.isEmpty else {
      change()
      return
    }
    follower?.listMonitorWillChange(self)
    for case .object(let observer) in members { observer.listMonitorWillChange(self) }
    change()
    notify(changes, members)
  }

  /// As the other `deliver`, for a save prepared in `plan`.
  private func deliver(_ plan: ListState.Plan, commit: () -> ListChanges) {
    // One snapshot of the observers for the whole delivery: an observer
    // added during it hears of the next one.
    let members = observers.snapshot()
    follower?.listMonitorWillChange(self)
    for case .object(let observer) in members { observer.listMonitorWillChange(self) }
    let changes = commit()
    notify(changes, members)
  }

  private func notify(_ changes: ListChanges, _ members: [ObserverList<any ListObserver, Signal>.Member]) {
    follower?.listMonitor(self, didApply: changes)
    for case .object(let observer) in members {
      guard let observer = observer as? any ListObjectObserver else { continue }
      let sections = observer as? any ListSectionObserver
      for change in changes.deleted { observer.listMonitor(self, didDelete: change.object, at: change.indexPath) }
      for section in changes.deletedSections {
        sections?.listMonitor(self, didDeleteSection: section.info, at: section.index)
      }
      for section in changes.insertedSections {
        sections?.listMonitor(self, didInsertSection: section.info, at: section.index)
      }
      for change in changes.inserted { observer.listMonitor(self, didInsert: change.object, at: change.indexPath) }
      for move in changes.moved {
        observer.listMonitor(self, didMove: move.object, from: move.from, to: move.to, changedKeys: move.changedKeys)
      }
      for change in changes.updated {
        observer.listMonitor(self, didUpdate: change.object, at: change.indexPath, changedKeys: change.changedKeys)
      }
    }
    for case .object(let observer) in members { observer.listMonitorDidChange(self) }
    // A change inside the window can end outside it: no update to hand out.
    guard !changes.isEmpty else { return }
    // Made for the first closure observer: the content is read only then.
    var update: Signal?
    for case .closure(let handler) in members {
      let signal = update ?? .update(ListMonitorUpdate(changes: changes, content: content))
      update = signal
      handler(signal)
    }
  }

  // MARK: Helpers

  /// The watches behind a request: its predicate on its entity, counting
  /// every change of a matching object; and one per step of each sort
  /// key's relationship path, on the key that step reads.
  private static func makeSaveSide(
    _ request: ListRequest, route: WatchRoute, watcher: ContextWatcher, schema: ObjectSchema, follows: ChangeKinds,
    now: Double
  ) throws(WatchError) -> SaveSide {
    let order = try ListOrder(request, schema: schema)
    var options = WatchOptions(label: request.displayLabel, follows: follows)
    options.countsIgnoredKeys = true
    let list = try watcher.watch(
      request.entity, predicate: request.predicate ?? PredicateSyntax(.constant(true)), source: request.predicateSource,
      options: options, route: route, startingAt: now)
    var tokens = [list]
    var pathWatches: [WatchID: (Int, Int)] = [:]
    for (index, path) in order.paths.enumerated() {
      for (step, (_, destination)) in path.steps.enumerated() {
        let token = try watcher.watch(
          destination.name, predicate: PredicateSyntax(.constant(true)),
          options: WatchOptions(events: [.updated], watchedKeys: [path.keysRead[step]], follows: follows), route: route)
        tokens.append(token)
        pathWatches[token.id] = (index, step)
      }
    }
    return SaveSide(
      order: order, route: route, listWatch: list.id, pathWatches: pathWatches, tokens: tokens, request: request)
  }

  /// The objects that match `request` at `now` (what `now()` reads), and
  /// the derived values of each (none when the order reads no
  /// relationship).
  /// An object on which the predicate cannot be evaluated is not listed,
  /// as the watch judges it.
  ///
  /// The context's fetch is tried first, so that a conjunct on an indexed
  /// attribute reads only the objects it selects; when it stops at an
  /// object the predicate cannot be evaluated on, every object is judged
  /// one by one instead.
  private static func fetch(
    _ request: ListRequest, order: ListOrder, context: ObjectContext, at now: Double
  ) throws(WatchError) -> (objects: [ListedObject], derived: [ObjectID: [FilterValue]]) {
    let fetched = EvaluationTime.$now.withValue(now) {
      Result { () throws(WatchError) in try fetch(request, order: order, context: context) }
    }
    return try fetched.get()
  }

  private static func fetch(
    _ request: ListRequest, order: ListOrder, context: ObjectContext
  ) throws(WatchError) -> (objects: [ListedObject], derived: [ObjectID: [FilterValue]]) {
    var derived: [ObjectID: [FilterValue]] = [:]
    func listed(_ object: ManagedObject) -> ListedObject {
      guard !order.paths.isEmpty else { return order.listed(object.snapshot(), derived: []) }
      let values = order.derivedValues(of: object, in: context)
      derived[object.objectID] = values
      return order.listed(object.snapshot(), derived: values)
    }
    if let fetched = try? context.fetch(ObjectFetchRequest(entity: request.entity, predicate: request.predicate)) {
      return (fetched.map(listed), derived)
    }
    let objects: [ManagedObject]
    do {
      objects = try context.fetch(ObjectFetchRequest(entity: request.entity))
    } catch {
      throw WatchError(
        .unknownEntity, watch: request.displayLabel, entity: request.entity, message: "\(error)")
    }
    let filter: CompiledFilter<ManagedObject>?
    if let predicate = request.predicate, let layout = context.schema.layout(named: request.entity) {
      do {
        filter = try CompiledFilter(
          predicate, source: request.predicateSource,
          resolver: ObjectKeyResolver<ManagedObject>(schema: context.schema, layout: layout))
      } catch {
        throw WatchError(watch: request.displayLabel, entity: request.entity, compile: error)
      }
    } else {
      filter = nil
    }
    var matching: [ListedObject] = []
    for object in objects where (try? filter?.evaluate(object)) ?? (filter == nil) {
      matching.append(listed(object))
    }
    return (matching, derived)
  }

  /// The edit that lists `snapshot`'s object as it is now, with its
  /// derived values.
  private static func edit(
    listing snapshot: consuming ObjectSnapshot, changedKeys: [String], order: ListOrder, context: ObjectContext
  ) -> ListEdit {
    let id = snapshot.objectID
    let derived: [FilterValue]
    if order.paths.isEmpty {
      derived = []
    } else if let object = context.object(with: id) {
      derived = order.derivedValues(of: object, in: context)
    } else {
      derived = Array(repeating: .null, count: order.paths.count)
    }
    return ListEdit(
      objectID: id, new: order.listed(snapshot, derived: derived), derived: derived, changedKeys: changedKeys,
      isRelatedOnly: false)
  }

  /// The listed-entity objects that reach `far` along `path`'s first
  /// `step + 1` relationships, walking the inverses back in the live graph.
  private static func roots(
    from far: ObjectID, through path: ListOrder.Path, step: Int, in context: ObjectContext
  ) -> [ManagedObject] {
    guard let object = context.object(with: far) else { return [] }
    var current = [object]
    for index in stride(from: step, through: 0, by: -1) {
      let slot = path.inverseSteps[index].slot
      var next: [ManagedObject] = []
      for object in current {
        guard slot < object.relationships.count else { continue }
        for id in object.relationships[slot].objectIDs {
          if let target = context.object(with: id) { next.append(target) }
        }
      }
      current = next
    }
    return current
  }
}
