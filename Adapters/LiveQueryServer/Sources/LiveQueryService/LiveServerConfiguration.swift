public import LiveQueryCore

/// How a ``LiveServer`` listens and what it allows.
public struct LiveServerConfiguration: Sendable {
  /// The address to listen on (`127.0.0.1` by default; `0.0.0.0` for
  /// every interface).
  public var host: String
  /// The port (8080 by default; 0 picks a free one, printed at start).
  public var port: Int
  /// What one connection may do (frame size, subscriptions, outbox).
  public var limits: LiveLimits
  /// How long a client's outbox may hold frames it does not read before
  /// the connection is closed (10 s by default).
  public var slowClientTimeout: Duration
  /// How long a connection without an `Authorization` header has to send
  /// its `auth` frame (10 s by default).
  public var authenticationTimeout: Duration
  /// Whether `/demo-token` hands out tokens signed with the server's
  /// HS256 secret: for the demo only, never in production.
  public var issuesDemoTokens: Bool
  /// Nil (the default) for live subscriptions; given, every connection is
  /// the polling baseline (see `LiveSession`'s `pollingInterval`), for
  /// load tests that compare the two.
  public var pollingInterval: Duration?
  /// How long a session whose client went away waits, subscribed, for the
  /// client to resume it (30 s by default; zero for never).
  public var resumeWindow: Duration
  /// The bytes of frames a session keeps after writing them, to send again
  /// to a client that resumes (256 KiB by default); a client that missed
  /// more gets fresh snapshots.
  public var replayBytes: Int

  /// Creates a configuration; every argument defaults to the value
  /// documented on its property.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, limits: LiveLimits = LiveLimits(),
    slowClientTimeout: Duration = .seconds(10), authenticationTimeout: Duration = .seconds(10),
    issuesDemoTokens: Bool = false, pollingInterval: Duration? = nil, resumeWindow: Duration = .seconds(30),
    replayBytes: Int = 256 * 1024
  ) {
    self.resumeWindow = resumeWindow
    self.replayBytes = replayBytes
    self.pollingInterval = pollingInterval
    self.host = host
    self.port = port
    self.limits = limits
    self.slowClientTimeout = slowClientTimeout
    self.authenticationTimeout = authenticationTimeout
    self.issuesDemoTokens = issuesDemoTokens
  }
}
