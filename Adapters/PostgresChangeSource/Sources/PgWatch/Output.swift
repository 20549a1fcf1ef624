import Foundation
import Synchronization

/// Writes whole lines to standard output and standard error, one writer at
/// a time, each flushed at once (a reader follows the lines as they come).
enum Output {
  private static let lock = Mutex(())

  /// Writes `text` and a newline to standard output; false when standard
  /// output takes nothing (its reader went away).
  @discardableResult
  static func line(_ text: String) -> Bool {
    lock.withLock { _ in
      (try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))) != nil
    }
  }

  /// Writes `text` and a newline to standard error.
  static func error(_ text: String) {
    lock.withLock { _ in
      try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }
  }
}
