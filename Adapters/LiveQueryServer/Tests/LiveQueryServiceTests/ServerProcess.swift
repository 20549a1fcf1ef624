import Foundation
import LoopbackHTTP
import Synchronization

/// A running `live-query-server` for end-to-end tests: started with
/// `--port 0`, its port read from the line it prints, its standard error
/// (the log) collected. Stopped with SIGTERM when the test ends.
final class ServerProcess: Sendable {
  /// The executable, next to the test bundle in the build directory.
  static var executable: URL { buildDirectory.appendingPathComponent("live-query-server") }

  static var buildDirectory: URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    // On Apple platforms the test runner is inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents"
      || directory.lastPathComponent == "MacOS"
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory
  }

  /// The secret the tests sign tokens with (`--hs256-secret-env`).
  static let secret = "an HS256 secret of at least thirty-two bytes, for tests"

  private struct Output {
    var lines: [String] = []
    var errors: [UInt8] = []
    var ended = false
  }

  private let process: Process
  private let output = Locked(Output())
  let port: Int

  /// Starts the server with `arguments` after `--port 0` and the test
  /// secret (or `keyArguments` in its place), and waits until it listens.
  init(
    _ arguments: [String], replacingKeyWith keyArguments: [String]? = nil, environment: [String: String] = [:]
  ) async throws {
    process = Process()
    process.executableURL = Self.executable
    process.arguments =
      ["--port", "0"] + (keyArguments ?? ["--hs256-secret-env", "LIVE_TEST_SECRET"]) + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["LIVE_TEST_SECRET": Self.secret, "SWIFT_BACKTRACE": "enable=no"].merging(environment) { $1 }
    ) { $1 }
    let standardOutput = Pipe()
    let standardError = Pipe()
    process.standardOutput = standardOutput
    process.standardError = standardError
    try process.run()
    Thread { [output] in
      var partial: [UInt8] = []
      while true {
        let data = standardOutput.fileHandleForReading.availableData
        if data.isEmpty {
          output.withLock { $0.ended = true }
          return
        }
        for byte in data {
          if byte == UInt8(ascii: "\n") {
            let line = String(decoding: partial, as: UTF8.self)
            output.withLock { $0.lines.append(line) }
            partial = []
          } else {
            partial.append(byte)
          }
        }
      }
    }.start()
    Thread { [output] in
      while true {
        let data = standardError.fileHandleForReading.availableData
        if data.isEmpty { return }
        output.withLock { $0.errors += data }
      }
    }.start()
    let deadline = ContinuousClock.now + .seconds(60)
    var found: Int?
    while found == nil, ContinuousClock.now < deadline {
      let (lines, ended) = output.withLock { ($0.lines, $0.ended) }
      if let line = lines.first, let range = line.range(of: #":(\d+)""#, options: .regularExpression) {
        found = Int(line[range].dropFirst().dropLast())
      } else if ended {
        break
      } else {
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    guard let found else {
      process.terminate()
      throw ServerProcessError(
        message: "the server did not start: \(String(decoding: output.withLock { $0.errors }, as: UTF8.self))")
    }
    port = found
  }

  deinit {
    if process.isRunning {
      process.terminate()
    }
  }

  var url: String { "http://127.0.0.1:\(port)" }
  var webSocketURL: String { "ws://127.0.0.1:\(port)/ws" }
  var processIdentifier: Int32 { process.processIdentifier }

  /// What the server logged so far.
  var log: String { String(decoding: output.withLock { $0.errors }, as: UTF8.self) }

  /// The last save, as `/health` reports it.
  func lastSave() throws -> Int {
    try get("/health").body.split(separator: ":").last.flatMap { Int($0.dropLast()) } ?? 0
  }

  /// Waits until `/health` reports save `sequenceNumber` or a later one,
  /// at most `timeout`.
  func waitForSave(_ sequenceNumber: Int, timeout: Duration = .seconds(60)) async throws {
    let deadline = ContinuousClock.now + timeout
    while try lastSave() < sequenceNumber, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(100))
    }
  }

  /// Sends SIGTERM and waits for the process to exit; returns its status.
  func terminate(timeout: Duration = .seconds(20)) async throws -> Int32 {
    process.terminate()
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
      guard ContinuousClock.now < deadline else {
        kill(process.processIdentifier, SIGKILL)
        throw ServerProcessError(message: "the server did not exit within \(timeout) of SIGTERM")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return process.terminationStatus
  }

  /// The server's resident memory, in bytes, from /proc.
  func residentBytes() throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { throw ServerProcessError(message: "no VmRSS in /proc/\(process.processIdentifier)/status") }
    return kilobytes * 1024
  }

  /// Fetches a path over HTTP with a plain socket (no proxy, no
  /// dependency): the status and the body.
  func get(_ path: String, headers: [String: String] = [:]) throws -> (status: Int, body: String) {
    try LoopbackHTTP.get(port: port, path: path, headers: headers)
  }
}

struct ServerProcessError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
