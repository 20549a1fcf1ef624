import ObjectGraph
import PredicateDSL

/// The alarm of a watcher's timed watches, and where their crossings are
/// judged.
struct TimingState {
  /// The context watched, whose queue crossings are judged on (in order
  /// with its saves); nil for a watcher fed with `process(_:)`.
  weak var context: ObjectContext?
  /// The time the alarm is set for, and the alarm.
  var deadline: Double?
  var alarm: WatchAlarm?
}

/// A delivery caused by time passing, and its watches' own changes.
struct TimePassed {
  var changes: ContextChanges?
  var routes: [RoutedChanges]
}

extension ContextWatcher {
  /// Classifies a save for a watcher with timed watches: first the
  /// crossings due at the clock's time (a delivery of their own, in
  /// `passed`), then the save with `now()` read from the same clock; then
  /// keeps the saved objects' next crossings and sets the alarm for the
  /// earliest.
  func classifyTimed(
    _ save: ContextSave, context: ObjectContext?, filter: inout MasterFilter, routes: inout [RoutedChanges],
    passed: inout TimePassed?
  ) -> ContextChanges? {
    let now = options.clock.now
    var timeRoutes: [RoutedChanges] = []
    let timeChanges = filter.classifyCrossings(at: now, context: context, delivers: delivers, routes: &timeRoutes)
    if timeChanges != nil || !timeRoutes.isEmpty { passed = TimePassed(changes: timeChanges, routes: timeRoutes) }
    let changes = EvaluationTime.$now.withValue(now) {
      filter.classify(save, context: context, delivers: delivers, routes: &routes)
    }
    filter.track(save, at: now)
    setAlarm(for: filter.earliestCrossing)
    return changes
  }

  /// Keeps the crossings of a save by an ignored author without
  /// classifying or delivering the save: its objects' thresholds move, or
  /// go with the objects it deleted, so that time passing judges the values
  /// it saved. The crossings due before it are delivered first, as before
  /// any save.
  func trackIgnored(_ save: ContextSave, context: ObjectContext?) {
    var routes: [RoutedChanges] = []
    let changes: ContextChanges? = filter.withLock { filter in
      // Most watchers have no timed watch: nothing to keep.
      guard filter.hasTimedWatches else { return nil }
      let now = options.clock.now
      let changes = filter.classifyCrossings(at: now, context: context, delivers: delivers, routes: &routes)
      filter.track(save, at: now)
      setAlarm(for: filter.earliestCrossing)
      return changes
    }
    deliver(TimePassed(changes: changes, routes: routes))
  }

  /// Delivers what time passing changed.
  func deliver(_ passed: TimePassed) {
    if let changes = passed.changes { pipeline.deliver(changes) }
    if !passed.routes.isEmpty { WatchRoute.deliver(passed.routes) }
  }

  /// Sets the alarm for `deadline` unless it is set for it already.
  /// Called under the filter's lock, so that alarms follow its changes in
  /// order.
  func setAlarm(for deadline: Double?) {
    timing.withLock { timing in
      guard timing.deadline != deadline || (deadline != nil && timing.alarm == nil) else { return }
      timing.alarm?.cancel()
      timing.alarm = nil
      timing.deadline = deadline
      guard let deadline else { return }
      timing.alarm = options.clock.schedule(at: deadline) { [weak self] in self?.alarmRang() }
    }
  }

  /// Starts a watch just added on the objects that exist already, if it
  /// compares with `now()`: with `now`, at once and as of that time (the
  /// caller is on the context's queue); else on the context's queue, after
  /// the work queued there before it, at the clock's time then.
  func startTiming(_ id: WatchID, at now: Double? = nil) {
    let entities = filter.withLock { $0.timedEntities(id) }
    guard !entities.isEmpty, let context = timing.withLock({ $0.context }) else { return }
    guard let now else {
      context.perform { [weak self] context in
        guard let self else { return }
        seed(id, entities: entities, from: context, at: options.clock.now)
      }
      return
    }
    seed(id, entities: entities, from: context, at: now)
  }

  /// Keeps the next crossings after `now` of the objects of `entities`
  /// for the watch `id`, and sets the alarm: as the objects are for a
  /// watch that follows pending changes, as last saved for one that
  /// follows saves alone. On the context's queue.
  private func seed(
    _ id: WatchID, entities: [(name: String, followsPending: Bool)], from context: ObjectContext, at now: Double
  ) {
    var live: [ObjectSnapshot] = []
    var saved: [ObjectSnapshot] = []
    for entity in Set(entities.filter(\.followsPending).map(\.name)).sorted() {
      guard let objects = try? context.objects(of: entity) else { continue }
      live.append(contentsOf: objects.map { $0.snapshot() })
    }
    for entity in Set(entities.filter { !$0.followsPending }.map(\.name)).sorted() {
      guard let snapshots = try? context.savedSnapshots(of: entity) else { continue }
      saved.append(contentsOf: snapshots)
    }
    filter.withLock { filter in
      filter.seed(id, live: live, saved: saved, at: now)
      setAlarm(for: filter.earliestCrossing)
    }
  }

  /// The alarm rang: judge the crossings due, on the context's queue when
  /// there is one.
  private func alarmRang() {
    let context = timing.withLock { timing in
      timing.alarm = nil
      timing.deadline = nil
      return timing.context
    }
    guard let context else {
      processCrossings(context: nil)
      return
    }
    context.perform { [weak self] context in self?.processCrossings(context: context) }
  }

  /// Delivers the crossings due at the clock's time and sets the alarm for
  /// the next.
  func processCrossings(context: ObjectContext?) {
    var routes: [RoutedChanges] = []
    let changes = filter.withLock { filter in
      let changes = filter.classifyCrossings(
        at: options.clock.now, context: context, delivers: delivers, routes: &routes)
      setAlarm(for: filter.earliestCrossing)
      return changes
    }
    deliver(TimePassed(changes: changes, routes: routes))
  }
}
