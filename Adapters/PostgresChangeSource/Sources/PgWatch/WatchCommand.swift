import Dispatch
import Foundation
import ObjectGraph
import PostgresChangeSource
import PostgresNIO
import PredicateDSL
import Synchronization
import WatchFormats

/// `pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot
/// NAME] [--from POSITION] [--read stream|poll]`: keeps a replica of the schema's tables and
/// prints, for every committed transaction a watch saw, the lines of
/// `context-watch replay --watches` (see ``WatchPrinter``); `{"ready":
/// true}` once the load is done; and, when standard input closes or on
/// SIGTERM, `{"position": …}`, the position to resume from with `--from`.
/// A stop during the load ends it at once: no ready line, and the position
/// is the one given with `--from`, or null. The server streams the slot
/// unless `--read poll` asks for polling.
///
/// Errors are a sentence on standard error and exit status 1; a wrong
/// command line is exit status 64.
enum WatchCommand {
  static let usage =
    "usage: pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot NAME] [--from POSITION]"
    + " [--read stream|poll]"
  static let defaultSlot = "pg_watch"

  static func run(_ arguments: [String]) async -> Int32 {
    var options: [String: String] = [:]
    var rest = arguments[...]
    while let flag = rest.first {
      guard ["--schema", "--watches", "--slot", "--from", "--read"].contains(flag) else {
        Output.error("pg-watch: watch: unknown argument '\(flag)'\n\(usage)")
        return 64
      }
      guard let value = rest.dropFirst().first else {
        Output.error("pg-watch: watch: \(flag) needs a value\n\(usage)")
        return 64
      }
      guard options[flag] == nil else {
        Output.error("pg-watch: watch: \(flag) is given twice\n\(usage)")
        return 64
      }
      options[flag] = value
      rest = rest.dropFirst(2)
    }
    guard let schemaPath = options["--schema"], let watchesPath = options["--watches"] else {
      Output.error("pg-watch: watch: needs --schema and --watches\n\(usage)")
      return 64
    }
    var from: PostgresPosition?
    if let text = options["--from"] {
      guard let position = PostgresPosition(text) else {
        Output.error("pg-watch: watch: --from '\(text)' is not a position (like 0/16B3F40)\n\(usage)")
        return 64
      }
      from = position
    }
    let readMode: PostgresReplica.ReadMode
    switch options["--read"] ?? "stream" {
    case "stream": readMode = .streaming
    case "poll": readMode = .polling
    case let other:
      Output.error("pg-watch: watch: --read '\(other)' is not a read mode: stream or poll\n\(usage)")
      return 64
    }
    let slot = options["--slot"] ?? defaultSlot
    guard !slot.isEmpty, slot.count <= 63,
      slot.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
    else {
      Output.error("pg-watch: watch: --slot '\(slot)' is not a slot name (up to 63 of a-z, 0-9 and _)\n\(usage)")
      return 64
    }

    let mapping: ReplicaMapping
    do {
      mapping = try ReplicaMapping.read(schemaFile: schemaPath)
    } catch {
      Output.error("pg-watch: \(schemaPath): \(error.description)")
      return 1
    }
    let watchesFile: WatchesFile
    do {
      watchesFile = try WatchesFile.read(watchesPath)
    } catch {
      Output.error("pg-watch: \(watchesPath): \(error)")
      return 1
    }
    let connection: PostgresConnection.Configuration
    do {
      connection = try .fromEnvironment()
    } catch {
      Output.error("pg-watch: \((error as? PostgresReplicaError)?.message ?? "\(error)")")
      return 1
    }
    let replica = PostgresReplica(
      configuration: .init(
        connection: connection, slot: slot, mapping: mapping, readMode: readMode, contextName: "pg-watch"))
    // The file's problems and the schema's come in one report.
    var problems = watchesFile.problems
    var created: WatchPrinter?
    do {
      created = try WatchPrinter(replica: replica, watches: watchesFile.watches, write: Output.line)
    } catch {
      problems += error.messages
    }
    guard problems.isEmpty, let printer = created else {
      let count = problems.count
      Output.error("pg-watch: \(watchesPath): \(count == 1 ? "a watch is" : "\(count) watches are") invalid")
      for message in problems { Output.error(message) }
      return 1
    }

    let stop = StopSignal()
    let starting = Task {
      if let from {
        try await replica.start(loadingAsOf: from)
      } else {
        try await replica.start()
      }
    }
    // A stop during the start ends the process at once: the load may be
    // waiting on the server (for a lock, say), and it has acknowledged
    // nothing, so the slot keeps every transaction for the next start.
    let phase = Mutex(StartPhase.starting)
    let interrupt = Task {
      guard await stop.wait() == false,
        phase.withLock({ phase in
          guard phase == .starting else { return false }
          phase = .interrupted
          return true
        })
      else { return }
      Output.line(JSONValue.object([("position", from.map { .string($0.description) } ?? .null)]).serialized)
      exit(0)
    }
    let startFailure: (any Error)?
    do {
      try await starting.value
      startFailure = nil
    } catch {
      startFailure = error
    }
    let interrupted = phase.withLock { phase in
      if phase == .starting { phase = .started }
      return phase == .interrupted
    }
    // The interruption ends the process.
    if interrupted { await interrupt.value }
    if let startFailure {
      stop.finish(failed: true)
      _ = await interrupt.value
      Output.error("pg-watch: cannot start the replica on slot '\(slot)': \(startFailure)")
      return 1
    }
    if await replica.streamKeepsNonFiniteNumbers == false,
      mapping.schema.entities.contains(where: { $0.attributes.contains { $0.type == .double } })
    {
      Output.error(
        "pg-watch: warning: the server's wal2json is older than 2.6 and writes NaN and ±Infinity as null:"
          + " a double attribute's NaN or infinity reads as null once its row changes; install wal2json 2.6"
          + " or later to keep them")
    }
    printer.start()
    Output.line(#"{"ready":true}"#)
    let running = Task { try await replica.run() }
    let failure = Task {
      do {
        try await running.value
      } catch is CancellationError {
      } catch {
        Output.error("pg-watch: stopped: \(error)")
        stop.finish(failed: true)
      }
    }
    let failed = await stop.wait()
    running.cancel()
    _ = await failure.value
    let position = await replica.position
    await replica.stop()
    Output.line(
      JSONValue.object([("position", position.map { .string($0.description) } ?? .null)]).serialized)
    return failed ? 1 : 0
  }
}

/// Where a watch's start stands when a stop comes: a stop during the start
/// ends the process.
enum StartPhase {
  case starting, started, interrupted
}

/// What ends a watch: standard input closing, SIGTERM, or the replica
/// failing.
///
/// `@unchecked Sendable`: `continuations` and `outcome` are guarded by
/// `lock`.
final class StopSignal: @unchecked Sendable {
  private let lock = NSLock()
  private var outcome: Bool?
  private var continuations: [CheckedContinuation<Bool, Never>] = []
  private var sources: [any DispatchSourceSignal] = []

  init() {
    signal(SIGPIPE, SIG_IGN)
    // SIGTERM and SIGINT (Ctrl-C) stop the watch as the end of input does:
    // with the position line, for --from.
    for number in [SIGTERM, SIGINT] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [weak self] in self?.finish(failed: false) }
      source.resume()
      sources.append(source)
    }
    Thread { [weak self] in
      // Input is read and dropped, a block at a time (none of it is kept);
      // its end, or a read that fails, is the signal.
      var block = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = block.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count == 0 || (count < 0 && errno != EINTR) { break }
      }
      self?.finish(failed: false)
    }.start()
  }

  /// Ends the wait; the first call decides the outcome.
  func finish(failed: Bool) {
    lock.lock()
    guard outcome == nil else {
      lock.unlock()
      return
    }
    outcome = failed
    let waiting = continuations
    continuations = []
    lock.unlock()
    for continuation in waiting { continuation.resume(returning: failed) }
  }

  /// Whether a signal came.
  var isFinished: Bool {
    lock.lock()
    defer { lock.unlock() }
    return outcome != nil
  }

  /// Waits for the first signal (any number of tasks may wait); true when
  /// the replica failed.
  func wait() async -> Bool {
    await withCheckedContinuation { continuation in
      lock.lock()
      if let outcome {
        lock.unlock()
        continuation.resume(returning: outcome)
      } else {
        continuations.append(continuation)
        lock.unlock()
      }
    }
  }
}
