import ObjectGraph

extension PostgresReplica {
  /// Times the adapter's own work on wal2json row lines, without a
  /// database: decoding them into transactions of `rowsPerTransaction`
  /// rows, then applying each transaction to a fresh context as one save.
  /// For the timing tool.
  ///
  /// - Returns: Seconds spent decoding and applying.
  package static func measureApplyCost(
    mapping: ReplicaMapping, lines: [String], rowsPerTransaction: Int
  ) throws -> (decode: Double, apply: Double) {
    let clock = ContinuousClock()
    var assembler = TransactionAssembler(messagePrefixes: [])
    let decodeStart = clock.now
    var index = 0
    var xid: UInt32 = 1
    while index < lines.count {
      let position = PostgresPosition(rawValue: UInt64(xid) << 8)
      try assembler.add(#"{"action":"B","xid":\#(xid)}"#, at: "\(position)")
      for line in lines[index..<min(lines.count, index + rowsPerTransaction)] {
        try assembler.add(line, at: "\(position)")
      }
      try assembler.add(#"{"action":"C","xid":\#(xid),"lsn":"\#(position)"}"#, at: "\(position)")
      index += rowsPerTransaction
      xid += 1
    }
    let transactions = assembler.takeCompleted()
    let decode = clock.now - decodeStart
    let context = ObjectContext(schema: mapping.schema, name: "cost", notificationCenter: nil)
    let applier = ReplicaApplier(context: context, mapping: mapping, authorSource: .none)
    let applyStart = clock.now
    try context.performAndWait { _ in
      for transaction in transactions { _ = try applier.apply(transaction) }
    }
    let apply = clock.now - applyStart
    func seconds(_ duration: Duration) -> Double {
      Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    return (seconds(decode), seconds(apply))
  }
}
