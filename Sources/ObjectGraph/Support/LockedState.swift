import Foundation

/// State shared between threads behind a lock: the registries of observers
/// and watches, which any thread may change.
///
/// This is `Synchronization.Mutex`'s job, but on Linux `Mutex` waits on a
/// futex that ThreadSanitizer cannot see, so every access it protects is
/// reported as a race and `swift test --sanitize=thread` cannot tell real
/// races from false ones. `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands.
///
/// The state may be non-copyable (the watcher's filter is): it is reached
/// only in place, through `withLock`.
package final class LockedState<State: ~Copyable>: @unchecked Sendable {
  // @unchecked Sendable: `state` is only read or written inside `lock`.
  private let lock = NSLock()
  // No run-time exclusivity check: the lock already makes every access
  // exclusive (a nested `withLock` on the same state deadlocks before it
  // could overlap), and the check costs more than taking the lock.
  @exclusivity(unchecked) private var state: State

  package init(_ state: consuming State) { self.state = state }

  /// Runs `body` with exclusive access to the state. Do not call user code
  /// inside `body`: copy out what it needs, and call it after.
  package func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
