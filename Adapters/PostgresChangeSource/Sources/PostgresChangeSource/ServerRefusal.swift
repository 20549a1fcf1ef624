import PostgresNIO

/// A statement the server refused, as a replica error's code and one
/// sentence: the server's message, the cause a user can act on when it is
/// a known one, and the server's hint.
struct ServerRefusal {
  var code: PostgresReplicaError.Code
  var message: String

  /// Nil for an error that is not the server's.
  init?(_ error: PSQLError) {
    guard let serverMessage = error.serverInfo?[.message] else { return nil }
    self.init(state: error.serverInfo?[.sqlState] ?? "", message: serverMessage, hint: error.serverInfo?[.hint])
  }

  /// The refusal of a server's error fields: SQLSTATE, message and hint.
  init(state: String, message serverMessage: String, hint: String?) {
    code =
      switch state {
      case "42704": .slotMissing
      // The connection ended, not the statement: an administrator ended
      // the session (pg_terminate_backend), the server crashed or is
      // restarting, or the connection broke. The next call opens another.
      case "57P01", "57P02", "57P03": .connectionLost
      case _ where state.hasPrefix("08"): .connectionLost
      default: .serverError
      }
    var text = "the server said: \(serverMessage)" + (state.isEmpty ? "" : " (SQLSTATE \(state))")
    if let cause = Self.cause(state: state, message: serverMessage) { text += "; \(cause)" }
    if let hint, !hint.isEmpty { text += " (the server's hint: \(hint))" }
    message = text
  }

  /// What the user can do about a refusal the replica knows.
  static func cause(state: String, message: String) -> String? {
    // A refused replication connection: libpq gives its message without
    // a SQLSTATE.
    if state.isEmpty, let advice = connectionAdvice(message) { return advice }
    if message.contains("wal2json") && message.contains("may not be used as an output plugin") {
      return "the server does not trust wal2json as an output plugin: add it to output_plugin_libraries"
        + " in postgresql.conf (PostgreSQL 15.19 and later) and reload the server"
    }
    if message.contains("wal2json") && (state == "58P01" || message.contains("could not access file")) {
      return "wal2json is not installed on the server: install it (Debian: postgresql-15-wal2json)"
    }
    if message.contains("wal_level") {
      return "the server's wal_level is not logical: set wal_level = logical in postgresql.conf and restart it"
    }
    if message.contains("max_replication_slots > 0") {
      return "the server allows no replication slot: set max_replication_slots to 1 or more in"
        + " postgresql.conf and restart it"
    }
    if message.contains("exceeds max_wal_senders") {
      return "the server has no free WAL sender for the stream: raise max_wal_senders in postgresql.conf and"
        + " restart it, or read with the polling read mode"
    }
    if state == "53400" || message.contains("all replication slots are in use") {
      return "the server has no free replication slot: drop an unused one (pg_drop_replication_slot)"
        + " or raise max_replication_slots"
    }
    if state == "55006" && message.contains("is active for PID") {
      return "another session reads the slot: stop it (pg_terminate_backend on that PID), or give each"
        + " reader a slot of its own"
    }
    if (state == "42501" && message.contains("replication")) || message.contains("superuser or replication role") {
      return "the user lacks the replication privilege: ALTER ROLE ... WITH REPLICATION, or connect as one that has it"
    }
    if state == "42501" && message.hasPrefix("permission denied for schema ") {
      let schema = message.dropFirst("permission denied for schema ".count)
      return "the user may not use schema \(schema): GRANT USAGE ON SCHEMA \(schema) to it, or connect as one that may"
    }
    if state == "42501" && message.hasPrefix("permission denied for table ") {
      let table = message.dropFirst("permission denied for table ".count)
      return "the user may not read table \(table): GRANT SELECT on it to the user, or connect as one that may"
    }
    return nil
  }

  /// What to check for a refused connection, by the server's message, as
  /// `ConnectionFailure` says it by SQLSTATE.
  private static func connectionAdvice(_ message: String) -> String? {
    if message.hasPrefix("password authentication failed for user ") { return "check PGUSER and PGPASSWORD" }
    if message.hasPrefix("role ") && message.hasSuffix(" does not exist") {
      return "check PGUSER, and that the server's pg_hba.conf admits it from this host"
    }
    if message.hasPrefix("no pg_hba.conf entry ") {
      return "check PGUSER, and that the server's pg_hba.conf admits it from this host"
    }
    if message.hasPrefix("database ") && message.hasSuffix(" does not exist") { return "check PGDATABASE" }
    return nil
  }
}
