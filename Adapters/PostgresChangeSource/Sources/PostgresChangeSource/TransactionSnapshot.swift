/// A transaction snapshot as `pg_current_snapshot()` prints it
/// (`xmin:xmax:xip,…`), answering which transactions it saw.
struct TransactionSnapshot: Hashable, Sendable {
  var xmin: UInt64
  var xmax: UInt64
  var inProgress: Set<UInt64>

  init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]) else { return nil }
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
  /// to the snapshot. The identifier is widened with the epoch of `xmax`
  /// (identifiers the stream brings are never far from it).
  func sees(_ xid: UInt32) -> Bool {
    var full = (xmax & ~0xFFFF_FFFF) | UInt64(xid)
    if full > xmax, full >= 1 << 32 { full -= 1 << 32 }
    if full < xmin { return true }
    return full < xmax && !inProgress.contains(full)
  }
}
