public import Dispatch
import Logging
public import ObjectGraph
import PostgresNIO
import Synchronization

/// An in-memory replica of mapped PostgreSQL tables, kept current from the
/// database's change stream: one save of ``context`` per committed
/// transaction that touched a mapped table, in commit order.
///
/// Watchers and monitors attach to ``context`` as to any ``ObjectContext``.
/// Its connection names itself `context-watch <slot>` as
/// `application_name` unless the configuration names another.
/// ``start(from:)`` checks the mapping against the catalog, creates (or
/// reuses) the logical replication slot and, without a position, loads the
/// tables at a point consistent with the slot; ``run()`` then applies the
/// stream until cancelled, and ``poll()`` applies what is there now.
///
/// ```swift
/// let replica = PostgresReplica(configuration: .init(
///   connection: try .fromEnvironment(), slot: "orders_service_1", mapping: mapping))
/// let watcher = ContextWatcher(
///   context: replica.context, target: .handler(on: .queue(DispatchQueue(label: "changes"))) { changes in
///     print(changes.inserted.count, "new")
///   })
/// try await replica.start()
/// try await replica.run()
/// ```
public actor PostgresReplica {
  /// Where the author of a transaction comes from. wal2json does not pass on
  /// the session's `application_name`, so the writer names itself.
  public enum AuthorSource: Hashable, Sendable {
    /// Saves have no author.
    case none
    /// The content of the last transactional logical message with this
    /// prefix: the writer runs `SELECT pg_logical_emit_message(true,
    /// 'context-watch.author', 'billing')` inside its transaction.
    case message(prefix: String)
    /// The value of this column in the transaction's first mapped row that
    /// has it non-NULL (the old row for deletes): an `updated_by` column.
    case column(String)
  }

  /// What the replica does with a transaction it cannot apply.
  public enum FailurePolicy: Hashable, Sendable {
    /// Stop: ``poll()`` and ``run()`` throw, and the replica stays at the
    /// last good transaction. A later ``poll()`` tries the same transaction
    /// again.
    case stop
    /// Report it in ``failures`` and go on with the next transaction; the
    /// replica holds nothing of the skipped one.
    case skip
  }

  /// How a replica reads the slot.
  public enum ReadMode: Hashable, Sendable {
    /// The server pushes each transaction as it commits, over a replication
    /// connection (libpq's streaming replication protocol): the lowest
    /// latency and CPU, and no reading of the WAL twice. The connection
    /// needs a role with the replication privilege, a free WAL sender
    /// (`max_wal_senders`), and a `pg_hba.conf` that admits it.
    case streaming
    /// The replica asks the slot over SQL (`pg_logical_slot_peek_changes`)
    /// every ``Configuration/pollInterval`` or on a `NOTIFY`: for a server
    /// or a proxy that admits no replication connection.
    case polling
  }

  /// The configuration the replica was created with.
  public nonisolated let configuration: Configuration
  /// The replica: attach watchers and monitors to it. Only the replica
  /// saves it.
  public nonisolated let context: ObjectContext
  let applier: ReplicaApplier
  let logger = Logger(label: "PostgresChangeSource", factory: { _ in SwiftLogNoOpLogHandler() })
  /// The SQL connection: the catalog, the load, the slot's state, and,
  /// polling, the slot's changes. Its session claims the slot.
  var connection: PostgresConnection?
  var stream: ChangeStream?
  /// Streaming: the replication connection and its thread.
  var feed: ReplicationFeed?
  /// How many replication connections the replica opened: one, unless one
  /// was lost.
  var feedsOpened = 0
  var loadSnapshot: TransactionSnapshot?
  /// Where the slot stood when the replica started: a stream opened after
  /// a lost connection checks that no other reader moved it past there.
  var slotStart: PostgresPosition?
  var started = false
  /// Whether a reading of the slot (a poll, or a batch of the stream) is
  /// applying transactions, and who waits for it to end: one at a time, so
  /// that no transaction is applied twice.
  var reading = false
  var readingWaiters: [CheckedContinuation<Void, Never>] = []
  let savePositions = Mutex<[Int: PostgresPosition]>([:])

  /// The commit position of the last transaction the replica applied or
  /// passed over (one that touched no mapped table, or that the load
  /// already held); nil before the first. Resume from it.
  public internal(set) var position: PostgresPosition?
  /// Whether the change stream keeps NaN and ±Infinity in `real`, `double
  /// precision` and `numeric` columns: true with wal2json 2.6 and later,
  /// which writes numbers as text. With earlier versions it writes them as
  /// NULL, and a changed row holding one reads as nil (the load reads them
  /// exactly). Nil before ``start(from:)``.
  public internal(set) var streamKeepsNonFiniteNumbers: Bool?
  /// The transactions skipped under ``FailurePolicy/skip``, oldest first.
  public internal(set) var failures: [PostgresReplicaError] = []

  /// Creates a replica with an empty context; nothing connects before
  /// ``start(from:)``.
  ///
  /// - Parameters:
  ///   - configuration: Connection, slot, mapping and behaviour.
  ///   - queue: The context's queue; a queue of its own when nil.
  public init(configuration: Configuration, queue: DispatchQueue? = nil) {
    self.configuration = configuration
    context = ObjectContext(
      schema: configuration.mapping.schema, queue: queue, name: configuration.contextName, notificationCenter: nil)
    applier = ReplicaApplier(
      context: context, mapping: configuration.mapping, authorSource: configuration.authorSource)
  }

  deinit {
    // A connection must be closed before it is released; the task keeps it
    // until it is. The stream's thread ends on its own once told.
    if let connection, !connection.isClosed { Task { try? await connection.close() } }
    feed?.requestStop()
  }

  /// How many of the latest saves ``position(ofSave:)`` remembers.
  static let rememberedPositions = 65_536

  /// The commit position of the transaction a save of ``context`` applied,
  /// by the save's sequence number, for the latest 65,536 saves; nil for
  /// the load's save, for older saves and for numbers the replica never
  /// saved. A save's position is known as soon as the save is: to the
  /// context's save observers, and to watchers delivering on
  /// `.immediate`, during the save.
  public nonisolated func position(ofSave sequenceNumber: Int) -> PostgresPosition? {
    savePositions.withLock { $0[sequenceNumber] }
  }

  /// The primary key, as its column's text, of an object of the replica.
  /// During a save, the context's save observers (and watchers delivering
  /// on `.immediate`) find the key of every object of the save, deleted
  /// ones included.
  ///
  /// - Important: Confined to the context's queue.
  public nonisolated func primaryKey(of id: ObjectID) -> String? {
    applier.primaryKey(of: id)
  }

  /// Connects, checks the mapping against the catalog, creates the slot
  /// when it is missing, and either loads the mapped tables (no position)
  /// or checks that the slot still holds every transaction after
  /// `position`.
  ///
  /// The load reads every mapped table in one `REPEATABLE READ`
  /// transaction taken after the slot exists, saves once (author nil), and
  /// remembers that transaction's snapshot: transactions the slot streams
  /// that the snapshot already saw are passed over, so that none is applied
  /// twice or missed.
  ///
  /// Resuming from a position applies later transactions to ``context`` as
  /// it is: a replica in the same process keeps its objects (after a lost
  /// connection, say); a new process has an empty context and should load.
  ///
  /// - Throws: ``PostgresReplicaError/Code/mappingMismatch`` naming every
  ///   mismatch, ``PostgresReplicaError/Code/positionNotHeld`` or
  ///   ``PostgresReplicaError/Code/slotMissing`` for a position the slot no
  ///   longer holds (or one past the end of the database's log),
  ///   ``PostgresReplicaError/Code/slotInUse`` when another reader holds the
  ///   slot, ``PostgresReplicaError/Code/connectionLost``,
  ///   ``PostgresReplicaError/Code/serverError`` naming what the server
  ///   lacks (wal2json, `wal_level = logical`, the replication privilege, a
  ///   free slot) or why it refused the connection (a wrong password, a
  ///   role or database it does not know), a load's row errors, or `CancellationError` when the
  ///   task is cancelled during the load.
  public func start(from position: PostgresPosition? = nil) async throws {
    precondition(!started, "PostgresReplica.start(from:) was called twice")
    do {
      try await begin(from: position, loading: false)
    } catch {
      let failure = await startError(error)
      await stop()
      throw failure
    }
  }

  /// Loads the mapped tables as they were when the transaction at
  /// `position` committed, then resumes after it: what a new process that
  /// stored the position of the last transaction it delivered calls, so
  /// that it delivers every later transaction once, each against the rows
  /// as they were before it.
  ///
  /// The tables are read now, and the transactions the slot holds after
  /// `position` that the read already saw are undone on the rows read,
  /// newest first, from their before images (`REPLICA IDENTITY FULL`); the
  /// result is saved once (author nil) and the stream applies those
  /// transactions again, in order.
  ///
  /// - Throws: As ``start(from:)``, and
  ///   ``PostgresReplicaError/Code/positionNotHeld`` when a mapped table
  ///   was truncated after `position` (its earlier rows are gone): load
  ///   without a position.
  public func start(loadingAsOf position: PostgresPosition) async throws {
    precondition(!started, "PostgresReplica.start(loadingAsOf:) was called twice")
    do {
      try await begin(from: position, loading: true)
    } catch {
      let failure = await startError(error)
      await stop()
      throw failure
    }
  }

  /// A start's error as the user should read it.
  private func startError(_ error: any Error) async -> any Error {
    if error is PostgresReplicaError || error is CancellationError { return error }
    return await connectionError(error, "starting on slot '\(configuration.slot)'")
  }

  private func begin(from position: PostgresPosition?, loading: Bool) async throws {
    let connection = try await connect()
    let catalog = try await Self.readCatalog(configuration.mapping, connection: connection, logger: logger)
    let problems = configuration.mapping.problems(in: catalog)
    guard problems.isEmpty else {
      throw PostgresReplicaError(
        .mappingMismatch, "the mapping does not match the database: " + problems.joined(separator: "; "))
    }
    let stream = try await openStream(connection)
    var created = false
    if let position {
      try await stream.checkHolds(position)
      self.position = position
    } else {
      created = try await stream.createSlot()
    }
    do {
      if position == nil {
        try await load(connection)
      } else if loading, let position {
        try await load(connection, asOf: position, stream: stream)
      }
      slotStart = await stream.heldFrom
      streamKeepsNonFiniteNumbers = try await stream.probeNumberFormat()
      // Streaming: the replication connection opens now, so that a server
      // that refuses it is reported by the start.
      if configuration.readMode == .streaming { _ = try await openFeed() }
    } catch let error where created && !(error is CancellationError) {
      // A start that fails leaves the server as it was: without the slot
      // it made (nothing was delivered from it).
      await closeFeed()
      try? await stream.dropSlot()
      throw error
    }
    started = true
  }

  /// Applies the transactions the slot holds now (polling: up to about
  /// ``Configuration/batchSize`` changes; streaming: those the server has
  /// pushed so far), each as one save, then acknowledges the last one to
  /// the slot.
  ///
  /// - Returns: How many saves were made.
  /// - Throws: ``PostgresReplicaError`` for a transaction that cannot be
  ///   applied under ``FailurePolicy/stop`` (the replica stays at the last
  ///   good one, which is acknowledged), or for a lost connection (a later
  ///   call connects again).
  @discardableResult
  public func poll() async throws -> Int {
    precondition(started, "PostgresReplica.poll() before start(from:)")
    return try await readOnce().saves
  }

  /// Applies transactions until the replica has applied every transaction
  /// committed before the call: what a client that just wrote calls to
  /// read its own writes. Bounded by the log's position at the call,
  /// however fast others write.
  ///
  /// - Returns: How many saves were made.
  /// - Throws: As ``poll()`` does.
  @discardableResult
  public func catchUp() async throws -> Int {
    precondition(started, "PostgresReplica.catchUp() before start(from:)")
    let connection = try await connect()
    var target: PostgresPosition?
    do {
      for try await (text, ) in try await connection.query(
        "SELECT pg_current_wal_lsn()::text", logger: logger
      ).decode((String,).self) {
        target = PostgresPosition(text)
      }
    } catch {
      throw await connectionError(error, "reading the log's position")
    }
    var saves = 0
    while true {
      let round = try await readOnce(wanting: target)
      saves += round.saves
      switch configuration.readMode {
      case .polling:
        if round.transactions == 0 { return saves }
        if let target, let position, position >= target { return saves }
      case .streaming:
        guard let target, round.received < target else { return saves }
        if round.transactions == 0, let feed = round.feed { await feed.waitForChange(after: round.version) }
      }
    }
  }

  /// Applies the stream until the task is cancelled. Streaming: each
  /// transaction as the server pushes it. Polling: at once after a poll
  /// that read transactions, otherwise after ``Configuration/pollInterval``
  /// or a notification on ``Configuration/notificationChannel``, whichever
  /// comes first. A lost connection is tried again every poll interval;
  /// a connection the server refuses, the server's other errors and a
  /// transaction that fails under ``FailurePolicy/stop`` end the run.
  public func run() async throws {
    precondition(started, "PostgresReplica.run() before start(from:)")
    let wakeUps = WakeUps()
    let channel = configuration.readMode == .polling ? configuration.notificationChannel : nil
    let listener = channel.map { channel in
      Task { [configuration, logger] in
        await Self.listen(channel, configuration: configuration.connection, logger: logger, wakeUps: wakeUps)
      }
    }
    defer { listener?.cancel() }
    while !Task.isCancelled {
      do {
        let round = try await readOnce()
        if round.transactions > 0 { continue }
        if let feed = round.feed {
          await feed.waitForChange(after: round.version)
        } else {
          await wakeUps.wait(upTo: configuration.pollInterval)
        }
      } catch let error as PostgresReplicaError where error.code == .connectionLost {
        logger.warning("\(error)")
        await wakeUps.wait(upTo: configuration.pollInterval)
      }
    }
  }

  /// How many times the current stream read the slot, and how many of
  /// wal2json's lines it read: what the tests of an idle replica count.
  var slotReading: (reads: Int, lines: Int) {
    get async {
      guard let stream else { return (0, 0) }
      return (await stream.slotReads, await stream.linesRead)
    }
  }

  /// How far the replica lags behind the database, as the slot tells:
  /// streaming or polling, the slot's acknowledged position is the last
  /// transaction the replica delivered.
  ///
  /// - Throws: ``PostgresReplicaError/Code/slotMissing`` without the slot.
  public func lag() async throws -> SlotState {
    let stream = try await openStream(try await connect())
    let state: SlotState?
    do {
      state = try await stream.state()
    } catch {
      throw await connectionError(error, "reading the state of slot '\(configuration.slot)'")
    }
    guard let state else {
      throw PostgresReplicaError(.slotMissing, "slot '\(configuration.slot)' does not exist")
    }
    return state
  }

  /// Closes the connections; the slot stays and keeps WAL for a later
  /// resume (drop it with ``dropSlot()`` when the replica is gone for good).
  public func stop() async {
    await closeFeed()
    try? await connection?.close()
    connection = nil
    stream = nil
  }

  /// Drops the replica's slot, so that the database stops keeping WAL for
  /// it, and closes the connections.
  ///
  /// - Throws: ``PostgresReplicaError/Code/serverError`` when the server
  ///   refuses (another session reads the slot, or the user lacks the
  ///   replication privilege): the slot stays, and so does the connection.
  public func dropSlot() async throws {
    await closeFeed()
    let stream = try await openStream(try await connect())
    do {
      try await stream.dropSlot()
    } catch {
      throw await connectionError(error, "dropping slot '\(configuration.slot)'")
    }
    await stop()
  }
}
