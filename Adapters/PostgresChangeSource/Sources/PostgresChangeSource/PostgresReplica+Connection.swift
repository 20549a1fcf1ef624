import PostgresNIO

extension PostgresReplica {
  /// The SQL connection, opened again when it was lost.
  ///
  /// - Throws: ``PostgresReplicaError/Code/serverError`` when the server
  ///   refuses the connection (a wrong password, a role it does not know
  ///   or admit, a database that does not exist), which trying again
  ///   cannot change; ``PostgresReplicaError/Code/connectionLost`` when no
  ///   connection could be made.
  func connect() async throws -> PostgresConnection {
    if let connection, !connection.isClosed { return connection }
    stream = nil
    do {
      let connection = try await PostgresConnection.connect(
        configuration: Self.named(configuration.connection, applicationName), id: 1, logger: logger)
      self.connection = connection
      return connection
    } catch let error as CancellationError {
      throw error
    } catch {
      throw PostgresReplicaError(
        ConnectionFailure.isRefusal(error) ? .serverError : .connectionLost,
        ConnectionFailure.describe(error, configuration: configuration.connection))
    }
  }

  /// `context-watch <slot>`: the replica's connections' `application_name`
  /// unless the configuration names another.
  nonisolated var applicationName: String { "context-watch \(configuration.slot)" }

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

  /// The mapped tables, whose changes alone the server sends.
  nonisolated var mappedTables: [(schema: String, table: String)] {
    configuration.mapping.resolved.map { ($0.schema, $0.table) }
  }

  /// The prefixes of the logical messages the replica keeps.
  nonisolated var messagePrefixes: [String] {
    if case .message(let prefix) = configuration.authorSource { [prefix] } else { [] }
  }

  /// The slot's SQL interface over `connection`; a stream opened after a
  /// lost connection holds the slot from where it stood at the start.
  func openStream(_ connection: PostgresConnection) async throws -> ChangeStream {
    if let stream, stream.connection === connection { return stream }
    let stream = ChangeStream(connection: connection, slot: configuration.slot, messagePrefixes: messagePrefixes)
    await stream.restrict(to: mappedTables)
    if let slotStart { await stream.hold(from: slotStart) }
    self.stream = stream
    return stream
  }

  /// Streaming: the feed, opened when there is none. The SQL connection's
  /// session claims the slot first, and the slot is checked, once the feed
  /// holds it, not to be acknowledged past where this replica stands.
  func openFeed() async throws -> ReplicationFeed {
    if let feed { return feed }
    let doing = "streaming slot '\(configuration.slot)'"
    let stream = try await openStream(try await connect())
    do {
      try await stream.checkHeld(after: position)
    } catch {
      throw await connectionError(error, doing)
    }
    let (parameters, place) = try Self.named(configuration.connection, applicationName).libpqParameters()
    let settings = ReplicationFeed.Settings(
      parameters: parameters, place: place, slot: configuration.slot, start: position?.pastCommit,
      pluginOptions: ChangeStream.pluginOptions(
        messagePrefixes: messagePrefixes, numbersAsText: streamKeepsNonFiniteNumbers == true, tables: mappedTables),
      messagePrefixes: Set(messagePrefixes), queueLimit: max(1, configuration.batchSize))
    let feed: ReplicationFeed
    do {
      feed = try await ReplicationFeed.open(settings)
    } catch let error as PostgresReplicaError {
      throw PostgresReplicaError(error.code, "\(doing): \(error.message)")
    }
    do {
      // Nobody moves the slot while the feed holds it: one check closes
      // the gap between the first and the start of the stream.
      try await stream.checkHeld(after: position)
    } catch {
      await feed.stop()
      throw await connectionError(error, doing)
    }
    self.feed = feed
    feedsOpened += 1
    return feed
  }

  /// What the current feed's thread has done: for tests and the timing
  /// tool.
  var feedStatistics: ReplicationFeed.Statistics? { feed?.statistics }

  /// Stops the feed, which acknowledges what was delivered and closes its
  /// connection.
  func closeFeed() async {
    guard let feed else { return }
    self.feed = nil
    await feed.stop()
  }

  /// Turns an error of the server or the connection into a replica error;
  /// forgets a connection that is no longer usable.
  func connectionError(_ error: any Error, _ doing: String) async -> any Error {
    if error is PostgresReplicaError || error is CancellationError { return error }
    let refusal = (error as? PSQLError).flatMap(ServerRefusal.init)
    if let refusal, refusal.code != .connectionLost {
      return PostgresReplicaError(refusal.code, "\(doing): \(refusal.message)")
    }
    try? await connection?.close()
    connection = nil
    stream = nil
    return PostgresReplicaError(
      .connectionLost,
      "\(doing): \(refusal?.message ?? ConnectionFailure.describe(error, configuration: configuration.connection))")
  }
}
