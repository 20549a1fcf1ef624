import Logging
import PostgresNIO

extension PostgresReplica {
  /// Reads what the catalog says of every mapped table.
  ///
  /// - Throws: `mappingMismatch` for a partitioned table: wal2json names a
  ///   partitioned table's changes after the partitions that hold the rows,
  ///   so the table's own name would never come in the stream.
  static func readCatalog(
    _ mapping: ReplicaMapping, connection: PostgresConnection, logger: Logger
  ) async throws -> DatabaseCatalog {
    var tables: [String: DatabaseCatalog.Table] = [:]
    for table in mapping.resolved {
      let relation = try await connection.query(
        """
        SELECT c.oid::int8, c.relreplident::text, c.relkind::text FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = \(table.schema) AND c.relname = \(table.table) AND c.relkind IN ('r', 'p')
        """, logger: logger)
      var found: (Int64, String, String)?
      for try await row in relation.decode((Int64, String, String).self) { found = row }
      guard let (oid, identity, kind) = found else { continue }
      guard kind == "r" else {
        throw PostgresReplicaError(
          .mappingMismatch,
          "the mapping does not match the database: \(table.entity): \(table.qualifiedName) is a partitioned table,"
            + " whose changes wal2json reports under its partitions' names; map a table that is not partitioned")
      }
      var columns: [String: DatabaseCatalog.Table.Column] = [:]
      for try await (name, type, notNull) in try await connection.query(
        """
        SELECT attname::text, atttypid::int8, attnotnull FROM pg_attribute
        WHERE attrelid = \(oid)::oid AND attnum > 0 AND NOT attisdropped
        """, logger: logger
      ).decode((String, Int64, Bool).self) {
        columns[name] = .init(typeOID: UInt32(truncatingIfNeeded: type), isNotNull: notNull)
      }
      var primaryKey: [String] = []
      for try await (name, ) in try await connection.query(
        """
        SELECT a.attname::text FROM pg_index i
        CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = \(oid)::oid AND i.indisprimary ORDER BY k.position
        """, logger: logger
      ).decode((String,).self) {
        primaryKey.append(name)
      }
      var foreignKeys: [String: String] = [:]
      for try await (column, referenced) in try await connection.query(
        """
        SELECT a.attname::text, rn.nspname::text || '.' || rc.relname::text FROM pg_constraint k
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
        JOIN pg_class rc ON rc.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
        WHERE k.conrelid = \(oid)::oid AND k.contype = 'f' AND array_length(k.conkey, 1) = 1
        """, logger: logger
      ).decode((String, String).self) {
        foreignKeys[column] = referenced
      }
      tables[table.qualifiedName] = DatabaseCatalog.Table(
        columns: columns, primaryKey: primaryKey, foreignKeys: foreignKeys, hasFullReplicaIdentity: identity == "f")
    }
    return DatabaseCatalog(tables: tables)
  }

  /// Reads every row of a mapped table, each mapped column as text.
  static func readRows(
    _ table: ResolvedTable, connection: PostgresConnection, logger: Logger
  ) async throws -> [[ColumnValue]] {
    var names = [table.primaryKey] + table.attributes.map(\.column) + table.foreignKeys.map(\.column)
    var seen: Set<String> = []
    names.removeAll { !seen.insert($0).inserted }
    var oids: [UInt32] = []
    for name in names {
      for try await (oid, ) in try await connection.query(
        """
        SELECT atttypid::int8 FROM pg_attribute
        WHERE attrelid = CAST(\(table.qualifiedName) AS regclass) AND attname = \(name) AND NOT attisdropped
        """, logger: logger
      ).decode((Int64,).self) {
        oids.append(UInt32(truncatingIfNeeded: oid))
      }
    }
    guard oids.count == names.count else {
      throw PostgresReplicaError(.droppedTable, "\(table.qualifiedName) changed while loading")
    }
    let list = names.map { "\(quoted($0))::text" }.joined(separator: ", ")
    let sql = "SELECT \(list) FROM \(quoted(table.schema)).\(quoted(table.table))"
    var rows: [[ColumnValue]] = []
    for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
      // A long load stops promptly when its task is cancelled.
      if rows.count % 1024 == 0 { try Task.checkCancellation() }
      var values: [ColumnValue] = []
      values.reserveCapacity(names.count)
      for (index, cell) in row.enumerated() {
        values.append(ColumnValue(name: names[index], typeOID: oids[index], bytes: cell.bytes))
      }
      rows.append(values)
    }
    return rows
  }

  /// An identifier in double quotes, quotes inside doubled.
  static func quoted(_ identifier: String) -> String {
    "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
  }

  /// Listens on a channel on a connection of its own and signals each
  /// notification, until the task is cancelled; reconnects after a second
  /// when the connection fails.
  static func listen(
    _ channel: String, configuration: PostgresConnection.Configuration, logger: Logger, wakeUps: WakeUps
  ) async {
    while !Task.isCancelled {
      do {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        defer { Task { try? await connection.close() } }
        try await connection.listen(on: channel) { notifications in
          wakeUps.signal()
          for try await _ in notifications { wakeUps.signal() }
        }
      } catch {
        logger.warning("listening on \(channel): \(error)")
      }
      try? await Task.sleep(for: .seconds(1))
    }
  }
}
