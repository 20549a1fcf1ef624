/// When a watch's changes are delivered: after every save (the default), or
/// coalesced, as the net change since the watch's last delivery.
///
/// A coalesced watch merges what it saw into one pending change per object
/// and delivers it later: an object inserted and then deleted, or one that
/// entered and then exited, is nothing; an update merged with another keeps
/// the first old values and the last new ones, with the keys whose values
/// differ between them (and is nothing when none does); an object that
/// exited and entered again is an update; one inserted and then updated is
/// inserted with its last values. Deliveries stay in order and
/// each change is delivered once; `ContextWatcher.flush()` delivers what
/// is pending at once.
///
/// ```swift
/// var options = WatchOptions()
/// options.delivery = .coalesced(every: .milliseconds(250))   // a dashboard
/// let openOrders = try watcher.watch("Person", where: "age > 30", options: options)
/// ```
public enum DeliveryPolicy: Hashable, Sendable {
  /// One delivery per save (or pending change, or time crossing) the watch
  /// saw something in.
  case everySave
  /// At most one delivery per `interval`: the first change after a quiet
  /// interval is delivered at once, later ones when the interval since the
  /// last delivery has passed, merged. Intervals are read on the watcher's
  /// clock (``WatcherOptions/clock``). The interval must be positive.
  case coalesced(every: Duration)
  /// A delivery as soon as the consumer has finished with the previous
  /// one (the watch's handler has returned; for a watch without a handler,
  /// the watcher's target has taken it): while a delivery of the watch is
  /// queued or running, what the watch sees is merged and delivered when it
  /// is done. A consumer that
  /// keeps up gets every save; one that falls behind gets fewer, larger
  /// deliveries, and never more than one waiting.
  case whenReady
}

extension DeliveryPolicy {
  /// Whether the policy is ``everySave``, found without comparing values.
  var isEverySave: Bool {
    if case .everySave = self { return true }
    return false
  }

  /// The interval in seconds, for a policy that has one.
  var seconds: Double? {
    guard case .coalesced(let interval) = self else { return nil }
    let (seconds, attoseconds) = interval.components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}
