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
    let state = error.serverInfo?[.sqlState] ?? ""
    code = state == "42704" ? .slotMissing : .serverError
    var text = "the server said: \(serverMessage) (SQLSTATE \(state))"
    if let cause = Self.cause(state: state, message: serverMessage) { text += "; \(cause)" }
    if let hint = error.serverInfo?[.hint] { text += " (the server's hint: \(hint))" }
    message = text
  }

  /// What the user can do about a refusal the replica knows.
  static func cause(state: String, message: String) -> String? {
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
    if state == "42501" || message.contains("permission denied") {
      return "the user lacks the replication privilege: ALTER ROLE ... WITH REPLICATION, or connect as one that has it"
    }
    if state == "53400" || message.contains("all replication slots are in use") {
      return "the server has no free replication slot: drop an unused one (pg_drop_replication_slot)"
        + " or raise max_replication_slots"
    }
    return nil
  }
}
