import ContextWatching
import Dispatch
import ObjectGraph
import PredicateDSL

extension LiveSession {
  /// Parses and serves one frame.
  func handle(_ text: String) {
    assertOnQueue()
    guard !isClosed else { return }
    do throws(LiveError) {
      switch try ClientMessage.parse(text, limits: limits) {
      case .subscribe(let request): try subscribe(request)
      case .watch(let request): try watch(request)
      case .update(let request): try update(request)
      case .unsubscribe(let id):
        guard lists[id] != nil || watches[id] != nil || polls[id] != nil else {
          throw LiveError(id: id, code: .unknownID, message: "no subscription or watch has the id '\(id)'")
        }
        end(id)
      case .ping(let id): outbox.pushControl(ServerMessage.pong(id: id).text)
      }
    } catch {
      outbox.pushControl(ServerMessage.error(error).text)
    }
  }

  /// Refuses a frame the transport stopped reading at the frame limit.
  func refuseOversized() {
    assertOnQueue()
    guard !isClosed else { return }
    let error = LiveError(
      id: nil, code: .frameTooLarge,
      message: "the frame has more than \(limits.maximumFrameBytes) bytes, the most a frame may have")
    outbox.pushControl(ServerMessage.error(error).text)
  }

  /// Refuses an id in use, and a request beyond the subscription limit.
  private func admit(_ id: String) throws(LiveError) {
    guard lists[id] == nil, watches[id] == nil, polls[id] == nil else {
      throw LiveError(id: id, code: .duplicateID, message: "the id '\(id)' is taken by a live subscription or watch")
    }
    guard lists.count + watches.count + polls.count < limits.maximumSubscriptions else {
      throw LiveError(
        id: id, code: .tooManySubscriptions,
        message:
          "a connection holds at most \(limits.maximumSubscriptions) subscriptions and watches; unsubscribe one first")
    }
  }

  /// The client's predicate parsed, its keys checked, restricted by the
  /// read predicate.
  private func restricted(
    _ text: String?, _ arguments: [FilterValue], access: EntityAccess, id: String
  ) throws(LiveError) -> PredicateSyntax {
    var client: PredicateSyntax?
    if let text {
      do {
        client = try PredicateParser.parse(text, arguments: arguments)
      } catch {
        throw LiveError(id: id, code: .invalidPredicate, message: error.detailedDescription())
      }
      try access.checkKeys(PredicateKeys.keyPaths(client!), id: id)
    }
    return access.restricting(client)
  }

  /// The list request a subscription's request stands for.
  private func listRequest(
    _ request: SubscribeRequest, access: EntityAccess, label: String
  ) throws(LiveError) -> ListRequest {
    try access.checkKeys(request.sortKeys.map(\.key) + (request.sectionKey.map { [$0] } ?? []), id: request.id)
    let predicate = try restricted(request.predicate, request.arguments, access: access, id: request.id)
    return ListRequest(
      request.entity, predicate: predicate, source: request.predicate ?? "TRUEPREDICATE", sortedBy: request.sortKeys,
      sectionedBy: request.sectionKey, limit: request.limit, label: label)
  }

  /// A list monitor's refusal of a subscription: the watch's refusal
  /// behind it, when there is one.
  private static func refusal(_ error: MonitorError, id: String) -> LiveError {
    if let refusal = error.watchError { return Self.refusal(refusal, id: id) }
    return LiveError(
      id: id, code: error.code == .unknownEntity ? .entityNotReadable : .invalidRequest, message: error.message)
  }

  private static func refusal(_ error: WatchError, id: String) -> LiveError {
    let code: LiveErrorCode =
      switch error.code {
      case .invalidPredicate: .invalidPredicate
      case .unknownKey: .keyNotReadable
      case .unknownEntity: .entityNotReadable
      default: .invalidRequest
      }
    let message = error.detailedDescription()
    let prefix = "watch '\(error.watch)' on \(error.entity):"
    let trimmed = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    return LiveError(id: id, code: code, message: trimmed.drop { $0 == " " || $0 == "\n" }.description)
  }

  private func subscribe(_ request: SubscribeRequest) throws(LiveError) {
    try admit(request.id)
    let access = try security.access(request.entity, id: request.id)
    let listRequest = try listRequest(request, access: access, label: "\(request.id)#0")
    if pollingInterval != nil {
      try subscribePolled(request, access: access, predicate: listRequest.predicate ?? PredicateSyntax(.constant(true)))
      return
    }
    let monitor: ListMonitor
    do {
      // Applied on the saving thread: the session takes the updates of a
      // save together (see `arrive(_:_:)`).
      monitor = try ListMonitor(context: context, request: listRequest, scheduler: .immediate)
    } catch {
      throw Self.refusal(error, id: request.id)
    }
    let subscription = ListSubscription(request: request, access: access, monitor: monitor)
    lists[request.id] = subscription
    subscription.token = monitor.observe { [weak self, weak subscription] update in
      guard let self, let subscription else { return }
      arrive(subscription, update)
    }
    // Observed from now: the snapshot holds the saves before.
    subscription.takeCurrentContent()
    sendSnapshot(subscription)
  }

  private func watch(_ request: WatchRequest) throws(LiveError) {
    try admit(request.id)
    let access = try security.access(request.entity, id: request.id)
    let predicate = try restricted(request.predicate, request.arguments, access: access, id: request.id)
    let subscription = WatchSubscription(request: request, access: access)
    do {
      subscription.token = try watcher.watch(
        request.entity, predicate: predicate, source: request.predicate ?? "TRUEPREDICATE",
        options: WatchOptions(events: request.events, label: request.id),
        handler: .changes(on: .queue(queue)) { [weak self, weak subscription] changes in
          guard let self, let subscription else { return }
          watchChanged(subscription, changes)
        })
    } catch {
      throw Self.refusal(error, id: request.id)
    }
    watches[request.id] = subscription
  }

  private func update(_ update: UpdateRequest) throws(LiveError) {
    guard polls[update.id] == nil else {
      throw LiveError(id: update.id, code: .invalidRequest, message: "the polling baseline does not serve update")
    }
    guard let subscription = lists[update.id] else {
      let what = watches[update.id] != nil ? "'\(update.id)' is a watch; a watch cannot be updated" : nil
      throw LiveError(
        id: update.id, code: what == nil ? .unknownID : .invalidRequest,
        message: what ?? "no subscription has the id '\(update.id)'")
    }
    var request = subscription.request
    if let predicate = update.predicate {
      request.predicate = predicate
      request.arguments = update.arguments ?? []
    } else if let arguments = update.arguments {
      request.arguments = arguments
    }
    if let sortKeys = update.sortKeys { request.sortKeys = sortKeys }
    if let sectionKey = update.sectionKey { request.sectionKey = sectionKey }
    if let limit = update.limit { request.limit = limit }
    let label = "\(request.id)#\(subscription.generation + 1)"
    let listRequest = try listRequest(request, access: subscription.access, label: label)
    do {
      try subscription.monitor.setRequest(listRequest)
    } catch {
      throw Self.refusal(error, id: update.id)
    }
    subscription.generation += 1
    subscription.request = request
    subscription.awaitsUpdate = true
    // The monitor listed the new request on this thread: its update waits
    // behind the updates of earlier saves. None comes when the lists are
    // equal; an empty `changes` answers then.
    handleArrivals()
    guard subscription.awaitsUpdate else { return }
    subscription.awaitsUpdate = false
    subscription.deliveredLabel = subscription.label
    sendChanges(
      subscription, ChangesMessage(id: subscription.request.id, sequenceNumber: subscription.contentSequence))
  }

  /// Ends a subscription or watch and drops its waiting frames.
  func end(_ id: String) {
    assertOnQueue()
    if let subscription = lists.removeValue(forKey: id) {
      subscription.token?.cancel()
    }
    if let subscription = watches.removeValue(forKey: id) {
      subscription.token?.cancel()
    }
    polls[id] = nil
    outbox.removeFrames(of: id)
  }
}
