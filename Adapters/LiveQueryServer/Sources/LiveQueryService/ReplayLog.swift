import LiveQueryCore
import Synchronization

/// The data frames a session wrote last, up to a byte bound, so that a
/// client that resumes after a lost connection gets again the frames it
/// may not have received. Past the bound the oldest frames go, and the
/// log remembers, per subscription, the last position it let go: a client
/// that has not seen that far cannot be caught up from the log. It
/// remembers that for at most ``trimmedLimit`` subscriptions (a client may
/// subscribe and unsubscribe without end); past that, the oldest half is
/// folded into one position below which every subscription counts as
/// trimmed.
final class ReplayLog: Sendable {
  /// The subscriptions whose trimmed positions are remembered one by one.
  static let trimmedLimit = 1024

  private struct Entry {
    var subscription: String
    var position: Int
    var text: String
  }

  /// The last position let go of a subscription, and how many of its
  /// frames carried it (two share one when an `update` answers).
  private struct Trimmed {
    var position: Int
    var frames: Int
  }

  private struct State {
    var entries: [Entry] = []
    var first = 0
    var bytes = 0
    var trimmed: [String: Trimmed] = [:]
    /// Positions at or below this were let go for subscriptions no longer
    /// in `trimmed`.
    var trimmedFloor = -1
  }

  private let state = Mutex(State())
  private let limit: Int

  init(limit: Int) { self.limit = limit }

  /// The subscriptions whose trimmed positions are remembered one by one.
  var trimmedCount: Int { state.withLock { $0.trimmed.count } }

  /// Notes the frames of a batch about to be written to the client that
  /// name a subscription and a position (data frames and `eventsDropped`
  /// errors; other control frames are not kept), under one lock.
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
      switch state.trimmed[gone.subscription] {
      case let last? where last.position == gone.position:
        state.trimmed[gone.subscription]!.frames += 1
      case let last? where last.position > gone.position: break
      default: state.trimmed[gone.subscription] = Trimmed(position: gone.position, frames: 1)
      }
      state.first += 1
    }
    if state.trimmed.count > Self.trimmedLimit {
      let oldest = state.trimmed.sorted { $0.value.position < $1.value.position }.prefix(state.trimmed.count / 2)
      for (subscription, last) in oldest {
        state.trimmed[subscription] = nil
        state.trimmedFloor = max(state.trimmedFloor, last.position)
      }
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
  ///
  /// Two frames of one subscription can share a position (an `update`'s
  /// answer has the `seq` of the list it replaces; an id subscribed again
  /// before the next save). A client's position that more than one frame
  /// of its subscription carries does not say which of them it saw, so
  /// that subscription gets a snapshot too.
  func plan(positions: [String: Int], live: Set<String>) -> (resend: [String], resynchronize: [String: Int]) {
    state.withLock { state in
      var resynchronize: [String: Int] = [:]
      var framesAtSeen: [String: Int] = [:]
      for entry in state.entries[state.first...] where entry.position == positions[entry.subscription] {
        framesAtSeen[entry.subscription, default: 0] += 1
      }
      for id in live {
        let seen = positions[id] ?? -1
        let own = state.trimmed[id]
        var atSeen = framesAtSeen[id, default: 0]
        if let own, own.position == seen { atSeen += own.frames }
        // How many frames a folded position carried is not known.
        if state.trimmedFloor >= 0, state.trimmedFloor == seen { atSeen += 2 }
        let trimmed = max(own?.position ?? -1, state.trimmedFloor)
        if trimmed > seen || atSeen > 1 { resynchronize[id] = seen }
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
