public import Dispatch
import Logging
public import ObjectGraph
public import PostgresNIO
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
/// let watcher = ContextWatcher(context: replica.context)
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

  /// How a replica connects, what it maps, and how it behaves.
  public struct Configuration: Sendable {
    /// How to connect to the database (see
    /// `PostgresConnection.Configuration.fromEnvironment()`).
    public var connection: PostgresConnection.Configuration
    /// The replication slot's name: one per replica (per service instance).
    public var slot: String
    /// The tables and how they map to the schema.
    public var mapping: ReplicaMapping
    /// Where a transaction's author comes from.
    public var authorSource: AuthorSource
    /// What to do with a transaction that cannot be applied.
    public var failurePolicy: FailurePolicy
    /// About how many row changes one poll reads (a transaction always
    /// comes whole); the WAL past them waits in the slot.
    public var batchSize: Int
    /// How long ``run()`` waits between polls that found nothing.
    public var pollInterval: Duration
    /// A channel that ``run()`` listens on: a `NOTIFY` on it wakes the
    /// replica before the poll interval is over. Nil polls only.
    public var notificationChannel: String?
    /// The name of the replica's context.
    public var contextName: String

    /// Creates a configuration; the author comes from `context-watch.author`
    /// messages, a bad transaction stops the replica, polls read about
    /// 1,000 changes every 100 ms.
    public init(
      connection: PostgresConnection.Configuration, slot: String, mapping: ReplicaMapping,
      authorSource: AuthorSource = .message(prefix: "context-watch.author"), failurePolicy: FailurePolicy = .stop,
      batchSize: Int = 1000, pollInterval: Duration = .milliseconds(100), notificationChannel: String? = nil,
      contextName: String = "replica"
    ) {
      self.connection = connection
      self.slot = slot
      self.mapping = mapping
      self.authorSource = authorSource
      self.failurePolicy = failurePolicy
      self.batchSize = batchSize
      self.pollInterval = pollInterval
      self.notificationChannel = notificationChannel
      self.contextName = contextName
    }
  }

  /// The configuration the replica was created with.
  public nonisolated let configuration: Configuration
  /// The replica: attach watchers and monitors to it. Only the replica
  /// saves it.
  public nonisolated let context: ObjectContext
  private let applier: ReplicaApplier
  private let logger = Logger(label: "PostgresChangeSource", factory: { _ in SwiftLogNoOpLogHandler() })
  private var connection: PostgresConnection?
  private var stream: ChangeStream?
  private var loadSnapshot: TransactionSnapshot?
  /// Where the slot stood when the replica started: a stream opened after
  /// a lost connection checks that no other reader moved it past there.
  private var slotStart: PostgresPosition?
  private var started = false
  private let savePositions = Mutex<[Int: PostgresPosition]>([:])

  /// The commit position of the last transaction the replica applied or
  /// passed over (one that touched no mapped table, or that the load
  /// already held); nil before the first. Resume from it.
  public private(set) var position: PostgresPosition?
  /// Whether the change stream keeps NaN and ±Infinity in `real`, `double
  /// precision` and `numeric` columns: true with wal2json 2.6 and later,
  /// which writes numbers as text. With earlier versions it writes them as
  /// NULL, and a changed row holding one reads as nil (the load reads them
  /// exactly). Nil before ``start(from:)``.
  public private(set) var streamKeepsNonFiniteNumbers: Bool?
  /// The transactions skipped under ``FailurePolicy/skip``, oldest first.
  public private(set) var failures: [PostgresReplicaError] = []

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
    // until it is.
    if let connection, !connection.isClosed { Task { try? await connection.close() } }
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
  ///   free slot), a load's row errors, or `CancellationError` when the
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
    if let position {
      try await stream.checkHolds(position)
      if loading { try await load(connection, asOf: position, stream: stream) }
      self.position = position
    } else {
      let created = try await stream.createSlot()
      do {
        try await load(connection)
      } catch let error where created && !(error is CancellationError) {
        // A start that fails leaves the server as it was: without the slot
        // it made (nothing was delivered from it).
        try? await stream.dropSlot()
        throw error
      }
    }
    slotStart = await stream.heldFrom
    streamKeepsNonFiniteNumbers = try await stream.probeNumberFormat()
    started = true
  }

  /// Applies the transactions the slot holds now, up to about
  /// ``Configuration/batchSize`` changes, each as one save, then
  /// acknowledges the last one to the slot.
  ///
  /// - Returns: How many saves were made.
  /// - Throws: ``PostgresReplicaError`` for a transaction that cannot be
  ///   applied under ``FailurePolicy/stop`` (the replica stays at the last
  ///   good one, which is acknowledged), or for a lost connection (a later
  ///   call connects again).
  @discardableResult
  public func poll() async throws -> Int {
    try await pollOnce().saves
  }

  /// Polls until the replica has applied every transaction committed before
  /// the call: what a client that just wrote calls to read its own writes.
  /// Bounded by the log's position at the call, however fast others write.
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
      let round = try await pollOnce()
      saves += round.saves
      if round.transactions == 0 { return saves }
      if let target, let position, position >= target { return saves }
    }
  }

  private func pollOnce() async throws -> (saves: Int, transactions: Int) {
    precondition(started, "PostgresReplica.poll() before start(from:)")
    let stream = try await openStream(try await connect())
    let transactions: [ReplicationTransaction]
    do {
      transactions = try await stream.fetch(after: position, limit: configuration.batchSize)
    } catch {
      throw await connectionError(error, "reading slot '\(configuration.slot)'")
    }
    var saves = 0
    var failure: PostgresReplicaError?
    for transaction in transactions {
      if let snapshot = loadSnapshot, snapshot.sees(transaction.xid) {
        position = transaction.position
        continue
      }
      guard applier.touchesMappedTables(transaction) else {
        position = transaction.position
        continue
      }
      let applier = self.applier
      let context = self.context
      let result = await withCheckedContinuation { continuation in
        context.queue.async { [self] in
          // Only the replica saves the context, so the transaction's save
          // is the next one: its position is known before the save, to
          // the context's save observers and watchers too.
          let next = context.sequenceNumber + 1
          savePositions.withLock { $0[next] = transaction.position }
          let result = Result { () throws(PostgresReplicaError) in try applier.apply(transaction) }
          savePositions.withLock { positions in
            if case .success(let save?) = result, save.sequenceNumber == next {
              positions[next - Self.rememberedPositions] = nil
            } else {
              positions[next] = nil
            }
          }
          continuation.resume(returning: result)
        }
      }
      switch result {
      case .success:
        saves += 1
        position = transaction.position
      case .failure(let error):
        if configuration.failurePolicy == .skip {
          failures.append(error)
          position = transaction.position
        } else {
          failure = error
        }
      }
      if failure != nil { break }
    }
    if let position {
      do {
        try await stream.acknowledge(position)
      } catch {
        throw await connectionError(error, "acknowledging \(position) to slot '\(configuration.slot)'")
      }
    }
    if let failure { throw failure }
    return (saves, transactions.count)
  }

  /// Polls until the task is cancelled: at once after a poll that read
  /// transactions, otherwise after ``Configuration/pollInterval`` or a
  /// notification on ``Configuration/notificationChannel``, whichever comes
  /// first. A lost connection is retried every poll interval; other errors
  /// end the run under ``FailurePolicy/stop``.
  public func run() async throws {
    let wakeUps = WakeUps()
    let listener = configuration.notificationChannel.map { channel in
      Task { [configuration, logger] in
        await Self.listen(channel, configuration: configuration.connection, logger: logger, wakeUps: wakeUps)
      }
    }
    defer { listener?.cancel() }
    while !Task.isCancelled {
      var readSome = false
      do {
        readSome = try await pollOnce().transactions > 0
      } catch let error as PostgresReplicaError where error.code == .connectionLost {
        logger.warning("\(error)")
      }
      if !readSome {
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

  /// How far the replica lags behind the database, as the slot tells.
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

  /// Closes the connection; the slot stays and keeps WAL for a later
  /// resume (drop it with ``dropSlot()`` when the replica is gone for good).
  public func stop() async {
    try? await connection?.close()
    connection = nil
    stream = nil
  }

  /// Drops the replica's slot, so that the database stops keeping WAL for
  /// it, and closes the connection.
  ///
  /// - Throws: ``PostgresReplicaError/Code/serverError`` when the server
  ///   refuses (another session reads the slot, or the user lacks the
  ///   replication privilege): the slot stays, and so does the connection.
  public func dropSlot() async throws {
    let stream = try await openStream(try await connect())
    do {
      try await stream.dropSlot()
    } catch {
      throw await connectionError(error, "dropping slot '\(configuration.slot)'")
    }
    await stop()
  }

  private func connect() async throws -> PostgresConnection {
    if let connection, !connection.isClosed { return connection }
    stream = nil
    do {
      let connection = try await PostgresConnection.connect(
        configuration: Self.named(configuration.connection, "context-watch \(configuration.slot)"), id: 1,
        logger: logger)
      self.connection = connection
      return connection
    } catch let error as CancellationError {
      throw error
    } catch {
      throw PostgresReplicaError(
        .connectionLost, ConnectionFailure.describe(error, configuration: configuration.connection))
    }
  }

  /// The configuration with `application_name` set, unless it names one.
  static func named(
    _ configuration: PostgresConnection.Configuration, _ name: String
  ) -> PostgresConnection.Configuration {
    var configuration = configuration
    if !configuration.options.additionalStartupParameters.contains(where: { $0.0 == "application_name" }) {
      configuration.options.additionalStartupParameters.append(("application_name", name))
    }
    return configuration
  }

  private func openStream(_ connection: PostgresConnection) async throws -> ChangeStream {
    if let stream, stream.connection === connection { return stream }
    let prefixes: [String]
    if case .message(let prefix) = configuration.authorSource { prefixes = [prefix] } else { prefixes = [] }
    let stream = ChangeStream(connection: connection, slot: configuration.slot, messagePrefixes: prefixes)
    if let slotStart { await stream.hold(from: slotStart) }
    self.stream = stream
    return stream
  }

  /// Turns an error of the server or the connection into a replica error;
  /// forgets a connection that is no longer usable.
  private func connectionError(_ error: any Error, _ doing: String) async -> any Error {
    if error is PostgresReplicaError || error is CancellationError { return error }
    if let psql = error as? PSQLError, let refusal = ServerRefusal(psql) {
      return PostgresReplicaError(refusal.code, "\(doing): \(refusal.message)")
    }
    try? await connection?.close()
    connection = nil
    stream = nil
    return PostgresReplicaError(
      .connectionLost, "\(doing): \(ConnectionFailure.describe(error, configuration: configuration.connection))")
  }

  private func load(
    _ connection: PostgresConnection, asOf position: PostgresPosition? = nil, stream: ChangeStream? = nil
  ) async throws {
    try await connection.query("SET TimeZone = 'UTC'", logger: logger).drain()
    try await connection.query("SET DateStyle = 'ISO'", logger: logger).drain()
    try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger).drain()
    var rows: [(ResolvedTable, [[ColumnValue]])] = []
    let snapshotText: String
    do {
      var text = ""
      for try await (snapshot, ) in try await connection.query(
        "SELECT pg_current_snapshot()::text", logger: logger
      ).decode((String,).self) {
        text = snapshot
      }
      snapshotText = text
      for table in configuration.mapping.resolved {
        rows.append((table, try await Self.readRows(table, connection: connection, logger: logger)))
      }
      try await connection.query("COMMIT", logger: logger).drain()
    } catch {
      try? await connection.query("ROLLBACK", logger: logger).drain()
      throw error
    }
    guard let snapshot = TransactionSnapshot(snapshotText) else {
      throw PostgresReplicaError(.brokenRecord, "'\(snapshotText)' is not a transaction snapshot")
    }
    if let position, let stream {
      // The transactions after `position` that the read saw come first in
      // commit order: undo them, and let the stream apply them again.
      var seen: [ReplicationTransaction] = []
      var cursor = position
      reading: while true {
        let batch: [ReplicationTransaction]
        do {
          batch = try await stream.fetch(after: cursor, limit: configuration.batchSize)
        } catch {
          throw await connectionError(error, "reading slot '\(configuration.slot)'")
        }
        guard let last = batch.last else { break }
        for transaction in batch {
          guard snapshot.sees(transaction.xid) else { break reading }
          seen.append(transaction)
        }
        cursor = last.position
      }
      rows = try RowUndo.rows(rows, undoing: seen, since: position)
    } else {
      loadSnapshot = snapshot
    }
    let applier = self.applier
    let loaded = rows
    _ = try await withCheckedContinuation { continuation in
      context.queue.async {
        continuation.resume(returning: Result { () throws(PostgresReplicaError) in try applier.load(loaded) })
      }
    }.get()
  }
}
