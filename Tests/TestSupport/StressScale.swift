/// The size of the concurrent-saves stress test: small by default, so that
/// it runs with the suite; any size from the environment,
/// `CONTEXTWATCHER_STRESS=THREADS,SAVES,WATCHES,CHURN` (saves in all, the
/// watches that stay, and the watches added while the saves run, one in
/// three of them removed again). Scripts/stress.sh sets it.
package struct StressScale: Sendable, Equatable {
  package var threads: Int
  package var saves: Int
  package var watches: Int
  package var churn: Int

  /// 4 threads, 160 saves, 2,000 watches, 2,000 added during the run.
  package static let small = StressScale(threads: 4, saves: 160, watches: 2_000, churn: 2_000)

  package init(threads: Int, saves: Int, watches: Int, churn: Int) {
    self.threads = threads
    self.saves = saves
    self.watches = watches
    self.churn = churn
  }

  /// The scale the environment asks for, or ``small``.
  ///
  /// A value that is not four positive integers stops the test run with a
  /// message, rather than running a size nobody asked for.
  package static var current: StressScale {
    guard let text = Environment.value(of: "CONTEXTWATCHER_STRESS") else { return small }
    let numbers = text.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }
    guard numbers.count == 4, numbers.allSatisfy({ $0 > 0 }) else {
      fatalError("CONTEXTWATCHER_STRESS is THREADS,SAVES,WATCHES,CHURN (four positive integers), not '\(text)'")
    }
    return StressScale(threads: numbers[0], saves: numbers[1], watches: numbers[2], churn: numbers[3])
  }
}
