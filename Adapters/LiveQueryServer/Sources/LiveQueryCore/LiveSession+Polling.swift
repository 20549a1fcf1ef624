import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL
import WatchFormats

/// The polling baseline: what Hasura's live queries do, for the load tool
/// to compare with. A polling session serves `subscribe` by re-running
/// each subscription's fetch every interval and sending a whole `snapshot`
/// when the result changed; it has no list monitor and no `changes`.
extension LiveSession {
  /// Starts a polled subscription: its first snapshot now, the next ones
  /// from the poll timer.
  ///
  /// - Throws: ``LiveError`` with ``LiveErrorCode/invalidPredicate`` when
  ///   the fetch fails (a key or an operator the entity cannot take).
  func subscribePolled(
    _ request: SubscribeRequest, access: EntityAccess, predicate: PredicateSyntax
  ) throws(LiveError) {
    var fetch = ObjectFetchRequest(entity: request.entity, predicate: predicate, sortedBy: request.sortKeys)
    fetch.limit = request.limit
    let failure: String? = context.performAndWait { context in
      do {
        _ = try context.fetch(fetch)
        return nil
      } catch {
        return "\(error)"
      }
    }
    if let failure { throw LiveError(id: request.id, code: .invalidPredicate, message: failure) }
    let list = PolledList(request: request, access: access, fetch: fetch)
    polls[request.id] = list
    poll(list)
    startPolling()
  }

  private func startPolling() {
    guard pollTimer == nil, let interval = pollingInterval else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let nanoseconds =
      Int(interval.components.seconds) * 1_000_000_000
      + Int(interval.components.attoseconds / 1_000_000_000)
    timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
    timer.setEventHandler { [weak self] in self?.pollAll() }
    timer.resume()
    pollTimer = timer
  }

  private func pollAll() {
    assertOnQueue()
    guard !isClosed else { return }
    for id in polls.keys.sorted() { poll(polls[id]!) }
  }

  /// Runs the fetch, and sends a snapshot when its result differs from the
  /// last one sent.
  private func poll(_ list: PolledList) {
    let fetched: (snapshots: [ObjectSnapshot], sequenceNumber: Int)? = context.performAndWait { context in
      guard let objects = try? context.fetch(list.fetch) else { return nil }
      return (objects.map { $0.snapshot() }, context.sequenceNumber)
    }
    guard let fetched else { return }
    let objects = fetched.snapshots.map {
      LiveObject(ref: refs.ref(for: $0.objectID), values: list.access.values(of: $0))
    }
    let text = JSONValue.array(objects.map { ServerMessage.json($0) }).serialized
    guard text != list.lastObjects else { return }
    list.lastObjects = text
    var sections: [LiveSection] = []
    if let key = list.request.sectionKey {
      var previous: FilterValue?
      for snapshot in fetched.snapshots {
        let value = snapshot[key] ?? .null
        if sections.isEmpty || value != previous {
          let name: String? =
            switch value {
            case .null: nil
            case .string(let text): text
            default: value.description
            }
          sections.append(LiveSection(index: sections.count, name: name, count: 0))
          previous = value
        }
        sections[sections.count - 1].count += 1
      }
    } else {
      sections = [LiveSection(index: 0, name: nil, count: objects.count)]
    }
    let message = SnapshotMessage(
      id: list.request.id, sequenceNumber: fetched.sequenceNumber, sections: sections, objects: objects)
    if !outbox.pushData(
      ServerMessage.snapshot(message).text, subscription: list.request.id, save: nil,
      position: fetched.sequenceNumber)
    {
      // Dropped: the next poll sends it again.
      list.lastObjects = nil
    }
  }
}
