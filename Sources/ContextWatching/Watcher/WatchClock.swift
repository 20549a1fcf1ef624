import Dispatch
import Foundation
import Synchronization

/// The time a watcher reads for `now()` in its predicates, and the alarm it
/// sets for the next time an object crosses one of their thresholds.
///
/// The watcher asks for one alarm at a time, at the earliest crossing of
/// all its watches, and cancels it when an earlier one comes: nothing runs
/// while nothing is due. ``SystemWatchClock`` is the default; tests use a
/// ``ManualWatchClock`` and advance it by hand.
///
/// ```swift
/// let clock = ManualWatchClock(now: 0)
/// let watcher = ContextWatcher(context: context, target: target, options: WatcherOptions(clock: clock))
/// ```
///
/// Times are seconds since the reference date (1 January 2001, UTC), as
/// `FilterValue.date(secondsSinceReferenceDate:)` holds them.
public protocol WatchClock: AnyObject, Sendable {
  /// The current time, in seconds since the reference date.
  var now: Double { get }

  /// Calls `action` once, at `deadline` or as soon as possible after it,
  /// unless the returned alarm is cancelled first.
  ///
  /// - Important: Never call `action` from within this method: the watcher
  ///   schedules alarms while it holds its lock.
  /// - Parameters:
  ///   - deadline: When to call `action`, in seconds since the reference date.
  ///   - action: What to call.
  /// - Returns: The alarm, for cancelling it.
  func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> WatchAlarm
}

/// An alarm set on a ``WatchClock``: cancelling it keeps its action from
/// running, if it has not run yet.
///
/// ```swift
/// let alarm = clock.schedule(at: clock.now + 60) { print("a minute passed") }
/// alarm.cancel()
/// ```
public final class WatchAlarm: Sendable {
  private let cancellation: Mutex<(@Sendable () -> Void)?>

  /// Creates an alarm that calls `cancel` when it is first cancelled.
  ///
  /// - Parameter cancel: What cancelling the alarm does on the clock.
  public init(cancel: @escaping @Sendable () -> Void) {
    cancellation = Mutex(cancel)
  }

  /// Cancels the alarm; cancelling it again changes nothing.
  public func cancel() {
    let cancel = cancellation.withLock { stored in
      defer { stored = nil }
      return stored
    }
    cancel?()
  }
}

/// The system's wall clock: `now` is `Date()`, and alarms run on a global
/// dispatch queue at their wall-clock deadline.
///
/// ```swift
/// let watcher = ContextWatcher(context: context, target: target, options: WatcherOptions(clock: SystemWatchClock()))
/// ```
public final class SystemWatchClock: WatchClock {
  /// The system clock that watchers use unless their options name another.
  public static let shared = SystemWatchClock()

  /// Creates the system clock.
  public init() {}

  /// The current time, from `Date()`.
  public var now: Double { Date().timeIntervalSinceReferenceDate }

  /// Calls `action` on a global queue at `deadline` (wall-clock time), unless
  /// cancelled first.
  public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> WatchAlarm {
    let pending = Mutex(true)
    let delay = max(0, deadline - now)
    // Whole nanoseconds, rounded up: never early.
    let nanoseconds = delay >= 1e9 ? Int.max / 2 : Int((delay * 1e9).rounded(.up))
    DispatchQueue.global().asyncAfter(wallDeadline: .now() + .nanoseconds(nanoseconds)) {
      guard pending.withLock({ $0 }) else { return }
      action()
    }
    return WatchAlarm { pending.withLock { $0 = false } }
  }
}

/// A clock that moves only when told to: for tests. Advancing it runs the
/// actions of the alarms that fall due, in deadline order, on the caller's
/// thread.
///
/// ```swift
/// let clock = ManualWatchClock(now: 0)
/// // … watch "dueDate < now()" with this clock, save a task due at 60 …
/// clock.advance(by: 61)   // the watcher delivers the task as entered
/// ```
public final class ManualWatchClock: WatchClock {
  private struct Alarm {
    var deadline: Double
    var number: Int
    var action: @Sendable () -> Void
  }

  private struct State {
    var now: Double
    var alarms: [Int: Alarm] = [:]
    var nextNumber = 0
  }

  private let state: Mutex<State>

  /// Creates a clock that reads `now` until it is advanced.
  ///
  /// - Parameter now: The starting time, in seconds since the reference date.
  public init(now: Double = 0) {
    state = Mutex(State(now: now))
  }

  /// The clock's current time.
  public var now: Double { state.withLock { $0.now } }

  /// The number of alarms set and not yet run or cancelled.
  public var pendingAlarms: Int { state.withLock { $0.alarms.count } }

  /// Sets an alarm; it runs when the clock is advanced to `deadline` or
  /// past it (at the next advance if `deadline` has passed already).
  public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> WatchAlarm {
    let number = state.withLock { state in
      let number = state.nextNumber
      state.nextNumber += 1
      state.alarms[number] = Alarm(deadline: deadline, number: number, action: action)
      return number
    }
    return WatchAlarm { [weak self] in _ = self?.state.withLock { $0.alarms.removeValue(forKey: number) } }
  }

  /// Moves the clock forward by `seconds`, running the alarms that fall due.
  ///
  /// - Parameter seconds: How far to move; a negative value is refused
  ///   with a precondition failure.
  public func advance(by seconds: Double) {
    advance(to: now + seconds)
  }

  /// Moves the clock to `time` and runs, one at a time in deadline order on
  /// the caller's thread, the alarms whose deadlines are at or before it.
  ///
  /// - Parameter time: The new time; it must not be before the current one.
  public func advance(to time: Double) {
    state.withLock { state in
      precondition(time >= state.now, "a ManualWatchClock cannot go back from \(state.now) to \(time)")
      state.now = time
    }
    // One due alarm at a time, outside the lock: an action may set alarms.
    while let alarm = takeDueAlarm() { alarm.action() }
  }

  private func takeDueAlarm() -> Alarm? {
    state.withLock { state in
      let due = state.alarms.values.filter { $0.deadline <= state.now }
      guard let first = due.min(by: { ($0.deadline, $0.number) < ($1.deadline, $1.number) }) else { return nil }
      state.alarms[first.number] = nil
      return first
    }
  }
}
