import PostgresNIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension PostgresConnection.Configuration {
  /// libpq's parameters for a replication connection (`replication =
  /// database`) to the same server, database and user, with the same
  /// server settings, in UTC and ISO dates as the replica's SQL sessions;
  /// and where it goes, for messages.
  ///
  /// TLS follows libpq's own settings: a configuration that requires TLS
  /// asks for `verify-full` (the server's certificate checked against
  /// libpq's root certificates) unless `PGSSLMODE` chooses; one that
  /// prefers it asks for `prefer`.
  ///
  /// - Throws: ``PostgresReplicaError/Code/invalidSetting`` for a
  ///   configuration over an established channel, which libpq cannot use.
  func libpqParameters() throws(PostgresReplicaError) -> (parameters: [(String, String)], place: String) {
    var parameters: [(String, String)] = []
    let place: String
    if let path = unixSocketPath {
      // `/run/postgresql/.s.PGSQL.5432`: libpq takes the folder and the port.
      let name = path.split(separator: "/").last.map(String.init) ?? ""
      let folder = String(path.dropLast(name.count + 1))
      let port = name.split(separator: ".").last.map(String.init) ?? "5432"
      parameters += [("host", folder.isEmpty ? "/" : folder), ("port", port)]
      place = "the socket \(path)"
    } else if let host, let port {
      parameters += [("host", host), ("port", String(port))]
      place = "\(host):\(port)"
    } else {
      throw PostgresReplicaError(
        .invalidSetting,
        "streaming needs a host and port or a socket, not an established channel: use the polling read mode")
    }
    parameters += [("user", username), ("dbname", database ?? username), ("replication", "database")]
    if let password { parameters.append(("password", password)) }
    if !tls.isAllowed {
      parameters.append(("sslmode", "disable"))
    } else if getenv("PGSSLMODE") == nil {
      parameters.append(("sslmode", tls.isEnforced ? "verify-full" : "prefer"))
    }
    let seconds = max(1, options.connectTimeout.nanoseconds / 1_000_000_000)
    parameters.append(("connect_timeout", String(seconds)))
    var settings: [String] = []
    for (name, value) in options.additionalStartupParameters {
      switch name {
      case "application_name": parameters.append((name, value))
      case "options": settings.append(value)
      default: settings.append("-c \(name)=\(Self.escapedOption(value))")
      }
    }
    // Last, so that they win: the plugin writes dates as these say.
    settings += ["-c TimeZone=UTC", "-c DateStyle=ISO"]
    parameters.append(("options", settings.joined(separator: " ")))
    return (parameters, place)
  }

  /// A setting's value in libpq's `options`, where spaces separate
  /// arguments: spaces and backslashes escaped with a backslash.
  static func escapedOption(_ value: String) -> String {
    var escaped = ""
    for character in value {
      if character == " " || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }
}
