import Dispatch
import Foundation
import PostgresChangeSource
import PostgresNIO
import WatchFormats

/// `pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot
/// NAME] [--from POSITION]`: keeps a replica of the schema's tables and
/// prints, for every committed transaction a watch saw, the lines of
/// `context-watch replay --watches` (see ``WatchPrinter``); `{"ready":
/// true}` once the load is done; and, when standard input closes or on
/// SIGTERM, `{"position": …}`, the position to resume from with `--from`.
///
/// Errors are a sentence on standard error and exit status 1; a wrong
/// command line is exit status 64.
enum WatchCommand {
  static let usage =
    "usage: pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot NAME] [--from POSITION]"
  static let defaultSlot = "pg_watch"

  static func run(_ arguments: [String]) async -> Int32 {
    var options: [String: String] = [:]
    var rest = arguments[...]
    while let flag = rest.first {
      guard ["--schema", "--watches", "--slot", "--from"].contains(flag) else {
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
    let slot = options["--slot"] ?? defaultSlot
    guard !slot.isEmpty, slot.count <= 63,
      slot.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
    else {
      Output.error("pg-watch: watch: --slot '\(slot)' is not a slot name (up to 63 of a-z, 0-9 and _)")
      return 1
    }

    let mapping: ReplicaMapping
    do {
      mapping = try SchemaMapping.read(schemaPath)
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
      Output.error("pg-watch: cannot connect: \(error)")
      return 1
    }
    let replica = PostgresReplica(
      configuration: .init(connection: connection, slot: slot, mapping: mapping, contextName: "pg-watch"))
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
    do {
      if let from {
        try await replica.start(loadingAsOf: from)
      } else {
        try await replica.start()
      }
    } catch {
      Output.error("pg-watch: cannot start the replica on slot '\(slot)': \(error)")
      return 1
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

/// What ends a watch: standard input closing, SIGTERM, or the replica
/// failing.
///
/// `@unchecked Sendable`: `continuation` and `outcome` are guarded by
/// `lock`.
final class StopSignal: @unchecked Sendable {
  private let lock = NSLock()
  private var outcome: Bool?
  private var continuation: CheckedContinuation<Bool, Never>?
  private var sources: [any DispatchSourceSignal] = []

  init() {
    signal(SIGTERM, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
    source.setEventHandler { [weak self] in self?.finish(failed: false) }
    source.resume()
    sources.append(source)
    Thread { [weak self] in
      // Input is read and dropped; its end is the signal.
      _ = FileHandle.standardInput.readDataToEndOfFile()
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
    let waiting = continuation
    continuation = nil
    lock.unlock()
    waiting?.resume(returning: failed)
  }

  /// Waits for the first signal; true when the replica failed.
  func wait() async -> Bool {
    await withCheckedContinuation { continuation in
      lock.lock()
      if let outcome {
        lock.unlock()
        continuation.resume(returning: outcome)
      } else {
        self.continuation = continuation
        lock.unlock()
      }
    }
  }
}
