import LiveQueryCore
import Synchronization

/// The data frames a session wrote last, up to a byte bound, so that a
/// client that resumes after a lost connection gets again the frames it
/// may not have received. Past the bound the oldest frames go, and the
/// log remembers, per subscription, the last position it let go: a client
/// that has not seen that far cannot be caught up from the log.
final class ReplayLog: Sendable {
  private struct Entry {
    var subscription: String
    var position: Int
    var text: String
  }

  private struct State {
    var entries: [Entry] = []
    var first = 0
    var bytes = 0
    var trimmed: [String: Int] = [:]
  }

  private let state = Mutex(State())
  private let limit: Int

  init(limit: Int) { self.limit = limit }

  /// Notes the data frames of a batch written to the client (control
  /// frames, which have no subscription, are not kept), under one lock.
  func record(_ frames: [LiveOutbox.Frame]) {
    state.withLock { state in
      for frame in frames {
        guard let subscription = frame.subscription, let position = frame.position else { continue }
        append(subscription: subscription, position: position, text: frame.text, to: &state)
      }
    }
  }

  /// Appends a frame, then lets the oldest go past the byte bound.
  private func append(subscription: String, position: Int, text: String, to state: inout State) {
    state.entries.append(Entry(subscription: subscription, position: position, text: text))
    state.bytes += text.utf8.count
    while state.bytes > limit, state.first < state.entries.count {
      let gone = state.entries[state.first]
      state.bytes -= gone.text.utf8.count
      state.trimmed[gone.subscription] = max(state.trimmed[gone.subscription] ?? gone.position, gone.position)
      state.first += 1
    }
    // Compact once the dead prefix is as long as what is kept.
    if state.first > 64, state.first * 2 > state.entries.count {
      state.entries.removeFirst(state.first)
      state.first = 0
    }
  }

  /// What a resuming client needs, given the last `seq` it saw of each
  /// subscription (`positions`) and the session's subscriptions now
  /// (`live`): the frames to send again, in order, and the subscriptions
  /// the log cannot catch up (with the client's position; -1 for one it
  /// never heard of), which get a fresh snapshot instead.
  func plan(positions: [String: Int], live: Set<String>) -> (resend: [String], resynchronize: [String: Int]) {
    state.withLock { state in
      var resynchronize: [String: Int] = [:]
      for id in live {
        let seen = positions[id] ?? -1
        if let trimmed = state.trimmed[id], trimmed > seen { resynchronize[id] = seen }
      }
      var resend: [String] = []
      for entry in state.entries[state.first...]
      where live.contains(entry.subscription) && resynchronize[entry.subscription] == nil
        && entry.position > positions[entry.subscription] ?? -1
      {
        resend.append(entry.text)
      }
      return (resend, resynchronize)
    }
  }
}
