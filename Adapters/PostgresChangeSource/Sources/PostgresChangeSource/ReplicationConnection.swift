import CLibPQ
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A replication connection (`replication=database`) through libpq, which
/// speaks the streaming replication protocol that the server pushes
/// logical decoding over. Every call blocks: one thread of its own (a
/// ``ReplicationFeed``'s) owns the connection and makes them all.
final class ReplicationConnection {
  /// What went wrong on the connection: the server refused a command (its
  /// SQLSTATE, message and hint), or the connection failed or was lost.
  enum Failure: Error {
    case refused(state: String, message: String, hint: String?)
    case lost(String)
  }

  /// A message of the stream: WAL data (one output of the plugin: a line of
  /// wal2json) or a keepalive.
  enum Message {
    /// `w`: the plugin's output for the change at `start`.
    case data(start: UInt64, bytes: UnsafeRawBufferPointer)
    /// `k`: the server has sent everything up to `end`, and asks for a
    /// status update at once when `replyRequested`.
    case keepalive(end: UInt64, replyRequested: Bool)
  }

  private let connection: OpaquePointer

  /// Connects with libpq's connection parameters (`host`, `port`, `user`,
  /// `replication`, …).
  init(parameters: [(String, String)]) throws(Failure) {
    let keywords = parameters.map { strdup($0.0) } + [nil]
    let values = parameters.map { strdup($0.1) } + [nil]
    defer {
      for pointer in keywords + values { free(pointer) }
    }
    let connection = keywords.withUnsafeBufferPointer { keywords in
      values.withUnsafeBufferPointer { values in
        keywords.withMemoryRebound(to: UnsafePointer<CChar>?.self) { keywords in
          values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
            PQconnectdbParams(keywords.baseAddress, values.baseAddress, 0)
          }
        }
      }
    }
    guard let connection else { throw .lost("libpq could not allocate a connection") }
    guard PQstatus(connection) == CONNECTION_OK else {
      let text = String(cString: PQerrorMessage(connection))
      PQfinish(connection)
      throw Self.connectionFailure(text)
    }
    self.connection = connection
  }

  deinit { PQfinish(connection) }

  /// A failed connection's message from libpq as a failure: the server's
  /// refusal when it sent one that is not passing (a server starting up or
  /// full is passing), the network's failure otherwise.
  static func connectionFailure(_ text: String) -> Failure {
    // `connection to server at "127.0.0.1", port 5432 failed: FATAL:  …`
    var message = Substring(text)
    if let range = message.range(of: "failed: ", options: .backwards) { message = message[range.upperBound...] }
    var fatal = false
    for prefix in ["FATAL:  ", "ERROR:  "] where message.hasPrefix(prefix) {
      message = message.dropFirst(prefix.count)
      fatal = true
    }
    let line = message.split(separator: "\n").first.map(String.init) ?? String(message)
    let passing = ["starting up", "shutting down", "in recovery mode", "too many clients", "connection slots"]
    if fatal && !passing.contains(where: { line.contains($0) }) {
      return .refused(state: "", message: line, hint: nil)
    }
    return .lost(line.trimmingCharacters(in: .whitespaces))
  }

  /// The server's last error as a failure.
  private func failure(_ result: OpaquePointer?) -> Failure {
    func field(_ code: UInt8) -> String? {
      guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
      return String(cString: value)
    }
    if let state = field(UInt8(ascii: "C")), let message = field(UInt8(ascii: "M")) {
      // Connection failures and shutdowns pass: a lost connection.
      if state.hasPrefix("08") || state.hasPrefix("57P") { return .lost(message) }
      return .refused(state: state, message: message, hint: field(UInt8(ascii: "H")))
    }
    let text = String(cString: PQerrorMessage(connection))
    return .lost(text.split(separator: "\n").first.map(String.init) ?? "the connection failed")
  }

  /// Runs a command that returns one value (`SHOW wal_sender_timeout`).
  func value(of command: String) throws(Failure) -> String? {
    let result = PQexec(connection, command)
    defer { PQclear(result) }
    guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw failure(result) }
    guard PQntuples(result) > 0, let value = PQgetvalue(result, 0, 0) else { return nil }
    return String(cString: value)
  }

  /// Sends `START_REPLICATION …`; the stream's messages follow.
  func startStreaming(_ command: String) throws(Failure) {
    let result = PQexec(connection, command)
    defer { PQclear(result) }
    guard PQresultStatus(result) == PGRES_COPY_BOTH else { throw failure(result) }
  }

  /// Hands the next message that has arrived to `body`, whose bytes are
  /// valid only during the call; false when none has arrived yet.
  func read(_ body: (Message) throws -> Void) throws -> Bool {
    var buffer: UnsafeMutablePointer<CChar>?
    let length = PQgetCopyData(connection, &buffer, 1)
    if length == 0 { return false }
    guard length > 0, let buffer else {
      // -1: the server ended the stream; -2: the connection failed. The
      // result says why.
      var reason: Failure = .lost("the server ended the stream")
      while let result = PQgetResult(connection) {
        if PQresultStatus(result) == PGRES_FATAL_ERROR { reason = failure(result) }
        PQclear(result)
      }
      if length == -2, case .lost = reason { reason = failure(nil) }
      throw reason
    }
    defer { PQfreemem(buffer) }
    let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(length))
    switch bytes.first {
    case UInt8(ascii: "w") where bytes.count >= 25:
      try body(.data(start: Self.integer(bytes, at: 1), bytes: UnsafeRawBufferPointer(rebasing: bytes[25...])))
    case UInt8(ascii: "k") where bytes.count >= 18:
      try body(.keepalive(end: Self.integer(bytes, at: 1), replyRequested: bytes[17] != 0))
    default:
      // The protocol has no other message here; one would be ignored by
      // any standby.
      break
    }
    return true
  }

  /// Waits until `wakeUp` is readable, `milliseconds` pass, or (when
  /// `readingServer`) the server sends something, which it then reads into
  /// libpq's buffer.
  func wait(wakeUp: Int32, milliseconds: Int32, readingServer: Bool) throws(Failure) {
    var descriptors = [
      pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0),
      pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0),
    ]
    let ready = poll(&descriptors, readingServer ? 2 : 1, milliseconds)
    if ready < 0 && errno != EINTR {
      throw .lost("waiting for the server failed (errno \(errno))")
    }
    if readingServer, descriptors[1].revents != 0, PQconsumeInput(connection) == 0 { throw failure(nil) }
  }

  /// Ends the stream cleanly: tells the server the stream is done, drops
  /// what it still sends, and waits, at most `milliseconds`, for the end of
  /// `START_REPLICATION`, by which the server has let go of the slot.
  func endStreaming(milliseconds: Int) {
    guard PQputCopyEnd(connection, nil) == 1, PQflush(connection) == 0 else { return }
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(milliseconds)
    /// Waits for the server; false when the time is up or the connection
    /// failed.
    func waitForServer() -> Bool {
      let left = deadline - clock.now
      guard left > .zero else { return false }
      var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
      _ = poll(&descriptor, 1, Int32(left / .milliseconds(1)) + 1)
      return PQconsumeInput(connection) == 1
    }
    while true {
      var buffer: UnsafeMutablePointer<CChar>?
      let length = PQgetCopyData(connection, &buffer, 1)
      if length > 0 {
        PQfreemem(buffer)
      } else if length == 0 {
        guard waitForServer() else { return }
      } else {
        break
      }
    }
    while true {
      while PQisBusy(connection) == 1 {
        guard waitForServer() else { return }
      }
      guard let result = PQgetResult(connection) else { return }
      PQclear(result)
    }
  }

  /// Sends a standby status update: everything up to `received` arrived,
  /// and the slot may move to `acknowledged`.
  func sendStatus(received: UInt64, acknowledged: UInt64, replyRequested: Bool) throws(Failure) {
    var message: [UInt8] = [UInt8(ascii: "r")]
    message.reserveCapacity(34)
    // Microseconds since 2000-01-01, the protocol's epoch.
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let microseconds = (Int64(now.tv_sec) - 946_684_800) * 1_000_000 + Int64(now.tv_nsec) / 1000
    for value in [received, acknowledged, acknowledged, UInt64(bitPattern: microseconds)] {
      for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    message.append(replyRequested ? 1 : 0)
    let sent = message.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32($0.count)) }
    }
    guard sent == 1, PQflush(connection) == 0 else { throw failure(nil) }
  }

  /// A big-endian 64-bit number at `offset`.
  private static func integer(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in offset..<offset + 8 { value = value << 8 | UInt64(bytes[index]) }
    return value
  }
}
