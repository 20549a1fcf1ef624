/// Turns rows read now back into the rows as they were at an earlier
/// position, by undoing the transactions committed since, newest first,
/// from their before images.
enum RowUndo {
  /// The rows of each table as they were before `transactions` (in commit
  /// order, all committed after `position`), given the rows as they are
  /// after them. Rows keep their order; rows brought back come last.
  ///
  /// - Throws: ``PostgresReplicaError/Code/positionNotHeld`` for a
  ///   `TRUNCATE` of a mapped table (its earlier rows are not in the
  ///   stream), ``PostgresReplicaError/Code/brokenRow`` for a change
  ///   without its primary key.
  static func rows(
    _ rows: [(ResolvedTable, [[ColumnValue]])], undoing transactions: [ReplicationTransaction],
    since position: PostgresPosition
  ) throws(PostgresReplicaError) -> [(ResolvedTable, [[ColumnValue]])] {
    guard !transactions.isEmpty else { return rows }
    var tables: [String: Int] = [:]
    // Per table: rows by primary key text, nil once removed, with the
    // keys in their first order.
    var byKey: [[String: [ColumnValue]?]] = []
    var order: [[String]] = []
    for (index, (table, tableRows)) in rows.enumerated() {
      tables[table.qualifiedName] = index
      var keyed: [String: [ColumnValue]?] = [:]
      var keys: [String] = []
      for row in tableRows {
        let key = try primaryKey(row, table)
        keyed[key] = row
        keys.append(key)
      }
      byKey.append(keyed)
      order.append(keys)
    }
    for transaction in transactions.reversed() {
      for change in transaction.changes.reversed() {
        guard let index = tables[change.qualifiedTable] else { continue }
        let table = rows[index].0
        func put(_ row: [ColumnValue]) throws(PostgresReplicaError) {
          let key = try primaryKey(row, table)
          if byKey[index][key] == nil { order[index].append(key) }
          byKey[index][key] = .some(row)
        }
        func remove(_ row: [ColumnValue]) throws(PostgresReplicaError) {
          let key = try primaryKey(row, table)
          if byKey[index][key] != nil { byKey[index][key] = .some(nil) }
        }
        switch change.kind {
        case .insert:
          try remove(change.columns)
        case .update:
          try remove(change.columns)
          try put(change.identity)
        case .delete:
          try put(change.identity)
        case .truncate:
          throw PostgresReplicaError(
            .positionNotHeld,
            "cannot load \(table.qualifiedName) as it was at \(position): a later transaction truncated it,"
              + " so its earlier rows are gone; load without a position",
            position: transaction.position)
        }
      }
    }
    return rows.enumerated().map { index, entry in
      (entry.0, order[index].compactMap { byKey[index][$0] ?? nil })
    }
  }

  private static func primaryKey(
    _ row: [ColumnValue], _ table: ResolvedTable
  ) throws(PostgresReplicaError) -> String {
    guard let text = row.first(where: { $0.name == table.primaryKey })?.text else {
      throw PostgresReplicaError(
        .brokenRow,
        "\(table.qualifiedName): a change has no \(table.primaryKey) (is the table under REPLICA IDENTITY FULL?)")
    }
    return text
  }
}
