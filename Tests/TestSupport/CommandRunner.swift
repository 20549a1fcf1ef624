import Foundation

/// Runs the built `context-watch` executable, for end-to-end tests of the
/// command line.
package enum CommandRunner {
  /// What a run of the command printed, and how it exited.
  package struct Outcome: Sendable {
    package var status: Int32
    package var output: String
    package var errorOutput: String
  }

  /// The executable, next to the test bundle in the build directory.
  static var executable: URL {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    // On Apple platforms the test runner is inside an .xctest bundle.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents"
      || directory.lastPathComponent == "MacOS"
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("context-watch")
  }

  /// Runs `context-watch arguments...` with `input` on standard input.
  ///
  /// A command may exit without reading all of its input (a refused file,
  /// say): that is its choice, not a failure of the run. The write then
  /// meets a closed pipe, which must raise neither SIGPIPE (whose default
  /// action would kill the whole test process) nor a trap.
  package static func run(_ arguments: [String], input: String = "") throws -> Outcome {
    try run(arguments, bytes: Array(input.utf8))
  }

  /// Runs `context-watch arguments...` with `bytes` on standard input, as
  /// they are (invalid UTF-8 included).
  package static func run(_ arguments: [String], bytes: [UInt8]) throws -> Outcome {
    ignoreBrokenPipes
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Write and read concurrently so that large inputs cannot deadlock.
    let written = DispatchSemaphore(value: 0)
    let writer = Thread {
      // EPIPE when the command exited before reading everything.
      try? stdin.fileHandleForWriting.write(contentsOf: Data(bytes))
      try? stdin.fileHandleForWriting.close()
      written.signal()
    }
    writer.start()
    let errorData = ErrorCollector(stderr.fileHandleForReading)
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    written.wait()
    return Outcome(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
      errorOutput: errorData.text())
  }
}

/// Ignores SIGPIPE in this process, once: a write to a pipe whose reader
/// has exited then fails with EPIPE instead of killing the process.
private let ignoreBrokenPipes: Void = {
  _ = signal(SIGPIPE, SIG_IGN)
}()

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
  // @unchecked Sendable: `data` is written by the reading thread before
  // `done` is signalled and read only after waiting on it.
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }.start()
  }

  func text() -> String {
    done.wait()
    return String(decoding: data, as: UTF8.self)
  }
}
