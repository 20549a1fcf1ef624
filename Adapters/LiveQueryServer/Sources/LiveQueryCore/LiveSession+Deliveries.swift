import ContextWatching
import Dispatch
import ObjectGraph
import Synchronization

/// The list monitors' updates waiting for a session's queue, in the order
/// the saving thread handed them over.
struct ListArrivals {
  /// One update of one list.
  struct Arrival {
    let subscription: ListSubscription
    let update: ListMonitorUpdate
    /// The label of the monitor's new request, for a refetch's update.
    let label: String?
  }

  var waiting: [Arrival] = []
  /// A job on the session's queue will take what waits.
  var isScheduled = false
}

extension LiveSession {
  /// Takes a list monitor's update, on the thread that applied it (the
  /// saving thread, or the session's queue for an `update`'s refetch): the
  /// first update of a save to wait queues the one job that hands the
  /// session all of them.
  func arrive(_ subscription: ListSubscription, _ update: ListMonitorUpdate) {
    // The request the refetch listed is the monitor's until its next
    // refetch, which only the session's queue asks for.
    let label = update.changes.isRefetch ? subscription.monitor.request.label : nil
    let schedules = arrivals.withLock { arrivals in
      arrivals.waiting.append(ListArrivals.Arrival(subscription: subscription, update: update, label: label))
      defer { arrivals.isScheduled = true }
      return !arrivals.isScheduled
    }
    if schedules { queue.async { self.handleArrivals() } }
  }

  /// Turns the waiting updates into frames, in the order they arrived.
  func handleArrivals() {
    assertOnQueue()
    let waiting = arrivals.withLock { arrivals in
      defer {
        arrivals.waiting = []
        arrivals.isScheduled = false
      }
      return arrivals.waiting
    }
    for arrival in waiting { listChanged(arrival.subscription, arrival.update, label: arrival.label) }
  }

  /// Sends a subscription's whole list as the session last saw it, or
  /// marks it behind when the outbox is full.
  func sendSnapshot(_ subscription: ListSubscription) {
    assertOnQueue()
    let content = subscription.content
    let access = subscription.access
    var sections: [LiveSection] = []
    for index in 0..<content.numberOfSections {
      let info = content.section(at: index)
      sections.append(LiveSection(index: index, name: info.name, count: info.count))
    }
    let objects = content.snapshots.map { LiveObject(ref: refs.ref(for: $0.objectID), values: access.values(of: $0)) }
    let message = SnapshotMessage(
      id: subscription.request.id, sequenceNumber: subscription.contentSequence, sections: sections,
      objects: objects)
    push(ServerMessage.snapshot(message).text, for: subscription, save: nil, position: message.sequenceNumber)
  }

  /// Turns a list monitor's changes into a `changes` frame: values and
  /// changed keys cut to the readable ones, and updates that changed no
  /// readable key left out (the client's copy of them is still right).
  ///
  /// The first delivery under the latest request's label answers the
  /// awaited `update` (saves delivered before it are changes of the old
  /// request). It is sent even when empty. A save's update that the first
  /// snapshot holds already is skipped.
  func listChanged(_ subscription: ListSubscription, _ update: ListMonitorUpdate, label: String?) {
    assertOnQueue()
    guard lists[subscription.request.id] === subscription else { return }
    let changes = update.changes
    guard changes.isRefetch || changes.sequenceNumber > subscription.skipsThrough else { return }
    subscription.content = update.content
    subscription.contentSequence = changes.sequenceNumber
    if let label { subscription.deliveredLabel = label }
    let answersUpdate = subscription.awaitsUpdate && subscription.deliveredLabel == subscription.label
    if answersUpdate { subscription.awaitsUpdate = false }
    guard !subscription.isBehind else { return }
    let access = subscription.access
    func object(_ snapshot: ObjectSnapshot, _ changedKeys: [String], values: Bool = true) -> LiveObject {
      LiveObject(
        ref: refs.ref(for: snapshot.objectID), values: values ? access.values(of: snapshot) : nil,
        changedKeys: access.readableKeys(changedKeys))
    }
    var message = ChangesMessage(id: subscription.request.id, sequenceNumber: changes.sequenceNumber)
    message.deletedSections = changes.deletedSections.map(\.index)
    message.insertedSections = changes.insertedSections.map {
      LiveSection(index: $0.index, name: $0.info.name, count: $0.info.count)
    }
    message.deleted = changes.deleted.map { LiveRow(path: $0.indexPath, object: object($0.object, [], values: false)) }
    message.inserted = changes.inserted.map { LiveRow(path: $0.indexPath, object: object($0.object, $0.changedKeys)) }
    message.moved = changes.moved.map { LiveMove(from: $0.from, to: $0.to, object: object($0.object, $0.changedKeys)) }
    message.updated = changes.updated.compactMap { change in
      let row = LiveRow(path: change.indexPath, object: object(change.object, change.changedKeys))
      return row.object.changedKeys.isEmpty ? nil : row
    }
    let isEmpty =
      message.deletedSections.isEmpty && message.insertedSections.isEmpty && message.deleted.isEmpty
      && message.inserted.isEmpty && message.moved.isEmpty && message.updated.isEmpty
    guard !isEmpty || answersUpdate else { return }
    sendChanges(subscription, message)
  }

  func sendChanges(_ subscription: ListSubscription, _ message: ChangesMessage) {
    assertOnQueue()
    guard !subscription.isBehind else { return }
    push(
      ServerMessage.changes(message).text, for: subscription, save: message.sequenceNumber,
      position: message.sequenceNumber)
  }

  /// Pushes a data frame of a list, or drops the list's waiting frames and
  /// marks it behind when the outbox is full.
  private func push(_ text: String, for subscription: ListSubscription, save: Int?, position: Int) {
    if !outbox.pushData(text, subscription: subscription.request.id, save: save, position: position) {
      subscription.isBehind = true
      outbox.dropFrames(of: subscription.request.id)
    }
  }

  /// Turns a watch's changes into an `event` frame. Exited objects carry
  /// their refs alone; updates that changed no readable key are left out.
  /// Once one event does not fit, the watch's events are dropped until the
  /// catch-up, which names the saves they came from.
  func watchChanged(_ subscription: WatchSubscription, _ changes: WatchChanges) {
    assertOnQueue()
    guard watches[subscription.request.id] === subscription else { return }
    let access = subscription.access
    func object(_ snapshot: ObjectSnapshot, _ changedKeys: [String] = []) -> LiveObject {
      LiveObject(
        ref: refs.ref(for: snapshot.objectID), values: access.values(of: snapshot),
        changedKeys: access.readableKeys(changedKeys))
    }
    let message = EventMessage(
      id: subscription.request.id, sequenceNumber: changes.sequenceNumber,
      inserted: changes.inserted.map { object($0) },
      updated: changes.updated.map { object($0.after, $0.changedKeys) }.filter { !$0.changedKeys.isEmpty },
      entered: changes.entered.map { object($0.after, $0.changedKeys) },
      exited: changes.exited.map { LiveObject(ref: refs.ref(for: $0.objectID)) },
      deleted: changes.deleted.map { object($0) })
    guard !message.isEmpty else { return }
    if let missed = subscription.missed {
      subscription.missed = missed.lowerBound...changes.sequenceNumber
    } else if !outbox.pushData(
      ServerMessage.event(message).text, subscription: subscription.request.id, save: changes.sequenceNumber,
      position: changes.sequenceNumber)
    {
      // The events already waiting stay: they come before the first one
      // dropped, which the catch-up's note names.
      subscription.missed = changes.sequenceNumber...changes.sequenceNumber
      outbox.requestCatchUp()
    }
  }

  /// After the client drained: a fresh snapshot for every list whose
  /// changes were dropped, and an `eventsDropped` error for every watch
  /// whose events were.
  func catchUp() {
    assertOnQueue()
    guard !isClosed else { return }
    for id in lists.keys.sorted() {
      let subscription = lists[id]!
      guard subscription.isBehind else { continue }
      subscription.isBehind = false
      sendSnapshot(subscription)
    }
    for id in watches.keys.sorted() {
      let subscription = watches[id]!
      if let lostAfter = subscription.lostAfter {
        subscription.lostAfter = nil
        outbox.pushControl(
          ServerMessage.error(
            LiveError(
              id: id, code: .eventsDropped,
              message: "events after save \(lostAfter) may have been lost with the connection; fetch again")
          ).text)
      }
      guard let missed = subscription.missed else { continue }
      subscription.missed = nil
      let saves = missed.count == 1 ? "save \(missed.lowerBound)" : "saves \(missed.lowerBound) to \(missed.upperBound)"
      outbox.pushControl(
        ServerMessage.error(
          LiveError(
            id: id, code: .eventsDropped,
            message: "the events of \(saves) were dropped because the client did not read; fetch again")
        ).text, about: id, position: missed.upperBound)
    }
  }
}
