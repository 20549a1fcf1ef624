public import PostgresNIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension PostgresConnection.Configuration {
  /// A configuration from libpq's environment variables: `PGHOST` (default
  /// `127.0.0.1`; a path starting with `/` is a Unix socket folder),
  /// `PGPORT` (5432), `PGUSER` (`postgres`), `PGPASSWORD` (none) and
  /// `PGDATABASE` (the user's name), without TLS; `PGOPTIONS` (server
  /// settings for the session, `-c name=value ...`) is passed to the server
  /// as libpq passes it.
  ///
  /// ```swift
  /// let configuration = try PostgresConnection.Configuration.fromEnvironment()
  /// ```
  ///
  /// - Throws: ``PostgresReplicaError/Code/invalidSetting`` when `PGPORT`
  ///   is not a port number.
  public static func fromEnvironment() throws -> PostgresConnection.Configuration {
    func variable(_ name: String) -> String? {
      guard let value = getenv(name) else { return nil }
      let text = String(cString: value)
      return text.isEmpty ? nil : text
    }
    let host = variable("PGHOST") ?? "127.0.0.1"
    let portText = variable("PGPORT") ?? "5432"
    guard let port = Int(portText), (1...65_535).contains(port) else {
      throw PostgresReplicaError(
        .invalidSetting, "PGPORT is '\(portText)', which is not a port number (1 to 65535): set it to the server's port"
      )
    }
    let user = variable("PGUSER") ?? "postgres"
    let database = variable("PGDATABASE") ?? user
    let password = variable("PGPASSWORD")
    var configuration: PostgresConnection.Configuration
    if host.hasPrefix("/") {
      configuration = .init(
        unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
    } else {
      configuration = .init(
        host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
    if let options = variable("PGOPTIONS") {
      configuration.options.additionalStartupParameters.append(("options", options))
    }
    return configuration
  }
}
