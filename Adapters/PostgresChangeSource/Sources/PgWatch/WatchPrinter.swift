import ContextWatching
import Dispatch
import ObjectGraph
import PostgresChangeSource

/// Follows a replica's context with watches and writes, for every save a
/// watch saw, the lines `context-watch replay --watches` writes: the save's
/// line (with the transaction's commit position as `"position"`), then one
/// line per watch that saw something, in watch order. Objects are named by
/// their primary key as text.
///
/// `@unchecked Sendable`: the mutable state (`delivered`, `isPrinting`) is
/// touched only on the context's queue: by the save observer and the
/// watcher, which run there during each save (`.immediate`), and by
/// ``start()``, which hops onto it. `watcher`, `watches` and `observer`
/// are set once, in `init`.
final class WatchPrinter: @unchecked Sendable {
  /// A watch that does not validate, rendered.
  struct Problems: Error {
    var messages: [String]
  }

  private let replica: PostgresReplica
  private let context: ObjectContext
  private let write: @Sendable (String) -> Void
  private var watcher: ContextWatcher?
  private var watches: [(id: WatchID, label: String, token: WatchToken)] = []
  private var observer: SaveObserverToken?
  private var delivered: [ContextChanges] = []
  private var isPrinting = false

  /// Attaches the watches to the replica's context; nothing is written
  /// before ``start()``.
  ///
  /// - Parameters:
  ///   - write: Writes one line (without its newline) and flushes it;
  ///     called on the context's queue, during the save, so before the
  ///     replica acknowledges the transaction.
  /// - Throws: ``Problems`` with every watch that does not validate.
  init(
    replica: PostgresReplica, watches: [WatchesFile.Watch], write: @escaping @Sendable (String) -> Void
  ) throws(Problems) {
    self.replica = replica
    context = replica.context
    self.write = write
    // Observers run in registration order: the watcher, registered
    // first, has delivered by the time the lines are written.
    let watcher = ContextWatcher(
      context: context, target: .handler(on: .immediate) { [unowned self] changes in self.delivered.append(changes) })
    var problems: [String] = []
    for watch in watches {
      do {
        let token = try watcher.watch(
          watch.entity, where: watch.predicate, arguments: watch.arguments, options: watch.options)
        self.watches.append((token.id, watch.id, token))
      } catch {
        problems.append(error.detailedDescription())
      }
    }
    guard problems.isEmpty else { throw Problems(messages: problems) }
    self.watcher = watcher
    observer = context.addSaveObserver { [unowned self] save in self.printSave(save) }
  }

  /// Starts writing: saves from now on (after the load) are written.
  func start() {
    context.queue.sync { isPrinting = true }
  }

  private func printSave(_ save: ContextSave) {
    let deliveries = delivered
    delivered = []
    guard isPrinting, let position = replica.position(ofSave: save.sequenceNumber) else { return }
    let lines = watchLines(deliveries)
    guard !lines.isEmpty else { return }
    write(saveLine(save, position: position).serialized)
    for line in lines { write(line.serialized) }
  }

  // MARK: The lines of `context-watch replay`

  private func ref(_ id: ObjectID) -> String { replica.primaryKey(of: id) ?? id.description }

  /// One line per watch that saw something, in watch order.
  private func watchLines(_ deliveries: [ContextChanges]) -> [WatchJSON] {
    let events = WatchEvent.allCases
    return deliveries.flatMap { changes in
      var seen: [WatchID: [[String]]] = [:]
      for attribution in changes.attribution {
        let name = ref(attribution.objectID)
        for match in attribution.matches {
          guard let slot = events.firstIndex(of: match.event) else { continue }
          seen[match.watch, default: Array(repeating: [], count: events.count)][slot].append(name)
        }
      }
      return watches.compactMap { watch -> WatchJSON? in
        guard let refs = seen[watch.id] else { return nil }
        return .object(
          [("save", .int(Int64(changes.sequenceNumber))), ("watch", .string(watch.label))]
            + zip(events, refs).map { ($0.rawValue, .array($1.sorted().map(WatchJSON.string))) })
      }
    }
  }

  /// `{"save", "position", "inserted", "updated", "deleted"}`, objects
  /// sorted by ref.
  private func saveLine(_ save: ContextSave, position: PostgresPosition) -> WatchJSON {
    let touched = Set(save.inserted.map(\.objectID) + save.updated.map(\.objectID) + save.deleted.map(\.objectID))
    func values(_ snapshot: ObjectSnapshot) -> WatchJSON {
      .object(snapshot.keys.compactMap { key in snapshot.property(key).map { (key, json($0)) } })
    }
    func object(_ snapshot: ObjectSnapshot) -> (String, WatchJSON) {
      let name = ref(snapshot.objectID)
      return (
        name,
        .object([("ref", .string(name)), ("entity", .string(snapshot.entityName)), ("values", values(snapshot))])
      )
    }
    let updated = save.updated.map { update in
      let name = ref(update.objectID)
      return (
        name,
        WatchJSON.object([
          ("ref", .string(name)), ("entity", .string(update.after.entityName)),
          ("changed", .object(update.changes.map { ($0.key, change($0.old, $0.new, touched: touched)) })),
        ])
      )
    }
    func sorted(_ items: [(String, WatchJSON)]) -> WatchJSON { .array(items.sorted { $0.0 < $1.0 }.map(\.1)) }
    return .object([
      ("save", .int(Int64(save.sequenceNumber))), ("position", .string(position.description)),
      ("inserted", sorted(save.inserted.map(object))), ("updated", sorted(updated)),
      ("deleted", sorted(save.deleted.map(object))),
    ])
  }

  private func json(_ value: PropertyValue) -> WatchJSON {
    switch value {
    case .attribute(let value): WatchJSON(value)
    case .relationship(.toOne(let id)): id.map { .string(ref($0)) } ?? .null
    case .relationship(.toMany(let ids)): refList(ids)
    }
  }

  private func refList(_ ids: some Sequence<ObjectID>) -> WatchJSON {
    .array(ids.map(ref).sorted().map(WatchJSON.string))
  }

  /// `{"old", "new"}` for an attribute or a to-one relationship, `{"added",
  /// "removed"}` refs for a to-many relationship. Members join or leave a
  /// to-many relationship only through their own inverse, so they are
  /// among the save's objects (`touched`), and only those are looked up
  /// when they are fewer than the set's members.
  private func change(_ old: PropertyValue, _ new: PropertyValue, touched: Set<ObjectID>) -> WatchJSON {
    guard case .relationship(.toMany(let before)) = old, case .relationship(.toMany(let after)) = new else {
      return .object([("old", json(old)), ("new", json(new))])
    }
    var added: [ObjectID] = []
    var removed: [ObjectID] = []
    let scanTouched = touched.count < before.count + after.count
    if scanTouched {
      for id in touched {
        switch (before.contains(id), after.contains(id)) {
        case (false, true): added.append(id)
        case (true, false): removed.append(id)
        default: break
        }
      }
    }
    if !scanTouched || added.count - removed.count != after.count - before.count {
      added = Array(after.subtracting(before))
      removed = Array(before.subtracting(after))
    }
    return .object([("added", refList(added)), ("removed", refList(removed))])
  }
}
