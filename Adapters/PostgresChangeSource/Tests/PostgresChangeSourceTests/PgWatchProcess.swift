import Foundation
import Synchronization

/// A running `pg-watch` for end-to-end tests: its standard output read line
/// by line as it comes, its standard error collected, its standard input
/// open until ``closeInput()``.
final class PgWatchProcess {
  /// The executable, next to the test bundle in the build directory.
  static var executable: URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    // On Apple platforms the test runner is inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents"
      || directory.lastPathComponent == "MacOS"
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("pg-watch")
  }

  private let process: Process
  private let input: Pipe
  private let state = OutputState()

  /// Starts `pg-watch arguments...` with the test's environment and
  /// `environment` over it.
  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    // A write to the input of a process that has exited must fail with
    // EPIPE, not kill the test process.
    signal(SIGPIPE, SIG_IGN)
    process = Process()
    process.executableURL = Self.executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    Thread { [state] in
      while true {
        let data = output.fileHandleForReading.availableData
        state.value.withLock { state in
          if data.isEmpty {
            state.ended = true
            if !state.partial.isEmpty { state.lines.append(String(decoding: state.partial, as: UTF8.self)) }
            state.partial = []
            return
          }
          for byte in data {
            if byte == UInt8(ascii: "\n") {
              state.lines.append(String(decoding: state.partial, as: UTF8.self))
              state.partial = []
            } else {
              state.partial.append(byte)
            }
          }
        }
        if data.isEmpty { return }
      }
    }.start()
    Thread { [state] in
      let data = errors.fileHandleForReading.readDataToEndOfFile()
      state.value.withLock { $0.errors = Array(data) }
    }.start()
  }

  /// The lines printed so far.
  var lines: [String] { state.value.withLock { $0.lines } }

  /// Waits until `count` lines are printed or the output ends, at most
  /// `timeout`; returns the lines printed by then.
  @discardableResult
  func waitForLines(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [String] {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let (lines, ended) = state.value.withLock { ($0.lines, $0.ended) }
      if lines.count >= count || ended { return lines }
      try await Task.sleep(for: .milliseconds(10))
    }
    return lines
  }

  /// Closes standard input (pg-watch then stops) and waits for the exit.
  func closeInput() throws {
    try input.fileHandleForWriting.close()
  }

  /// Sends `signal` (SIGTERM, SIGINT).
  func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

  /// Waits for the process to exit, at most `timeout`: its status and
  /// every line it printed, and its standard error.
  func finish(timeout: Duration = .seconds(60)) async throws -> (status: Int32, lines: [String], errors: String) {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    if process.isRunning {
      process.interrupt()
      process.waitUntilExit()
    }
    // The readers finish once the pipes close.
    while ContinuousClock.now < deadline, !state.value.withLock({ $0.ended }) {
      try await Task.sleep(for: .milliseconds(10))
    }
    try await Task.sleep(for: .milliseconds(50))
    return state.value.withLock { (process.terminationStatus, $0.lines, String(decoding: $0.errors, as: UTF8.self)) }
  }
}

/// What a process printed, filled by reader threads.
private final class OutputState: Sendable {
  let value = Mutex<(lines: [String], partial: [UInt8], ended: Bool, errors: [UInt8])>(([], [], false, []))
}
