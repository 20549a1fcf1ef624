import Foundation

/// What a test's observer records: items appended from any thread, taken
/// out in the order they came.
package final class Recording<Item: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `items` is only read or written inside `lock`.
  private let lock = NSLock()
  private var items: [Item] = []

  package init() {}

  /// Records `item` after those before it.
  package func append(_ item: Item) {
    lock.withLock { items.append(item) }
  }

  /// The items recorded since the last take, in order; the recording is
  /// then empty.
  package func take() -> [Item] {
    lock.withLock {
      defer { items = [] }
      return items
    }
  }
}
