/// A transaction snapshot as `pg_current_snapshot()` prints it
/// (`xmin:xmax:xip,…`), answering which transactions it saw.
struct TransactionSnapshot: Hashable, Sendable {
  var xmin: UInt64
  var xmax: UInt64
  var inProgress: Set<UInt64>

  init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    // `sees(_:)` widens identifiers in 64-bit signed arithmetic around
    // `xmax`: refused past where that could overflow (an epoch of 2^31 - 1,
    // which no server reaches).
    guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]),
      xmax <= UInt64(Int64.max) - UInt64(UInt32.max)
    else {
      return nil
    }
    var inProgress: Set<UInt64> = []
    for part in parts[2].split(separator: ",") {
      guard let xid = UInt64(part) else { return nil }
      inProgress.insert(xid)
    }
    self.xmin = xmin
    self.xmax = xmax
    self.inProgress = inProgress
  }

  /// Whether a committed transaction, by its 32-bit identifier, was visible
  /// to the snapshot.
  ///
  /// The stream brings 32-bit identifiers; the snapshot's are 64-bit (the
  /// epoch in the high half). An identifier is widened to the full one
  /// nearest `xmax`, by its signed 32-bit distance from `xmax`'s low half,
  /// as PostgreSQL itself compares identifiers: the transactions the stream
  /// brings are never 2^31 away from the snapshot. One that widens to below
  /// 0 or below `xmin` committed before the snapshot, which saw it; one at
  /// or above `xmax`, or in progress at the snapshot, it did not see.
  func sees(_ xid: UInt32) -> Bool {
    let distance = Int32(bitPattern: xid &- UInt32(truncatingIfNeeded: xmax))
    let full = Int64(xmax) + Int64(distance)
    if full < 0 { return true }
    let wide = UInt64(full)
    if wide < xmin { return true }
    return wide < xmax && !inProgress.contains(wide)
  }
}
