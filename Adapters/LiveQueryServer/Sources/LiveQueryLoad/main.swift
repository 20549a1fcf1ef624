// live-query-load: opens connections to a live-query server on loopback,
// holds subscriptions, and measures commit-to-client latency and the
// server's CPU and memory. See docs/live-queries.md ("Load").

import ArgumentReading
import Foundation
import LiveQueryService
import LoopbackHTTP
import PredicateDSL
import WatchFormats

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("live-query-load: \(message)\n".utf8))
  exit(1)
}

/// The server's CPU seconds and resident bytes, from /metrics.
func serverUsage(port: Int) -> (cpu: Double, resident: Double) {
  guard let body = try? LoopbackHTTP.get(port: port, path: "/metrics").body else {
    fail("the server on port \(port) does not answer /metrics")
  }
  func value(_ name: String) -> Double {
    let line = body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? .nan
  }
  return (value("process_cpu_seconds_total"), value("process_resident_memory_bytes"))
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
  guard !sorted.isEmpty else { return .nan }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

let options: LoadOptions
do {
  options = try LoadOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("live-query-load: \(error.message)\n\(LoadOptions.usage)\n".utf8))
  exit(2)
}
if options.showsHelp {
  print(LoadOptions.usage)
  exit(0)
}
guard let secret = ProcessInfo.processInfo.environment[options.secretVariable] else {
  fail("the environment variable \(options.secretVariable) (--secret-env) is not set")
}
let signer: TokenVerifier
do {
  signer = try await TokenVerifier(hs256Secret: secret)
} catch {
  fail(error.message)
}

let url = "ws://127.0.0.1:\(options.port)/ws"
let before = serverUsage(port: options.port)
let connections = (0..<options.connections).map { _ in LoadConnection() }
// Each subscription its own predicate: one owner per connection (the
// token's), a window of priorities, sorted and limited.
let width = max(1, options.priorities / 10)
var tasks: [Task<Void, Never>] = []
let setupStart = Date()
for (index, connection) in connections.enumerated() {
  let owner = "u\(index % options.owners + 1)"
  let token: String
  do {
    token = try await signer.sign([
      "sub": .string(owner), "role": .string("user"), "exp": .int(Int64(Date().timeIntervalSince1970) + 86_400),
    ])
  } catch {
    fail(error.message)
  }
  let count =
    options.subscriptions / options.connections + (index < options.subscriptions % options.connections ? 1 : 0)
  let frames = (0..<count).map { number in
    let low = (number * 7 + index) % max(1, options.priorities - width + 1)
    return
      #"{"op":"subscribe","id":"s\#(number)","entity":"Task","predicate":"priority >= %@ AND priority < %@","args":[\#(low),\#(low + width)],"sort":[{"key":"priority"},{"key":"title"}],"limit":\#(options.limit)}"#
  }
  tasks.append(Task { await connection.run(url: url, token: token, subscribeFrames: frames) })
  // Open connections in small groups, so that the server's accept queue
  // and the first fetches do not pile up.
  if index % 50 == 49 { try? await Task.sleep(for: .milliseconds(20)) }
}
// Every subscription's first snapshot.
let deadline = Date().addingTimeInterval(600)
while connections.reduce(0, { $0 + $1.snapshots }) < options.subscriptions {
  if let refused = connections.lazy.flatMap(\.errors).first { fail("a subscription was refused: \(refused)") }
  if let closed = connections.lazy.compactMap(\.closed).first { fail("a connection ended: \(closed)") }
  if Date() > deadline { fail("the subscriptions' snapshots did not all arrive in 600 s") }
  try? await Task.sleep(for: .milliseconds(50))
}
let setupSeconds = Date().timeIntervalSince(setupStart)
try? await Task.sleep(for: .milliseconds(Int(options.warmup * 1000)))
let start = serverUsage(port: options.port)
let startFrames = connections.reduce(0) { $0 + $1.frames }
for connection in connections { connection.startRecording() }
let measureStart = Date()
try? await Task.sleep(for: .milliseconds(Int(options.seconds * 1000)))
var latencies: [Double] = []
for connection in connections { latencies += connection.stopRecording() }
let elapsed = Date().timeIntervalSince(measureStart)
let end = serverUsage(port: options.port)
let frames = connections.reduce(0) { $0 + $1.frames } - startFrames
for task in tasks { task.cancel() }
latencies.sort()

func milliseconds(_ seconds: Double) -> JSONValue { .double((seconds * 1e5).rounded() / 100) }
let figures = JSONValue.object([
  ("label", .string(options.label)),
  ("connections", .int(Int64(options.connections))),
  ("subscriptions", .int(Int64(options.subscriptions))),
  ("setup_s", .double((setupSeconds * 10).rounded() / 10)),
  ("measured_s", .double((elapsed * 10).rounded() / 10)),
  ("frames_per_s", .double((Double(frames) / elapsed).rounded())),
  ("changes_timed", .int(Int64(latencies.count))),
  ("p50_ms", milliseconds(percentile(latencies, 0.5))),
  ("p99_ms", milliseconds(percentile(latencies, 0.99))),
  ("max_ms", milliseconds(latencies.last ?? .nan)),
  ("server_cpu_cores", .double(((end.cpu - start.cpu) / elapsed * 100).rounded() / 100)),
  ("server_rss_mb", .double((end.resident / 1e6).rounded())),
  (
    "rss_per_subscription_bytes",
    .double(((start.resident - before.resident) / Double(options.subscriptions)).rounded())
  ),
])
print(figures.serialized)
exit(0)
