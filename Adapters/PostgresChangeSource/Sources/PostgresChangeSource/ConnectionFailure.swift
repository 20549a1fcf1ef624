import PostgresNIO

/// One sentence for a failed connection: the cause a user can act on and
/// the setting to check, never the client library's dump.
enum ConnectionFailure {
  /// `cannot connect to the database 'orders' at 127.0.0.1:5432 as 'app':
  /// password authentication failed for user "app"; check PGUSER and
  /// PGPASSWORD`.
  static func describe(_ error: any Error, configuration: PostgresConnection.Configuration) -> String {
    let database = configuration.database ?? configuration.username
    let place =
      configuration.unixSocketPath.map { "the socket \($0)" }
      ?? "\(configuration.host ?? "?"):\(configuration.port.map(String.init) ?? "?")"
    let start = "cannot connect to the database '\(database)' at \(place) as '\(configuration.username)'"
    guard let error = error as? PSQLError else { return "\(start): \(error)" }
    if let message = error.serverInfo?[.message] {
      let state = error.serverInfo?[.sqlState] ?? ""
      let advice =
        switch state {
        case "28P01": "check PGUSER and PGPASSWORD"
        case "28000": "check PGUSER, and that the server's pg_hba.conf admits it from this host"
        case "3D000": "check PGDATABASE"
        case "53300": "the server has no free connection; raise max_connections or close others"
        case "57P03": "the server is starting or stopping; try again when it is up"
        default: "the server refused the connection (SQLSTATE \(state))"
        }
      return "\(start): \(message); \(advice)"
    }
    switch error.code {
    case .connectionError, .serverClosedConnection, .uncleanShutdown:
      let cause = error.underlying.map { ": \(Self.shortCause($0))" } ?? ""
      let settings = configuration.unixSocketPath == nil ? "PGHOST and PGPORT" : "PGHOST (a socket folder) and PGPORT"
      return "\(start): no server answered there\(cause); check \(settings), and that the server is running"
    case .authMechanismRequiresPassword:
      return "\(start): the server asks for a password; set PGPASSWORD"
    case .unsupportedAuthMechanism, .saslError:
      return "\(start): the server's authentication method is not supported; check the server's pg_hba.conf"
    case .sslUnsupported:
      return "\(start): the server does not support TLS"
    default:
      return "\(start): \(error.code)"
    }
  }

  /// Whether the server refused the connection for a reason that trying
  /// again cannot change: the password, the role or `pg_hba.conf`
  /// (SQLSTATE class 28), or a database that does not exist (3D000). A
  /// replica ends with such a refusal instead of connecting again.
  static func isRefusal(_ error: any Error) -> Bool {
    guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
    return state.hasPrefix("28") || state == "3D000"
  }

  /// `connection refused`: the underlying error in a few words.
  private static func shortCause(_ error: any Error) -> String {
    let text = String(describing: error)
    if text.contains("refused") { return "connection refused" }
    if text.contains("timed out") || text.contains("timeout") { return "timed out" }
    if text.contains("No such file") { return "no such socket" }
    if text.contains("resolve") || text.contains("getaddrinfo") { return "the host name does not resolve" }
    return text
  }
}
