/// A hash table from 64-bit keys to values: open addressing with linear
/// probing, the key beside its value in one bucket, so that a lookup
/// usually reads one cache line. (`Dictionary` keeps keys and values in
/// separate arrays: a lookup in a table too large for the caches misses
/// twice.)
///
/// Keys are hashed with the process's seed (``mixedHash(_:seed:)``), as
/// `Hasher` seeds `Dictionary`, so which keys crowd together is not known
/// in advance. Removal shifts the buckets after the freed one back instead
/// of leaving markers, so a table that keys come and go in never fills
/// with dead buckets.
///
/// Invariants: the bucket count is zero or a power of two, and at most
/// `maximumLoad` percent of the buckets are full; a bucket is free exactly
/// when its value is nil; a key sits at its home bucket or after it, with
/// no free bucket between; `count` is the number of full buckets.
struct ProbingTable<Value> {
  fileprivate struct Bucket {
    var key: UInt64
    var value: Value?
  }

  private var buckets: [Bucket] = []
  /// The number of keys.
  private(set) var count = 0
  /// The most buckets in use, in percent, before the table doubles.
  private let maximumLoad: Int
  /// Held by each table, so that a lookup reads no global.
  private let seed = probingTableSeed

  /// Creates an empty table.
  ///
  /// - Parameters:
  ///   - minimumCapacity: The keys it holds before it first grows.
  ///   - maximumLoad: The most buckets in use, in percent (at most 90):
  ///     lower is fewer probes, higher is less memory.
  init(minimumCapacity: Int = 0, maximumLoad: Int) {
    precondition(maximumLoad > 0 && maximumLoad <= 90, "a load of \(maximumLoad)% is out of range 1...90")
    self.maximumLoad = maximumLoad
    guard minimumCapacity > 0 else { return }
    var size = 8
    while size * maximumLoad < minimumCapacity * 100 { size *= 2 }
    buckets = Array(repeating: Bucket(key: 0, value: nil), count: size)
  }

  var isEmpty: Bool { count == 0 }

  /// The bucket a key starts probing at, in a table of `bucketCount`
  /// buckets (a power of two).
  @inline(__always)
  func home(_ key: UInt64, bucketCount: Int) -> Int {
    mixedHash(key, seed: seed) & (bucketCount - 1)
  }

  /// The position of the bucket holding `key`, or of the free one where it
  /// would go; the table must have a free bucket.
  @inline(__always)
  private func position(of key: UInt64) -> (Int, found: Bool) {
    let mask = buckets.count - 1
    var position = home(key, bucketCount: buckets.count)
    while buckets[position].value != nil {
      if buckets[position].key == key { return (position, true) }
      position = (position + 1) & mask
    }
    return (position, false)
  }

  /// The value of `key`, or nil.
  ///
  /// - Complexity: O(1) on average.
  @inline(__always)
  subscript(key: UInt64) -> Value? {
    guard !buckets.isEmpty else { return nil }
    let (position, found) = position(of: key)
    return found ? buckets[position].value : nil
  }

  /// Loads the bucket where a lookup of `key` starts, and returns one of
  /// its bytes (only so that the load is kept): a loop of these over many
  /// keys has their cache misses overlap, which lookups one at a time
  /// would wait for one after another.
  @inline(__always)
  func touch(_ key: UInt64) -> UInt8 {
    guard !buckets.isEmpty else { return 0 }
    let position = home(key, bucketCount: buckets.count)
    return buckets.withUnsafeBytes { $0[position * MemoryLayout<Bucket>.stride] }
  }

  /// Hands `body` the value of `key` in place, without a copy (a copy of
  /// a reference retains it); nil when the key is absent.
  ///
  /// - Complexity: O(1) on average.
  @inline(__always)
  func withValue<Result>(for key: UInt64, _ body: (borrowing Value) -> Result) -> Result? {
    guard !buckets.isEmpty else { return nil }
    let (position, found) = position(of: key)
    guard found else { return nil }
    return buckets.withUnsafeBufferPointer { buckets in
      (buckets.baseAddress.unsafelyUnwrapped + position).pointer(to: \.value).unsafelyUnwrapped.pointee.map(body)
    }
  }

  /// Sets the value of `key`, adding the key when it is new, or removes
  /// the key when `value` is nil.
  ///
  /// - Complexity: O(1) on average.
  mutating func updateValue(_ value: Value?, for key: UInt64) {
    modifyValue(for: key) { $0 = value }
  }

  /// Hands `body` the value of `key` (nil when the key is absent) to read
  /// and change in place, in one probe: setting a value adds the key,
  /// setting nil removes it.
  ///
  /// - Complexity: O(1) on average.
  @inline(__always)
  mutating func modifyValue<Result>(for key: UInt64, _ body: (inout Value?) -> Result) -> Result {
    if buckets.isEmpty { grow() }
    let (position, found) = position(of: key)
    let result = body(&buckets[position].value)
    switch (found, buckets[position].value != nil) {
    case (false, true):
      buckets[position].key = key
      count += 1
      // Growing after the insertion keeps a free bucket for every probe:
      // the load stays below 100% until it passes `maximumLoad`.
      if count * 100 > buckets.count * maximumLoad { grow() }
    case (true, false):
      closeHole(at: position)
    default:
      break
    }
    return result
  }

  /// Doubles the buckets (eight at first) and files every key again.
  private mutating func grow() {
    var old = Array(repeating: Bucket(key: 0, value: nil), count: max(8, buckets.count * 2))
    swap(&old, &buckets)
    // Each bucket moves out of the old array: iterating would copy each
    // (a retain), and dropping the array would release each again.
    while let bucket = old.popLast() {
      guard bucket.value != nil else { continue }
      let (position, _) = position(of: bucket.key)
      buckets[position] = bucket
    }
  }

  /// Moves back each bucket after a freed one that probing would
  /// otherwise no longer reach (one whose home is not between the hole and
  /// itself), and counts the key gone.
  private mutating func closeHole(at position: Int) {
    let mask = buckets.count - 1
    var hole = position
    var next = (hole + 1) & mask
    while buckets[next].value != nil {
      let home = home(buckets[next].key, bucketCount: buckets.count)
      if (next &- home) & mask >= (next &- hole) & mask {
        buckets[hole] = buckets[next]
        buckets[next].value = nil
        hole = next
      }
      next = (next + 1) & mask
    }
    count -= 1
  }
}

/// The seed of every ``ProbingTable`` in this process: random unless
/// `SWIFT_DETERMINISTIC_HASHING` is set, as `Hasher`'s is.
private let probingTableSeed: Int = {
  var hasher = Hasher()
  hasher.combine(0x4B45_5954_4142_4C45 as UInt64)
  return hasher.finalize()
}()

extension ProbingTable: Sendable where Value: Sendable {}
extension ProbingTable.Bucket: Sendable where Value: Sendable {}
