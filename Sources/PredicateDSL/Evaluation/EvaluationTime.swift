/// The time `now()` reads while a watcher evaluates predicates with a clock
/// of its own: unset, `now()` reads the system's clock.
package enum EvaluationTime {
  /// Seconds since the reference date that `now()` returns in the current
  /// task or thread, or nil for the system's clock. Set it with
  /// `EvaluationTime.$now.withValue(_:operation:)`.
  @TaskLocal package static var now: Double?
}
