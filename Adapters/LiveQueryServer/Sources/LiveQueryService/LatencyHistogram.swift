/// A Prometheus histogram of durations in seconds, with fixed buckets.
struct LatencyHistogram: Sendable {
  /// The buckets' upper bounds, in seconds: 0.5 ms to 5 s.
  static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

  /// Observations per bucket (not cumulative); the last is past every bound.
  private(set) var counts = [Int](repeating: 0, count: bounds.count + 1)
  private(set) var sum = 0.0

  mutating func observe(_ seconds: Double) {
    let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
    counts[bucket] += 1
    sum += seconds
  }

  var count: Int { counts.reduce(0, +) }

  /// The histogram's lines in Prometheus' text format.
  func lines(name: String) -> [String] {
    var lines: [String] = []
    var cumulative = 0
    for (index, bound) in Self.bounds.enumerated() {
      cumulative += counts[index]
      lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
    }
    cumulative += counts[Self.bounds.count]
    lines.append("\(name)_bucket{le=\"+Inf\"} \(cumulative)")
    lines.append("\(name)_sum \(sum)")
    lines.append("\(name)_count \(cumulative)")
    return lines
  }
}
