import PostgresNIO

extension PostgresRowSequence {
  /// Reads and drops every row: the server's error for a statement comes
  /// with its rows, so a statement whose rows are not read must drain them
  /// for its error to be thrown where it runs.
  func drain() async throws {
    for try await _ in self {}
  }
}
