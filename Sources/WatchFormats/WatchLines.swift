import ContextWatching
public import ObjectGraph

/// The watches of a watches file on a context, and the line per watch that
/// `context-watch replay` and `pg-watch watch` print after each save's
/// line: `{"save", "watch", "inserted", "updated", "entered", "exited",
/// "deleted"}`, one per watch that saw something, in watch order, each
/// array of refs sorted. A delivery of pending changes (to a watch that
/// follows them) has `"cause": "pending"` after `"watch"`, and `"save"` is
/// the last save before them; one of time passing has
/// `"cause": "timePassed"`.
///
/// The watches deliver on the saving thread, during the save; the caller
/// takes the lines once the save is done (after `save()` returns, or in a
/// save observer added after this object):
///
/// ```swift
/// let lines = try WatchLines(context: context, watches: file.watches)
/// try context.save()
/// for line in lines.take(ref: { id in names[id] ?? id.description }) {
///   print(line.serialized)
///   // {"save":1,"watch":"adults","inserted":["ann"],"updated":[],"entered":[],"exited":[],"deleted":[]}
/// }
/// ```
///
/// The watches stay registered as long as this object lives.
public final class WatchLines: Sendable {
  /// Kept so that the watcher, and with it the watches, live as long as
  /// this object.
  private let watcher: ContextWatcher
  private let watches: [(id: WatchID, label: String, token: WatchToken)]
  /// What the watcher delivered since the last ``take(ref:)`` or
  /// ``discard()``, in save order.
  private let delivered: LockedState<[ContextChanges]>

  /// Registers `watches` on a new watcher of `context`: all or none.
  ///
  /// - Parameters:
  ///   - context: The context to watch.
  ///   - watches: The watches of a ``WatchesFile``, in the order their
  ///     lines come.
  /// - Throws: ``WatchesFile/Problems`` with the rendered error of every
  ///   watch that does not validate against the context's schema (unknown
  ///   entity or key, a predicate that does not parse, with a caret under
  ///   the spot); then no watch is registered.
  /// - Complexity: O(*w*) in the watches, each compiled once.
  public init(context: ObjectContext, watches: [WatchesFile.Watch]) throws(WatchesFile.Problems) {
    let delivered = LockedState<[ContextChanges]>([])
    let watcher = ContextWatcher(
      context: context, target: .handler(on: .immediate) { changes in delivered.withLock { $0.append(changes) } })
    var problems: [String] = []
    var added: [(WatchID, String, WatchToken)] = []
    for watch in watches {
      do {
        let token = try watcher.watch(
          watch.entity, where: watch.predicate, arguments: watch.arguments, options: watch.options)
        added.append((token.id, watch.id, token))
      } catch {
        problems.append(error.detailedDescription())
      }
    }
    if !problems.isEmpty { throw WatchesFile.Problems(messages: problems) }
    self.watcher = watcher
    self.watches = added
    self.delivered = delivered
  }

  /// The lines of what the watches saw since the last call (or since
  /// ``discard()``), in save order, then watch order; none when they saw
  /// nothing.
  ///
  /// - Parameter ref: The name of an object in the lines: the caller's
  ///   ref, or a primary key.
  /// - Returns: One line per save and watch that saw something.
  /// - Complexity: O(*m* + *w*) per save for *m* matches and *w* watches,
  ///   sorting refs aside: the matches are indexed by watch once, not
  ///   searched once per watch and event.
  public func take(ref: (ObjectID) -> String) -> [JSONValue] {
    let deliveries = delivered.withLock { taken in
      defer { taken = [] }
      return taken
    }
    return deliveries.flatMap { lines($0, ref: ref) }
  }

  /// Forgets what the watches saw since the last ``take(ref:)``, without
  /// rendering it: for saves that print nothing, such as a replica's load.
  public func discard() {
    delivered.withLock { $0 = [] }
  }

  private func lines(_ changes: ContextChanges, ref: (ObjectID) -> String) -> [JSONValue] {
    let events = WatchEvent.allCases
    var seen: [WatchID: [[String]]] = [:]
    for attribution in changes.attribution {
      let name = ref(attribution.objectID)
      for match in attribution.matches {
        guard let slot = events.firstIndex(of: match.event) else { continue }
        seen[match.watch, default: Array(repeating: [], count: events.count)][slot].append(name)
      }
    }
    let cause: [(String, JSONValue)] =
      switch changes.cause {
      case .save: []
      case .pending: [("cause", .string("pending"))]
      case .timePassed: [("cause", .string("timePassed"))]
      }
    return watches.compactMap { watch in
      guard let refs = seen[watch.id] else { return nil }
      return .object(
        [("save", .int(Int64(changes.sequenceNumber))), ("watch", .string(watch.label))] + cause
          + zip(events, refs).map { ($0.rawValue, .array($1.sorted().map(JSONValue.string))) })
    }
  }
}
