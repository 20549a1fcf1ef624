public import Logging
public import PostgresNIO

/// Reads a logical replication slot with the wal2json plugin: whole
/// committed transactions in commit order, acknowledged only when the
/// reader says it has delivered them.
///
/// The stream peeks at the slot (`pg_logical_slot_peek_changes`), so
/// reading never consumes; ``acknowledge(_:)`` moves the slot forward
/// (`pg_replication_slot_advance`) to the commit position of a delivered
/// transaction. A restarted reader that passes its last delivered position
/// to ``fetch(after:limit:)`` gets every later transaction once.
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

  private var sessionIsSet = false

  private func prepareSession() async throws {
    guard !sessionIsSet else { return }
    try await connection.query("SET TimeZone = 'UTC'", logger: logger)
    try await connection.query("SET DateStyle = 'ISO'", logger: logger)
    sessionIsSet = true
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
      return false
    }
    try await connection.query(
      "SELECT pg_create_logical_replication_slot(\(slot), 'wal2json')", logger: logger)
    return true
  }

  /// Drops the slot, if it exists, so that the database stops retaining WAL
  /// for it.
  public func dropSlot() async throws {
    try await connection.query(
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = \(slot)",
      logger: logger)
  }

  /// Checks that the slot still holds every transaction after `position`.
  ///
  /// - Throws: ``PostgresReplicaError/Code/slotMissing`` without the slot,
  ///   ``PostgresReplicaError/Code/positionNotHeld`` when the slot was
  ///   acknowledged past `position` (by another reader, or dropped and
  ///   recreated): transactions after `position` may be gone, and the way
  ///   out is to load again.
  public func checkHolds(_ position: PostgresPosition) async throws {
    guard let state = try await state() else {
      throw PostgresReplicaError(.slotMissing, "slot '\(slot)' does not exist; load again to create it")
    }
    if let acknowledged = state.acknowledged, acknowledged > position {
      throw PostgresReplicaError(
        .positionNotHeld,
        "slot '\(slot)' starts at \(acknowledged), after the position \(position) to resume from;"
          + " transactions in between may be gone: load again")
    }
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
    let prefixes = messagePrefixes.isEmpty ? "-" : messagePrefixes.joined(separator: ",")
    var limit = max(1, limit)
    while true {
      let rows = try await connection.query(
        """
        SELECT lsn::text, data FROM pg_logical_slot_peek_changes(\(slot), NULL, CAST(\(limit) AS integer),
          'format-version', '2', 'include-xids', '1', 'include-lsn', '1', 'include-types', '0',
          'include-type-oids', '1', 'include-timestamp', '0', 'add-msg-prefixes', \(prefixes))
        """, logger: logger)
      var assembler = TransactionAssembler(messagePrefixes: Set(messagePrefixes))
      var count = 0
      for try await (lsn, data) in rows.decode((String, String).self) {
        try assembler.add(data, at: lsn)
        count += 1
      }
      var transactions = assembler.takeCompleted()
      if let position { transactions.removeAll { $0.position <= position } }
      // Only transactions already delivered fit under the limit: read more.
      if !transactions.isEmpty || count < limit || limit >= Int(Int32.max) / 2 { return transactions }
      limit *= 2
    }
  }

  /// Tells the slot that every transaction up to the one that committed at
  /// `position` is delivered, so that the database may free their WAL.
  ///
  /// The slot keeps the transaction at `position` itself (it is skipped by
  /// ``fetch(after:limit:)``), so that a reader resuming from `position`
  /// finds the slot holding it. A position at or before the slot's is
  /// ignored.
  public func acknowledge(_ position: PostgresPosition) async throws {
    guard let state = try await state() else {
      throw PostgresReplicaError(.slotMissing, "slot '\(slot)' does not exist")
    }
    if let acknowledged = state.acknowledged, acknowledged >= position { return }
    try await connection.query(
      "SELECT pg_replication_slot_advance(\(slot), CAST(\(position.description) AS pg_lsn))", logger: logger)
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
}
