import Foundation
import PostgresNIO

/// A throwaway server of a test's own, set up wrong on purpose (with
/// `wal_level = replica`, say) by `Scripts/postgres-test-server.sh` and its
/// `PGTEST_SETTINGS`; ``stop()`` stops it and removes its folder.
///
/// The script runs a command that prints the server's variables and reads
/// its input to the end: closing the input ends the command, and the
/// script then stops the server. (A signal would not do: a process started
/// from a test's thread inherits that thread's blocked signals.)
///
/// It listens on a port from 100 above the test server's, so that it
/// stays clear of the ports other test servers take from 55432.
final class ScratchServer {
  /// The repository's test-server script.
  static var script: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Scripts/postgres-test-server.sh")
  }

  /// libpq's variables for the server: `PGHOST`, `PGPORT`, `PGUSER`,
  /// `PGDATABASE`.
  let environment: [String: String]
  private let process: Process
  private let input: Pipe

  /// Starts a server with `settings` added to its `postgresql.conf`; tries
  /// the next port when one is taken.
  init(settings: String) async throws {
    let base = Int(ProcessInfo.processInfo.environment["PGPORT"] ?? "") ?? 55_432
    var attempt = 0
    while true {
      let process = Process()
      process.executableURL = Self.script
      process.arguments = [
        "/bin/sh", "-c",
        #"echo "PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER PGDATABASE=$PGDATABASE"; exec cat >/dev/null"#,
      ]
      process.environment = ProcessInfo.processInfo.environment.merging([
        "PGTEST_PORT": "\(base + 100 + attempt)", "PGTEST_SETTINGS": settings,
      ]) { $1 }
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      // The script prints its variables once the server is up, and exits
      // when it cannot start one.
      let line = await Task.detached {
        String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
      }.value
      var variables: [String: String] = [:]
      for pair in line.split(separator: " ") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { variables[String(parts[0])] = String(parts[1]) }
      }
      if variables["PGPORT"] != nil {
        self.process = process
        self.input = input
        environment = variables
        return
      }
      process.waitUntilExit()
      attempt += 1
      guard attempt < 10 else {
        throw ScratchServerFailure(
          message: "Scripts/postgres-test-server.sh started no server on ports from \(base + 100)")
      }
    }
  }

  /// A connection configuration for the server.
  var configuration: PostgresConnection.Configuration {
    .init(
      host: environment["PGHOST"] ?? "127.0.0.1", port: Int(environment["PGPORT"] ?? "") ?? 5432,
      username: environment["PGUSER"] ?? "postgres", password: nil, database: environment["PGDATABASE"],
      tls: .disable)
  }

  /// Runs statements separated by semicolons, one after the other, on one
  /// fresh connection, reading each one's rows.
  func execute(_ sql: String) async throws {
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: 1, logger: TestDatabase.logger)
    defer { Task { try? await connection.close() } }
    for statement in sql.split(separator: ";") {
      let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
      if !text.isEmpty {
        _ = try await connection.query(PostgresQuery(unsafeSQL: text), logger: TestDatabase.logger).collect()
      }
    }
  }

  /// Crashes the server: kills one of its processes with SIGKILL, upon
  /// which the server ends every session, recovers from its log as after
  /// a power cut (what a slot had acknowledged since the last checkpoint
  /// is forgotten), and accepts connections again.
  func crash() async throws {
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: 1, logger: TestDatabase.logger)
    var pid: Int32 = 0
    for try await (number, ) in try await connection.query("SELECT pg_backend_pid()", logger: TestDatabase.logger)
      .decode((Int32,).self)
    {
      pid = number
    }
    kill(pid, SIGKILL)
    try? await connection.close()
  }

  /// Stops the server and removes its folder.
  func stop() async {
    try? input.fileHandleForWriting.close()
    await Task.detached { [process] in process.waitUntilExit() }.value
  }
}

/// The scratch server did not start.
struct ScratchServerFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

extension FileHandle {
  /// The bytes up to the next newline (without it), or to the end.
  fileprivate func readLine() -> [UInt8] {
    var bytes: [UInt8] = []
    while let byte = try? read(upToCount: 1)?.first {
      if byte == UInt8(ascii: "\n") { break }
      bytes.append(byte)
    }
    return bytes
  }
}
