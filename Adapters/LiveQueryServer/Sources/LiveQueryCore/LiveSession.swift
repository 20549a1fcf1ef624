public import ContextWatching
public import Dispatch
public import ObjectGraph
public import PredicateDSL
import Synchronization

/// One client connection's live queries: its subscriptions (a list monitor
/// each) and watches (on a shared watcher), restricted by row security,
/// turned into frames in a bounded ``outbox``.
///
/// ```swift
/// let session = LiveSession(
///   context: context, watcher: watcher, policy: policy, claims: ["sub": "u1", "role": "user"])
/// session.receive(#"{"op":"subscribe","id":"s1","entity":"Task","sort":[{"key":"title"}]}"#)
/// let frames = session.outbox.drain()   // the transport sends these
/// ```
///
/// **Threading.** Every request and every delivery runs on the session's
/// own serial ``queue``: ``receive(_:)`` hops there; the list monitors
/// apply each save on the saving thread and hand their updates to the
/// session, which takes all those waiting in one job on its queue (one hop
/// per session a save touches, however many of its lists it changes); the
/// watches' schedulers are queues that target it. So the session's state
/// is touched by one job at a time and a delivery never interleaves with a
/// request. The saver never waits for a session. The outbox is
/// `Sendable`; the transport drains it from any thread.
///
/// **Watcher.** Create the shared watcher with
/// `DeliveryTarget.watchHandlers(on:)`: the session gives each watch a
/// handler of its own, and the watcher then builds no other delivery.
public final class LiveSession: @unchecked Sendable {
  // @unchecked Sendable: `lists`, `watches`, `polls`, `pollTimer` and
  // `isClosed` are only touched on `queue` (every entry point hops there
  // or checks it with `dispatchPrecondition`); `arrivals` is a mutex; the
  // other stored properties are immutable and Sendable.

  /// The frames waiting for the client.
  public let outbox: LiveOutbox
  /// The serial queue the session's requests and deliveries run on.
  public let queue: DispatchQueue
  let context: ObjectContext
  let watcher: ContextWatcher
  let security: SessionSecurity
  let refs: ObjectRefs
  let limits: LiveLimits
  /// The list monitors' updates handed over by the saving thread, waiting
  /// for the session's queue (see `handleArrivals()`).
  let arrivals = Mutex(ListArrivals())
  var lists: [String: ListSubscription] = [:]
  var watches: [String: WatchSubscription] = [:]
  var isClosed = false
  /// The polling baseline's interval; nil for a live session.
  let pollingInterval: Duration?
  /// A polling session's subscriptions, and its timer.
  var polls: [String: PolledList] = [:]
  var pollTimer: (any DispatchSourceTimer)?

  /// Creates a session for a client with the given token claims.
  ///
  /// - Parameters:
  ///   - context: The objects served.
  ///   - watcher: The watcher of `context` the session's watches go on,
  ///     shared by sessions (its master filter indexes their read
  ///     predicates).
  ///   - policy: What may be read.
  ///   - claims: The token's claims; they are substituted for the read
  ///     predicates' variables now (a claim the token lacks is nil).
  ///   - refs: How objects are named to the client.
  ///   - limits: The limits enforced.
  ///   - pollingInterval: Nil (the default) for live subscriptions. Given,
  ///     the session is the polling baseline that benchmarks compare with,
  ///     as Hasura's live queries work: each subscription is fetched again
  ///     every interval and a whole `snapshot` sent when it changed;
  ///     `update` is refused.
  public init(
    context: ObjectContext, watcher: ContextWatcher, policy: ReadPolicy, claims: [String: FilterValue],
    refs: ObjectRefs = ObjectRefs(), limits: LiveLimits = LiveLimits(), pollingInterval: Duration? = nil
  ) {
    self.pollingInterval = pollingInterval
    self.context = context
    self.watcher = watcher
    self.refs = refs
    self.limits = limits
    security = SessionSecurity(policy: policy, claims: claims, schema: context.schema)
    outbox = LiveOutbox(limits: limits)
    queue = DispatchQueue(label: "LiveSession")
    outbox.onCatchUp { [weak self] in
      guard let self else { return }
      queue.async { self.catchUp() }
    }
  }

  /// Handles one frame from the client, on the session's queue: its answer
  /// (a snapshot, an error, a pong…) goes to the outbox. A refused request
  /// gets an `error` and changes nothing else.
  public func receive(_ text: String) {
    queue.async { self.handle(text) }
  }

  /// Answers a frame the transport stopped reading once it passed
  /// ``LiveLimits/maximumFrameBytes`` with a `frameTooLarge` error; the
  /// frame is not read.
  public func receiveOversizedFrame() {
    queue.async { self.refuseOversized() }
  }

  /// Makes the subscriptions and watches of `ids` catch up, as if the
  /// client had not read their frames: a list's waiting frames are
  /// dropped and a fresh snapshot follows the next drain; a watch gets an
  /// `eventsDropped` error. For a resumed connection whose client missed
  /// frames the server no longer has. Waits for the session's queue;
  /// never call it there.
  ///
  /// - Parameter positions: Each subscription's or watch's id, with the
  ///   last `seq` its client saw (the watch's error names the saves after
  ///   it).
  public func resynchronize(_ positions: [String: Int]) {
    dispatchPrecondition(condition: .notOnQueue(queue))
    queue.sync {
      for (id, position) in positions.sorted(by: { $0.key < $1.key }) {
        if let list = lists[id] {
          list.isBehind = true
          outbox.dropFrames(of: id)
        } else if let watch = watches[id] {
          watch.lostAfter = min(watch.lostAfter ?? position, position)
          outbox.requestCatchUp()
        } else if let poll = polls[id] {
          poll.lastObjects = nil
        }
      }
    }
  }

  /// The ids of the session's subscriptions and watches. Waits for the
  /// session's queue; never call it there.
  public var subscriptionIDs: Set<String> {
    dispatchPrecondition(condition: .notOnQueue(queue))
    return queue.sync { Set(lists.keys).union(watches.keys).union(polls.keys) }
  }

  /// The subscriptions and watches the session holds. Waits for the
  /// session's queue; never call it there.
  public var subscriptionCount: Int {
    dispatchPrecondition(condition: .notOnQueue(queue))
    return queue.sync { lists.count + watches.count + polls.count }
  }

  /// Ends every subscription and watch; later frames are ignored. Call it
  /// when the connection closes.
  public func close() {
    queue.async {
      self.isClosed = true
      self.pollTimer?.cancel()
      for id in Array(self.lists.keys) + Array(self.watches.keys) + Array(self.polls.keys) { self.end(id) }
    }
  }

  /// Blocks until the frames received and the saves made before the call
  /// have reached the outbox, catch-ups scheduled by a drain included. For
  /// tests; never call it on ``queue``.
  public func flush() {
    dispatchPrecondition(condition: .notOnQueue(queue))
    // The list monitors applied the saves before the call on the saving
    // thread, and queued their updates' job on `queue`.
    queue.sync {}
    watcher.flush()
    queue.sync {}
  }

  func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }
}
