import Foundation
import Synchronization

/// A slot's committed transactions, pushed by the server over the streaming
/// replication protocol (`START_REPLICATION SLOT … LOGICAL`) and read on a
/// thread of the feed's own, so that libpq's blocking calls never hold a
/// thread of Swift's concurrency pool.
///
/// The thread decodes each of wal2json's lines as it arrives (it never
/// holds more than one undecoded line), queues whole transactions, and
/// stops reading while about ``Settings/queueLimit`` changes wait in the
/// queue, leaving the rest in the server. It answers the server's
/// keepalives at once and sends a status update at least every quarter of
/// `wal_sender_timeout` (at most every 10 seconds), whether or not it
/// reads, so the server never times the stream out. A position is
/// acknowledged only when the consumer says its transaction is delivered
/// (``acknowledge(_:)``).
final class ReplicationFeed: Sendable {
  /// What the feed connects to and streams.
  struct Settings: Sendable {
    /// libpq's connection parameters, `replication=database` among them.
    var parameters: [(String, String)]
    /// Where the connection goes, for messages: `127.0.0.1:5432`.
    var place: String
    /// The slot to stream.
    var slot: String
    /// Where to start: one byte past the last delivered commit; nil starts
    /// where the slot is acknowledged.
    var start: PostgresPosition?
    /// wal2json's options.
    var pluginOptions: [(String, String)]
    /// The prefixes of the logical messages to keep.
    var messagePrefixes: Set<String>
    /// About how many changes the queue holds before the thread stops
    /// reading.
    var queueLimit: Int
  }

  /// What the thread has done, for tests and the timing tool.
  struct Statistics: Sendable {
    /// The largest line of the plugin's received, in bytes: the most
    /// undecoded data the feed held.
    var largestLine = 0
    /// The most changes that waited in the queue at once.
    var peakQueuedChanges = 0
    /// Status updates sent, and keepalives that asked for one.
    var statusUpdates = 0
    var repliesRequested = 0
    /// How often the thread stopped reading because the queue was full.
    var pauses = 0
  }

  /// What the consumer takes: the queued transactions, how far the server
  /// has sent, and the feed's end, when it ended.
  struct Batch {
    var transactions: [ReplicationTransaction]
    var received: PostgresPosition
    var failure: PostgresReplicaError?
    var version: UInt64
  }

  private struct State {
    var queue: [ReplicationTransaction] = []
    var queuedChanges = 0
    var received: UInt64 = 0
    var acknowledged: UInt64 = 0
    var wanted: UInt64 = 0
    var failure: PostgresReplicaError?
    var stopping = false
    /// When the sleeping thread wakes by itself; nil while it works.
    var sleepsUntil: ContinuousClock.Instant?
    /// Whether the thread sleeps because the queue is full.
    var paused = false
    var started: CheckedContinuation<Void, any Error>?
    var finished = false
    var finishWaiters: [CheckedContinuation<Void, Never>] = []
    var version: UInt64 = 0
    var nextWaiter = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var statistics = Statistics()
  }

  private let state = Mutex(State())
  private let settings: Settings
  /// A pipe that wakes the thread from its wait: the consumer writes a
  /// byte when it acknowledges, wants a position, or stops the feed.
  private let wakeRead: Int32
  private let wakeWrite: Int32

  private init(settings: Settings) throws(PostgresReplicaError) {
    self.settings = settings
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else {
      throw PostgresReplicaError(.connectionLost, "cannot make a pipe to wake the stream's thread (errno \(errno))")
    }
    for descriptor in descriptors {
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
    wakeRead = descriptors[0]
    wakeWrite = descriptors[1]
  }

  deinit {
    close(wakeRead)
    close(wakeWrite)
  }

  /// Connects, starts streaming on a thread of its own, and returns once
  /// the server streams.
  ///
  /// - Throws: The server's refusal (``PostgresReplicaError/Code/serverError``
  ///   and the like, say what to do) or
  ///   ``PostgresReplicaError/Code/connectionLost``.
  static func open(_ settings: Settings) async throws -> ReplicationFeed {
    let feed = try ReplicationFeed(settings: settings)
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      feed.state.withLock { $0.started = continuation }
      let thread = Thread { feed.stream() }
      thread.name = "ContextWatch replication \(settings.slot)"
      thread.start()
    }
    return feed
  }

  /// Takes the queued transactions, in commit order.
  func take() -> Batch {
    let (batch, paused) = state.withLock { state in
      defer {
        state.queue = []
        state.queuedChanges = 0
      }
      let batch = Batch(
        transactions: state.queue, received: PostgresPosition(rawValue: state.received), failure: state.failure,
        version: state.version)
      return (batch, state.paused && !state.queue.isEmpty)
    }
    // A thread that waits for room reads on.
    if paused { wake() }
    return batch
  }

  /// Returns when something happened after `version` (a transaction
  /// queued, the server's position learnt, the feed ended), or when the
  /// task is cancelled.
  func waitForChange(after version: UInt64) async {
    let id = state.withLock { state -> Int in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.version != version || state.finished || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }

  /// Tells the server that every transaction up to the one that committed
  /// at `position` is delivered: the slot moves one byte past its commit.
  ///
  /// The thread sends it at once when it last sent a status update 10 ms
  /// ago or more, and otherwise when those 10 ms are over: a burst of
  /// deliveries costs a status update every 10 ms, not one each.
  func acknowledge(_ position: PostgresPosition) {
    let target = position.pastCommit.rawValue
    let now = ContinuousClock.now
    let wakes = state.withLock { state -> Bool in
      guard target > state.acknowledged else { return false }
      state.acknowledged = target
      // A thread that wakes by itself within the pause sends it then.
      guard let until = state.sleepsUntil else { return false }
      return until - now > Self.acknowledgementPause
    }
    if wakes { wake() }
  }

  /// The least time between two status updates that only acknowledge.
  static let acknowledgementPause = Duration.milliseconds(10)

  /// Asks the server, until it has sent everything up to `position`, how
  /// far it has: what a consumer waiting for a position calls.
  func want(_ position: PostgresPosition) {
    let wakes = state.withLock { state -> Bool in
      guard position.rawValue > state.wanted else { return false }
      state.wanted = position.rawValue
      return state.sleepsUntil != nil
    }
    if wakes { wake() }
  }

  /// Tells the thread to stop, without waiting for it.
  func requestStop() {
    state.withLock { $0.stopping = true }
    wake()
  }

  /// Stops the thread, which sends a last status update, ends the stream
  /// (the server lets go of the slot: at most 5 seconds) and closes the
  /// connection; returns once it has.
  func stop() async {
    requestStop()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state -> Bool in
        if state.finished { return true }
        state.finishWaiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Whether the thread has ended and left nothing to take.
  var hasEndedEmpty: Bool { state.withLock { $0.finished && $0.queue.isEmpty } }

  /// What the thread has done so far.
  var statistics: Statistics { state.withLock { $0.statistics } }

  private func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// The thread: connects, streams, and ends with a failure or a stop.
  private func stream() {
    var failure: PostgresReplicaError?
    do {
      try run()
    } catch let error as ReplicationConnection.Failure {
      failure = describe(error)
    } catch let error as PostgresReplicaError {
      failure = error
    } catch {
      failure = PostgresReplicaError(.connectionLost, "the stream failed: \(error)")
    }
    let (started, waiters, finishWaiters) = state.withLock { state in
      if state.failure == nil { state.failure = failure }
      state.finished = true
      state.version &+= 1
      defer {
        state.started = nil
        state.waiters = [:]
        state.finishWaiters = []
      }
      return (state.started, Array(state.waiters.values), state.finishWaiters)
    }
    started?.resume(throwing: failure ?? PostgresReplicaError(.connectionLost, "the stream stopped before it began"))
    for waiter in waiters + finishWaiters { waiter.resume() }
  }

  /// A failure of the connection as the replica's error.
  private func describe(_ failure: ReplicationConnection.Failure) -> PostgresReplicaError {
    switch failure {
    case .refused(let state, let message, let hint):
      let refusal = ServerRefusal(state: state, message: message, hint: hint)
      return PostgresReplicaError(refusal.code, refusal.message)
    case .lost(let message):
      return PostgresReplicaError(
        .connectionLost, "the replication connection to \(settings.place) failed: \(message)")
    }
  }

  /// The `START_REPLICATION` command with the plugin's options.
  var command: String {
    let options = settings.pluginOptions.map { "\"\($0.0)\" '\($0.1.replacingOccurrences(of: "'", with: "''"))'" }
    let slot = settings.slot.replacingOccurrences(of: "\"", with: "\"\"")
    return "START_REPLICATION SLOT \"\(slot)\" LOGICAL \(settings.start ?? PostgresPosition(rawValue: 0))"
      + " (\(options.joined(separator: ", ")))"
  }

  /// How often to send a status update unasked, from the server's
  /// `wal_sender_timeout` (`60s`, `500ms`, `1min`, `0`): a quarter of it, at
  /// most 10 seconds and at least 20 milliseconds.
  static func statusInterval(senderTimeout text: String?) -> Duration {
    let longest = Duration.seconds(10)
    guard let text else { return longest }
    let digits = text.prefix { $0.isNumber }
    guard let number = Int64(digits) else { return longest }
    let unit: Duration =
      switch text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
      case "ms", "": .milliseconds(1)
      case "s": .seconds(1)
      case "min": .seconds(60)
      case "h": .seconds(3600)
      case "d": .seconds(86_400)
      default: .milliseconds(1)
      }
    let timeout = unit * number
    guard timeout > .zero else { return longest }
    return max(.milliseconds(20), min(longest, timeout / 4))
  }

  private func run() throws {
    let connection = try ReplicationConnection(parameters: settings.parameters)
    let interval = Self.statusInterval(senderTimeout: try connection.value(of: "SHOW wal_sender_timeout"))
    // A reader that has just stopped holds the slot until its server
    // process ends: wait up to 5 seconds for it to let go.
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(5)
    while true {
      do {
        try connection.startStreaming(command)
        break
      } catch {
        guard Self.isSlotActive(error), clock.now < deadline, !state.withLock({ $0.stopping }) else { throw error }
        usleep(20_000)
      }
    }
    let started = state.withLock { state in
      defer { state.started = nil }
      return state.started
    }
    started?.resume()

    var assembler = TransactionAssembler(messagePrefixes: settings.messagePrefixes)
    var lastStatus = clock.now
    var sentAcknowledged: UInt64 = 0
    var lastPing: ContinuousClock.Instant?
    var received: UInt64 = 0
    var lastDrained = clock.now - .seconds(1)
    // Transactions read and not yet handed to the consumer.
    var ready: [ReplicationTransaction] = []
    var readyChanges = 0
    var largestLine = 0
    /// Hands the transactions read to the consumer, and tells it how far
    /// the server has sent.
    var published: UInt64 = 0
    func publish() {
      guard !ready.isEmpty || received > published else { return }
      let transactions = ready
      let changes = readyChanges
      let previous = published
      ready = []
      readyChanges = 0
      published = received
      let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
        state.received = max(state.received, received)
        state.statistics.largestLine = max(state.statistics.largestLine, largestLine)
        if !transactions.isEmpty {
          state.queue += transactions
          state.queuedChanges += changes
          state.statistics.peakQueuedChanges = max(state.statistics.peakQueuedChanges, state.queuedChanges)
        }
        // Consumers wake for transactions, or for a position one of them
        // waits for.
        guard !transactions.isEmpty || state.wanted > previous else { return [] }
        state.version &+= 1
        defer { state.waiters = [:] }
        return Array(state.waiters.values)
      }
      for waiter in waiting { waiter.resume() }
    }
    func sendStatus(_ acknowledged: UInt64, replyRequested: Bool = false) throws(ReplicationConnection.Failure) {
      try connection.sendStatus(received: received, acknowledged: acknowledged, replyRequested: replyRequested)
      lastStatus = clock.now
      sentAcknowledged = acknowledged
      state.withLock { $0.statistics.statusUpdates += 1 }
    }
    while true {
      let (stopping, acknowledged, full, wanted) = state.withLock { state in
        (state.stopping, state.acknowledged, state.queuedChanges + readyChanges >= settings.queueLimit, state.wanted)
      }
      if stopping {
        try sendStatus(acknowledged)
        connection.endStreaming(milliseconds: 5000)
        return
      }
      let now = clock.now
      let pingDue = wanted > received ? (lastPing.map { $0 + .milliseconds(1) } ?? now) : nil
      let acknowledgementDue = acknowledged != sentAcknowledged ? lastStatus + Self.acknowledgementPause : nil
      if let pingDue, pingDue <= now {
        lastPing = now
        try sendStatus(acknowledged, replyRequested: true)
      } else if now - lastStatus >= interval || (acknowledgementDue.map { $0 <= now } ?? false) {
        try sendStatus(acknowledged)
      }
      if !full {
        let read = try connection.read { message throws in
          switch message {
          case .data(let start, let bytes):
            received = max(received, start)
            try assembler.add(bytes, at: PostgresPosition(rawValue: start))
            largestLine = max(largestLine, bytes.count)
            for transaction in assembler.takeCompleted() {
              ready.append(transaction)
              readyChanges += 1 + transaction.changes.count
            }
          case .keepalive(let end, let replyRequested):
            received = max(received, end)
            publish()
            if replyRequested {
              state.withLock { $0.statistics.repliesRequested += 1 }
              try sendStatus(state.withLock { $0.acknowledged })
            }
          }
        }
        // What has arrived is read before the consumer is told, so that a
        // burst is one batch; a long one is handed over in parts.
        if read {
          if readyChanges >= max(1, settings.queueLimit / 4) { publish() }
          continue
        }
      }
      publish()
      // Dense traffic (a backlog, a burst): the socket drained twice within
      // a nap. Napping, rather than waking for each line, lets the lines
      // gather, so that the thread and the consumer wake once a batch; it
      // delays a line by a nap at most.
      let drained = clock.now
      if !full, drained - lastDrained < Self.nap {
        lastDrained = drained
        sleepBriefly()
        continue
      }
      lastDrained = drained
      // Nothing to read, or no room: sleep until the server sends (when
      // there is room), a status update is due, or the consumer wakes the
      // thread.
      let sleep = state.withLock { state -> (until: ContinuousClock.Instant, full: Bool)? in
        // Whatever changed since the loop read the state is seen here, or,
        // once `sleepsUntil` is set, wakes the thread through the pipe.
        guard !state.stopping, state.wanted == wanted else { return nil }
        let full = state.queuedChanges >= settings.queueLimit
        var until = lastStatus + interval
        if state.acknowledged != sentAcknowledged { until = min(until, lastStatus + Self.acknowledgementPause) }
        if wanted > received { until = min(until, (lastPing ?? clock.now) + .milliseconds(1)) }
        state.sleepsUntil = until
        state.paused = full
        if full { state.statistics.pauses += 1 }
        return (until, full)
      }
      guard let (until, full) = sleep else { continue }
      let milliseconds = Int32(max(0, min(Double(Int32.max), (until - clock.now) / .milliseconds(1)))) + 1
      try connection.wait(wakeUp: wakeRead, milliseconds: milliseconds, readingServer: !full)
      state.withLock { state in
        state.sleepsUntil = nil
        state.paused = false
      }
      drainWakeUps()
    }
  }

  /// How long the thread naps in dense traffic.
  static let nap = Duration.microseconds(200)

  /// Naps for ``nap``: short enough not to wait for a wake-up.
  private func sleepBriefly() {
    usleep(UInt32(Self.nap / .microseconds(1)))
  }

  /// Whether the server refused because another process streams the
  /// slot.
  private static func isSlotActive(_ failure: ReplicationConnection.Failure) -> Bool {
    if case .refused(let state, _, _) = failure { return state == "55006" }
    return false
  }

  private func drainWakeUps() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(wakeRead, &bytes, bytes.count) > 0 {}
  }
}
