public import Logging
public import PostgresNIO

/// Reads a logical replication slot with the wal2json plugin: whole
/// committed transactions in commit order, acknowledged only when the
/// reader says it has delivered them.
///
/// The stream peeks at the slot (`pg_logical_slot_peek_changes`), so
/// reading never consumes; ``acknowledge(_:)`` moves the slot forward
/// (`pg_replication_slot_advance`) past the commit of a delivered
/// transaction. A restarted reader that passes its last delivered position
/// to ``fetch(after:limit:)`` gets every later transaction once.
///
/// A slot has one reader. On its first statement a stream claims the slot
/// for its connection's session (a session-level advisory lock on the
/// slot's name), and a second stream over the same slot, in any process,
/// is refused with ``PostgresReplicaError/Code/slotInUse`` before it reads
/// anything. A stream that finds the slot acknowledged past its own
/// position (by a reader that does not claim it, say `psql`) stops with
/// ``PostgresReplicaError/Code/positionNotHeld`` before it delivers
/// anything after the gap.
///
/// ```swift
/// let stream = ChangeStream(connection: connection, slot: "replica")
/// try await stream.createSlot()
/// var position: PostgresPosition? = nil
/// for transaction in try await stream.fetch(after: position, limit: 1000) {
///   deliver(transaction)
///   position = transaction.position
/// }
/// if let position { try await stream.acknowledge(position) }
/// ```
public actor ChangeStream {
  /// The slot's name.
  public let slot: String
  /// The connection the stream reads through.
  public let connection: PostgresConnection
  /// The prefixes of the logical messages the stream keeps.
  public let messagePrefixes: [String]
  private let logger: Logger

  /// Creates a stream over a slot (which ``createSlot()`` makes when it is
  /// missing).
  ///
  /// - Parameters:
  ///   - connection: An open connection to the database, used only by this
  ///     stream; its session's `TimeZone` is set to UTC and its `DateStyle`
  ///     to ISO on first use, so that dates decode the same way everywhere.
  ///   - slot: The replication slot's name.
  ///   - messagePrefixes: The prefixes of transactional logical messages to
  ///     keep in ``ReplicationTransaction/messages``.
  ///   - logger: Where the connection logs.
  public init(
    connection: PostgresConnection, slot: String, messagePrefixes: [String] = [],
    logger: Logger = Logger(label: "PostgresChangeSource", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.connection = connection
    self.slot = slot
    self.messagePrefixes = messagePrefixes
    self.logger = logger
  }

  /// The tables whose changes the stream reads (schema and name); all when
  /// empty. A replica reads its mapped tables only.
  var tables: [(schema: String, table: String)] = []

  /// Reads only the changes of `tables` (schema and name).
  func restrict(to tables: [(schema: String, table: String)]) { self.tables = tables }

  private var sessionIsSet = false
  /// The furthest the slot's acknowledged position may be without a
  /// transaction this reader has not delivered being gone: one byte past
  /// the commit of the last transaction delivered, or where the slot
  /// started. Nil until the stream knows.
  private(set) var heldFrom: PostgresPosition?
  /// The position ``acknowledge(_:)`` last moved the slot to.
  private var acknowledgedTarget: PostgresPosition?
  /// Whether wal2json takes `numeric-data-types-as-string` (version 2.6 and
  /// later): nil until the first read tries it.
  private(set) var writesNumbersAsText: Bool?
  /// How many times the stream read the slot, and how many of wal2json's
  /// lines it read: a reader that is idle reads nothing again.
  private(set) var slotReads = 0
  private(set) var linesRead = 0

  /// The first key of the advisory lock by which a stream claims its slot
  /// (the second is `hashtext` of the slot's name): `cwtc` in ASCII.
  static let claimKey: Int32 = 0x6377_7463

  private func prepareSession() async throws {
    guard !sessionIsSet else { return }
    try await connection.query("SET TimeZone = 'UTC'", logger: logger).drain()
    try await connection.query("SET DateStyle = 'ISO'", logger: logger).drain()
    try await claim()
    sessionIsSet = true
  }

  /// How long a stream waits for the slot's previous reader to let go of
  /// it (a reader that just closed its connection holds it until its
  /// server session ends) before refusing to read.
  static let claimWait = "5s"

  /// Takes the slot's advisory lock for this session, waiting up to
  /// ``claimWait`` for another session to release it, or says who holds it.
  private func claim() async throws {
    try await connection.query("SET lock_timeout = '\(unescaped: Self.claimWait)'", logger: logger).drain()
    do {
      try await connection.query(
        "SELECT pg_advisory_lock(\(Self.claimKey), hashtext(\(slot)))", logger: logger
      ).drain()
      try await connection.query("RESET lock_timeout", logger: logger).drain()
      return
    } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
      try await connection.query("RESET lock_timeout", logger: logger).drain()
    }
    var holder = ""
    for try await (pid, name) in try await connection.query(
      """
      SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.classid = CAST(\(Self.claimKey) AS int8)::oid AND l.objid = (CAST(hashtext(\(slot)) AS int8) & 4294967295)::oid
      """, logger: logger
    ).decode((Int32, String?).self) {
      holder = " (the session of PID \(pid)" + (name.map { $0.isEmpty ? "" : ", '\($0)'" } ?? "") + ")"
    }
    throw PostgresReplicaError(
      .slotInUse,
      "slot '\(slot)' is being read by another reader\(holder); a slot has one reader:"
        + " give each reader a slot of its own, or stop the other")
  }

  /// The slot's acknowledged and retained positions, or nil when the slot
  /// does not exist.
  public func state() async throws -> SlotState? {
    try await prepareSession()
    let rows = try await connection.query(
      """
      SELECT confirmed_flush_lsn::text, restart_lsn::text, plugin::text,
        (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint, (pg_current_wal_lsn() - restart_lsn)::bigint
      FROM pg_replication_slots WHERE slot_name = \(slot)
      """, logger: logger)
    for try await (confirmed, restart, plugin, unacknowledged, retained) in rows.decode(
      (String?, String?, String?, Int64?, Int64?).self)
    {
      return SlotState(
        acknowledged: confirmed.flatMap { PostgresPosition($0) }, retained: restart.flatMap { PostgresPosition($0) },
        plugin: plugin ?? "", unacknowledgedBytes: unacknowledged ?? 0, retainedBytes: retained ?? 0)
    }
    return nil
  }

  /// Creates the slot with the wal2json plugin unless it exists.
  ///
  /// - Returns: Whether the slot was created.
  /// - Throws: ``PostgresReplicaError`` when a slot of that name uses
  ///   another plugin; the server's error when it cannot create one
  ///   (`wal_level` is not `logical`, or wal2json is not installed).
  @discardableResult
  public func createSlot() async throws -> Bool {
    if let existing = try await state() {
      guard existing.plugin == "wal2json" else {
        throw PostgresReplicaError(
          .slotMissing, "slot '\(slot)' exists but decodes with '\(existing.plugin)', not wal2json")
      }
      if heldFrom == nil { heldFrom = existing.acknowledged }
      return false
    }
    try await connection.query(
      "SELECT pg_create_logical_replication_slot(\(slot), 'wal2json')", logger: logger
    ).drain()
    heldFrom = try await state()?.acknowledged
    return true
  }

  /// Drops the slot, if it exists, so that the database stops retaining WAL
  /// for it.
  public func dropSlot() async throws {
    try await connection.query(
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = \(slot)",
      logger: logger
    ).drain()
  }

  /// Checks that the slot still holds every transaction after `position`,
  /// and that `position` is one this database has written.
  ///
  /// - Throws: ``PostgresReplicaError/Code/slotMissing`` without the slot,
  ///   ``PostgresReplicaError/Code/positionNotHeld`` when the slot was
  ///   acknowledged past `position` (by another reader, or dropped and
  ///   recreated): transactions after `position` may be gone, and the way
  ///   out is to load again; and when `position` is past the end of the
  ///   database's log, so that no transaction of this database committed
  ///   there.
  public func checkHolds(_ position: PostgresPosition) async throws {
    guard let state = try await state() else {
      throw PostgresReplicaError(.slotMissing, "slot '\(slot)' does not exist; load again to create it")
    }
    if let acknowledged = state.acknowledged, acknowledged > position.pastCommit {
      throw PostgresReplicaError(
        .positionNotHeld,
        "slot '\(slot)' is acknowledged up to \(acknowledged), past the position \(position) to resume from;"
          + " transactions in between may be gone: load again")
    }
    if let end = state.logEnd, position >= end {
      throw PostgresReplicaError(
        .positionNotHeld,
        "the position \(position) to resume from is past the end of the database's log (\(end)),"
          + " so no transaction of this database committed there: resume from a position this reader"
          + " printed, or load again")
    }
    heldFrom = max(heldFrom ?? position.pastCommit, position.pastCommit)
  }

  /// Makes the stream check that the slot is not acknowledged past
  /// `position` by another reader: where a replica's slot stood before this
  /// stream's connection.
  func hold(from position: PostgresPosition) {
    heldFrom = max(heldFrom ?? position, position)
  }

  /// Throws when the slot was acknowledged past ``heldFrom`` by someone
  /// other than this stream: the transactions in between are gone for it.
  private func checkNotPassed(_ state: SlotState?) throws {
    guard let state else {
      throw PostgresReplicaError(.slotMissing, "slot '\(slot)' does not exist; it was dropped while being read")
    }
    guard let heldFrom, let acknowledged = state.acknowledged, acknowledged > heldFrom else { return }
    throw PostgresReplicaError(
      .positionNotHeld,
      "slot '\(slot)' was acknowledged to \(acknowledged) by another reader, past \(heldFrom) where this"
        + " reader stands; the transactions in between were not delivered here and the slot no longer"
        + " holds them: give each reader a slot of its own, and load again")
  }

  /// The next whole transactions committed after `position` (every one the
  /// slot holds when nil), in commit order, without consuming them.
  ///
  /// - Parameters:
  ///   - position: The commit position of the last transaction delivered.
  ///   - limit: About how many row changes to read; the slot stops at the
  ///     first commit past it, so one large transaction comes whole.
  /// - Throws: ``PostgresReplicaError/Code/brokenRecord`` for output that
  ///   is not wal2json's; the server's errors as they come.
  public func fetch(after position: PostgresPosition?, limit: Int) async throws -> [ReplicationTransaction] {
    try await prepareSession()
    if let position { heldFrom = max(heldFrom ?? position.pastCommit, position.pastCommit) }
    var limit = max(1, limit)
    while true {
      let (transactions, count) = try await read(upTo: limit)
      var delivered = transactions
      if let position { delivered.removeAll { $0.position <= position } }
      if !transactions.isEmpty {
        // The slot only moves forward: at or before `heldFrom` now, it was
        // so while it was read, and the read missed nothing.
        try checkNotPassed(try await state())
      }
      // Only transactions already delivered fit under the limit (a slot
      // acknowledged at a delivered commit's start, not past it): read more.
      if !delivered.isEmpty || count < limit || limit >= Int(Int32.max) / 2 { return delivered }
      limit *= 2
    }
  }

  /// Finds out whether the server's wal2json writes numbers as text (2.6
  /// and later), which keeps NaN and ±Infinity; earlier versions refuse
  /// the option and write those values as null. The slot must exist.
  ///
  /// - Returns: Whether it does; the stream uses the option when it does.
  @discardableResult
  func probeNumberFormat() async throws -> Bool {
    if let writesNumbersAsText { return writesNumbersAsText }
    try await prepareSession()
    do {
      try await connection.query(
        """
        SELECT count(*) FROM pg_logical_slot_peek_changes(\(slot), NULL, 0, 'numeric-data-types-as-string', '1')
        """, logger: logger
      ).drain()
      writesNumbersAsText = true
    } catch let error as PSQLError where error.serverInfo?[.message]?.contains("is unknown") == true {
      writesNumbersAsText = false
    }
    return writesNumbersAsText ?? false
  }

  /// wal2json's options, the same whether the slot is peeked at or
  /// streamed: format version 2 (a line per change), transaction ids,
  /// commit positions, type identifiers, the logical messages with
  /// `messagePrefixes` (none when empty), and numbers as text when the
  /// plugin can (2.6 and later).
  ///
  /// With `tables` (schema and name), the plugin writes the changes of
  /// those tables only; every transaction still comes, with its begin and
  /// commit, so that positions move on.
  static func pluginOptions(
    messagePrefixes: [String], numbersAsText: Bool, tables: [(schema: String, table: String)] = []
  ) -> [(String, String)] {
    var options = [
      ("format-version", "2"), ("include-xids", "1"), ("include-lsn", "1"), ("include-types", "0"),
      ("include-type-oids", "1"), ("include-timestamp", "0"),
      ("add-msg-prefixes", messagePrefixes.isEmpty ? "-" : messagePrefixes.joined(separator: ",")),
    ]
    if !tables.isEmpty {
      // wal2json splits the list at commas and names at dots, takes `*` for
      // any name, and reads a backslash as "the next character as is".
      func escaped(_ name: String) -> String {
        var text = ""
        for character in name {
          if ",.*\\".contains(character) || character.isWhitespace { text.append("\\") }
          text.append(character)
        }
        return text
      }
      options.append(("add-tables", tables.map { escaped($0.schema) + "." + escaped($0.table) }.joined(separator: ",")))
    }
    if numbersAsText { options.append(("numeric-data-types-as-string", "1")) }
    return options
  }

  /// `'text'`, quotes doubled: an SQL string literal.
  static func literal(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
  }

  /// Claims the slot and checks that no other reader acknowledged it past
  /// where this reader stands: one byte past `position`, or where the slot
  /// stood when this stream began holding it.
  ///
  /// - Throws: ``PostgresReplicaError/Code/positionNotHeld``,
  ///   ``PostgresReplicaError/Code/slotMissing``, or the server's error.
  func checkHeld(after position: PostgresPosition?) async throws {
    try await prepareSession()
    if let position { heldFrom = max(heldFrom ?? position.pastCommit, position.pastCommit) }
    try checkNotPassed(try await state())
  }

  /// Peeks at up to about `limit` lines of the slot: the whole transactions
  /// among them, and how many lines were read.
  private func read(upTo limit: Int) async throws -> ([ReplicationTransaction], Int) {
    try await probeNumberFormat()
    let options = Self.pluginOptions(
      messagePrefixes: messagePrefixes, numbersAsText: writesNumbersAsText == true, tables: tables
    )
    .map { "\(Self.literal($0.0)), \(Self.literal($0.1))" }.joined(separator: ", ")
    let rows = try await connection.query(
      """
      SELECT lsn::text, data FROM pg_logical_slot_peek_changes(\(slot), NULL, CAST(\(limit) AS integer),
        \(unescaped: options))
      """, logger: logger)
    slotReads += 1
    var assembler = TransactionAssembler(messagePrefixes: Set(messagePrefixes))
    var count = 0
    for try await (lsn, data) in rows.decode((String, ByteBuffer).self) {
      try assembler.add(data, at: lsn)
      count += 1
    }
    linesRead += count
    return (assembler.takeCompleted(), count)
  }

  /// Tells the slot that every transaction up to the one that committed at
  /// `position` is delivered, so that the database may free their WAL and
  /// the slot no longer returns them.
  ///
  /// The slot moves one byte past the start of that transaction's commit
  /// record: a reader resuming from `position` finds the slot holding every
  /// later transaction, and nothing it delivered. Acknowledging the same
  /// position again does nothing.
  ///
  /// - Throws: ``PostgresReplicaError/Code/positionNotHeld`` when the slot
  ///   was acknowledged past `position` by another reader: the
  ///   transactions in between were not delivered by this one.
  public func acknowledge(_ position: PostgresPosition) async throws {
    let target = position.pastCommit
    if acknowledgedTarget == target { return }
    try await prepareSession()
    heldFrom = max(heldFrom ?? target, target)
    let state = try await state()
    try checkNotPassed(state)
    if let acknowledged = state?.acknowledged, acknowledged >= target {
      acknowledgedTarget = target
      return
    }
    try await connection.query(
      "SELECT pg_replication_slot_advance(\(slot), CAST(\(target.description) AS pg_lsn))", logger: logger
    ).drain()
    acknowledgedTarget = target
  }
}

/// Where a replication slot stands.
public struct SlotState: Hashable, Sendable {
  /// The position acknowledged by its reader (`confirmed_flush_lsn`).
  public var acknowledged: PostgresPosition?
  /// The oldest position the slot keeps WAL for (`restart_lsn`).
  public var retained: PostgresPosition?
  /// The output plugin's name: `wal2json`.
  public var plugin: String
  /// Bytes of WAL written since the acknowledged position: how far the
  /// reader lags behind the database.
  public var unacknowledgedBytes: Int64
  /// Bytes of WAL the database keeps for the slot.
  public var retainedBytes: Int64

  /// Where the database's log ends: the acknowledged position plus the
  /// bytes written since.
  var logEnd: PostgresPosition? {
    acknowledged.map { PostgresPosition(rawValue: $0.rawValue &+ UInt64(max(0, unacknowledgedBytes))) }
  }
}

extension PostgresPosition {
  /// One byte past the start of the commit record at this position: where
  /// a slot stands once the transaction that committed here is delivered.
  /// The slot skips a transaction whose commit record starts before its
  /// acknowledged position, and every later commit record starts after
  /// this one's first byte.
  var pastCommit: PostgresPosition { PostgresPosition(rawValue: rawValue &+ 1) }
}
