public import PostgresNIO

extension PostgresReplica {
  /// How a replica connects, what it maps, and how it behaves.
  public struct Configuration: Sendable {
    /// How to connect to the database (see
    /// `PostgresConnection.Configuration.fromEnvironment()`). The stream's
    /// replication connection uses the same host, port, user, password,
    /// database and server settings through libpq; its TLS follows libpq's
    /// settings (`PGSSLMODE`, `PGSSLROOTCERT`), and a configuration that
    /// requires TLS has the server's certificate verified (`verify-full`)
    /// unless `PGSSLMODE` says otherwise.
    public var connection: PostgresConnection.Configuration
    /// The replication slot's name: one per replica (per service instance).
    public var slot: String
    /// The tables and how they map to the schema.
    public var mapping: ReplicaMapping
    /// Where a transaction's author comes from.
    public var authorSource: AuthorSource
    /// What to do with a transaction that cannot be applied.
    public var failurePolicy: FailurePolicy
    /// How the replica reads the slot: ``ReadMode/streaming`` (the default)
    /// or ``ReadMode/polling``.
    public var readMode: ReadMode
    /// About how many row changes one poll reads, or, streaming, wait
    /// decoded for the replica to apply them (a transaction always comes
    /// whole); the WAL past them waits in the server.
    public var batchSize: Int
    /// Polling: how long ``run()`` waits between polls that found nothing.
    /// Both modes: how long it waits before connecting again after a lost
    /// connection.
    public var pollInterval: Duration
    /// Polling: a channel that ``run()`` listens on: a `NOTIFY` on it wakes
    /// the replica before the poll interval is over. Nil polls only.
    /// Streaming needs none.
    public var notificationChannel: String?
    /// The name of the replica's context.
    public var contextName: String

    /// Creates a configuration; the author comes from `context-watch.author`
    /// messages, a bad transaction stops the replica, the server streams
    /// the slot, about 1,000 changes wait decoded at most, and a lost
    /// connection is tried again every 100 ms.
    public init(
      connection: PostgresConnection.Configuration, slot: String, mapping: ReplicaMapping,
      authorSource: AuthorSource = .message(prefix: "context-watch.author"), failurePolicy: FailurePolicy = .stop,
      readMode: ReadMode = .streaming, batchSize: Int = 1000, pollInterval: Duration = .milliseconds(100),
      notificationChannel: String? = nil, contextName: String = "replica"
    ) {
      self.connection = connection
      self.slot = slot
      self.mapping = mapping
      self.authorSource = authorSource
      self.failurePolicy = failurePolicy
      self.readMode = readMode
      self.batchSize = batchSize
      self.pollInterval = pollInterval
      self.notificationChannel = notificationChannel
      self.contextName = contextName
    }
  }
}
