import Synchronization

/// A value behind a lock, held by reference so that closures and threads
/// can share it.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: Value) { mutex = Mutex(value) }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try mutex.withLock { try body(&$0) }
  }
}
