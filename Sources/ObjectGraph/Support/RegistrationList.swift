/// Registered elements in registration order, each under an identifier
/// that only increases: the registries of save observers and of monitors'
/// observers keep theirs here.
///
/// Appending is O(1). Removing by identifier finds the entry by binary
/// search (identifiers increase along the entries) and leaves its slot
/// vacant; when vacant slots are more than half of the entries, one pass
/// drops them all. A pass moves at most as many entries as were removed
/// and appended since the last, so a removal costs O(log *n*) amortized,
/// and releasing *n* registrations costs O(*n* log *n*) in any order.
/// Iteration skips vacant slots and keeps registration order.
///
/// Its members are `@inlinable`, but calls from ContextWatching reach their
/// generic entry points, which look up the entries' tuple type at run time
/// (some 170 instructions a call): a module that reads the list on a hot
/// path loops over ``entries`` in its own code instead, as the monitors'
/// observer registry does (its `count` and `forEach(_:)`).
///
/// ```swift
/// var list = RegistrationList<String>()
/// let first = list.append("a")
/// _ = list.append("b")
/// list.remove(first)
/// list.map { $0 }  // ["b"]
/// ```
package struct RegistrationList<Element> {
  /// The entries by increasing identifier; a removed entry's element is
  /// nil until the next compaction drops it. Readable so that another
  /// module can loop over them in its own code, as ``forEach(_:)`` does.
  package internal(set) var entries: [(id: UInt64, element: Element?)] = []
  /// The entries whose element is nil.
  package internal(set) var vacant = 0
  /// The identifier of the last append; 0 before the first.
  @usableFromInline var lastID: UInt64 = 0
  /// Entries removals have looked at: binary-search probes, and entries
  /// compaction passed over. Tests read it to check that a removal does
  /// not scan the list.
  @usableFromInline package internal(set) var removalSteps = 0

  @inlinable package init() {}

  /// The elements registered.
  @inlinable package var count: Int { entries.count - vacant }

  /// Whether no element is registered.
  @inlinable package var isEmpty: Bool { entries.count == vacant }

  /// Registers `element` after every element registered so far.
  ///
  /// - Returns: Its identifier, greater than any handed out before.
  @inlinable package mutating func append(_ element: Element) -> UInt64 {
    lastID += 1
    entries.append((lastID, element))
    return lastID
  }

  /// The element registered under `id`; nil when it was removed or never
  /// registered.
  ///
  /// - Complexity: O(log *n*).
  @inlinable package subscript(id: UInt64) -> Element? {
    guard let position = search(id).position else { return nil }
    return entries[position].element
  }

  /// Removes the element registered under `id`; removing one that is gone
  /// changes nothing.
  ///
  /// - Returns: The element removed, or nil.
  /// - Complexity: O(log *n*) amortized.
  @inlinable @discardableResult
  package mutating func remove(_ id: UInt64) -> Element? {
    let (found, probes) = search(id)
    removalSteps += probes
    guard let position = found, let element = entries[position].element else { return nil }
    entries[position].element = nil
    vacant += 1
    if vacant > entries.count / 2 { compact() }
    return element
  }

  /// Removes the elements for which `shouldRemove` is true, keeping the
  /// order of the others.
  ///
  /// - Complexity: O(*n*).
  @inlinable package mutating func removeAll(where shouldRemove: (Element) throws -> Bool) rethrows {
    removalSteps += entries.count
    for position in entries.indices {
      guard let element = entries[position].element, try shouldRemove(element) else { continue }
      entries[position].element = nil
      vacant += 1
    }
    compact()
  }

  /// The registered elements, transformed, in registration order.
  ///
  /// - Complexity: O(*n*).
  @inlinable package func map<Result>(_ transform: (Element) throws -> Result) rethrows -> [Result] {
    var results: [Result] = []
    results.reserveCapacity(count)
    for entry in entries {
      if let element = entry.element { results.append(try transform(element)) }
    }
    return results
  }

  /// Calls `body` on each registered element, in registration order.
  ///
  /// - Complexity: O(*n*).
  @inlinable package func forEach(_ body: (Element) throws -> Void) rethrows {
    for entry in entries {
      if let element = entry.element { try body(element) }
    }
  }

  /// The position of the entry of `id`, by binary search (nil when no
  /// entry has it: never registered, or dropped by a compaction), and the
  /// entries it looked at.
  @inlinable func search(_ id: UInt64) -> (position: Int?, probes: Int) {
    var low = 0
    var high = entries.count
    var probes = 0
    while low < high {
      probes += 1
      let middle = low + (high - low) / 2
      let found = entries[middle].id
      if found == id { return (middle, probes) }
      if found < id { low = middle + 1 } else { high = middle }
    }
    return (nil, probes)
  }

  /// Drops the vacant entries, keeping the order of the others.
  @inlinable mutating func compact() {
    guard vacant > 0 else { return }
    removalSteps += entries.count
    entries.removeAll { $0.element == nil }
    vacant = 0
  }
}
