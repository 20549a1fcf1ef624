import Synchronization

/// Wakes a waiting poller early: a notification signals, and a waiter
/// returns at the signal or when its time is up. A signal that comes while
/// no one waits is kept for the next wait.
final class WakeUps: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Void, Never>?
  }
  private let state = Mutex(State())

  /// Wakes the current or the next waiter.
  func signal() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if let waiter = state.waiter {
        state.waiter = nil
        return waiter
      }
      state.pending = true
      return nil
    }
    waiter?.resume()
  }

  /// Returns after `duration`, at a signal, or at once when a signal is
  /// pending; a cancelled task returns at once.
  func wait(upTo duration: Duration) async {
    let timer = Task { [weak self] in
      try? await Task.sleep(for: duration)
      self?.signal()
    }
    defer { timer.cancel() }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state -> Bool in
          if state.pending {
            state.pending = false
            return true
          }
          state.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      signal()
    }
    state.withLock { $0.pending = false }
  }
}
