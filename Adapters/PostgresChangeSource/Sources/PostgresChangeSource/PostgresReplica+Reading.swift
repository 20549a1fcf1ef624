import Dispatch
import Logging
import ObjectGraph
import Synchronization

extension PostgresReplica {
  /// What one reading of the slot did: the saves and the transactions it
  /// applied or passed over; streaming, how far the server had sent, and
  /// the feed and its version to wait on for more.
  struct ReadRound {
    var saves = 0
    var transactions = 0
    var received = PostgresPosition(rawValue: 0)
    var feed: ReplicationFeed?
    var version: UInt64 = 0
  }

  /// Reads what the slot has now and applies it, one reading at a time.
  ///
  /// - Parameter target: Streaming: a position the caller waits for; the
  ///   feed asks the server how far it has sent until it is past it.
  func readOnce(wanting target: PostgresPosition? = nil) async throws -> ReadRound {
    await beginReading()
    defer { endReading() }
    switch configuration.readMode {
    case .polling: return try await pollSlot()
    case .streaming: return try await takeFromFeed(wanting: target)
    }
  }

  private func beginReading() async {
    guard reading else {
      reading = true
      return
    }
    // The reading that ends hands its turn over: `reading` stays true.
    await withCheckedContinuation { readingWaiters.append($0) }
  }

  private func endReading() {
    if readingWaiters.isEmpty {
      reading = false
    } else {
      readingWaiters.removeFirst().resume()
    }
  }

  /// Polling: peeks at the slot, applies, acknowledges.
  private func pollSlot() async throws -> ReadRound {
    let stream = try await openStream(try await connect())
    let transactions: [ReplicationTransaction]
    do {
      transactions = try await stream.fetch(after: position, limit: configuration.batchSize)
    } catch {
      throw await connectionError(error, "reading slot '\(configuration.slot)'")
    }
    let (saves, failure) = await apply(transactions)
    if let position {
      do {
        try await stream.acknowledge(position)
      } catch {
        throw await connectionError(error, "acknowledging \(position) to slot '\(configuration.slot)'")
      }
    }
    if let failure { throw failure }
    return ReadRound(saves: saves, transactions: transactions.count)
  }

  /// Streaming: takes what the server has pushed, applies it, and
  /// acknowledges it; a feed that ended is closed, and its end thrown once
  /// every transaction it brought is applied, unless it is a lost
  /// connection, which is opened again.
  private func takeFromFeed(wanting target: PostgresPosition?) async throws -> ReadRound {
    // A feed that ended with nothing left to apply: a lost connection is
    // replaced at once, as a poll opens a lost SQL connection again; any
    // other end (the server's error, a record that is not wal2json's) is
    // thrown, as polling throws it, since a new feed would meet it again.
    if let ended = feed, ended.hasEndedEmpty {
      let end = ended.take().failure
      await closeFeed()
      if let end { try throwUnlessLost(end) }
    }
    let feed = try await openFeed()
    if let target { feed.want(target) }
    let batch = feed.take()
    // A feed opened again after a lost connection may bring transactions
    // this replica applied: the slot's acknowledgement may lag.
    let transactions = batch.transactions.filter { transaction in position.map { transaction.position > $0 } ?? true }
    let (saves, failure) = await apply(transactions)
    if let position { feed.acknowledge(position) }
    if let failure {
      // The next reading streams again from the last good transaction.
      await closeFeed()
      throw failure
    }
    if let end = batch.failure {
      await closeFeed()
      try throwUnlessLost(end)
      // A lost connection is opened again at once; when that fails, the
      // caller hears of it.
      return ReadRound(
        saves: saves, transactions: transactions.count, received: batch.received, feed: try await openFeed())
    }
    return ReadRound(
      saves: saves, transactions: transactions.count, received: batch.received, feed: feed, version: batch.version)
  }

  /// Throws the end of a feed, naming the slot, unless the feed's
  /// connection was lost, which is logged.
  private func throwUnlessLost(_ end: PostgresReplicaError) throws(PostgresReplicaError) {
    guard end.code == .connectionLost else {
      throw PostgresReplicaError(end.code, "streaming slot '\(configuration.slot)': \(end.message)")
    }
    logger.warning("streaming slot '\(configuration.slot)': \(end.message)")
  }

  /// Applies transactions in commit order in one visit to the context's
  /// queue: each that touches a mapped table as one save, the others (and
  /// those the load's snapshot saw) passed over. Under
  /// ``FailurePolicy/stop`` it stops at the first that fails; under
  /// ``FailurePolicy/skip`` that one goes to ``failures``.
  ///
  /// - Returns: The saves made, and the failure that stopped it.
  func apply(_ transactions: [ReplicationTransaction]) async -> (saves: Int, failure: PostgresReplicaError?) {
    guard !transactions.isEmpty else { return (0, nil) }
    let applier = self.applier
    let context = self.context
    let snapshot = loadSnapshot
    let stopsAtFailure = configuration.failurePolicy == .stop
    let outcomes = await withCheckedContinuation { continuation in
      context.queue.async { [self] in
        var outcomes: [(PostgresPosition, Result<Bool, PostgresReplicaError>)] = []
        outcomes.reserveCapacity(transactions.count)
        for transaction in transactions {
          if snapshot?.sees(transaction.xid) == true || !applier.touchesMappedTables(transaction) {
            outcomes.append((transaction.position, .success(false)))
            continue
          }
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
          switch result {
          case .success: outcomes.append((transaction.position, .success(true)))
          case .failure(let error): outcomes.append((transaction.position, .failure(error)))
          }
          if case .failure = result, stopsAtFailure { break }
        }
        continuation.resume(returning: outcomes)
      }
    }
    var saves = 0
    for (transactionPosition, outcome) in outcomes {
      switch outcome {
      case .success(let saved):
        if saved { saves += 1 }
        position = transactionPosition
      case .failure(let error):
        guard !stopsAtFailure else { return (saves, error) }
        failures.append(error)
        position = transactionPosition
      }
    }
    return (saves, nil)
  }
}
