/// A `LIKE` pattern as the segments between its `*`s, matched in time that
/// grows with the subject, not with the product of subject and pattern.
///
/// The first segment must match at the start, the last at the end, and
/// each one between at its leftmost place after the one before: taking
/// the leftmost place never loses a match, because a `*` can absorb
/// whatever lies between. A segment without `?` is found with
/// ``SubstringSearch`` (linear); one with `?` with a bit-parallel search
/// (Shift-And): O(*n*·⌈*w*/64⌉) for a subject of *n* scalars and a segment
/// of *w*, with O(*w*) memory.
struct LikeSegments: Sendable {
  /// One position of a segment: a scalar, or `?`.
  enum Unit: Equatable, Sendable {
    case scalar(UInt32)
    case anyOne
  }

  private let segments: [Segment]
  /// Whether the pattern has a `*` at all; without one, the only segment
  /// must cover the whole subject.
  private let hasStar: Bool

  /// - Parameter units: The pattern, `nil` for each `*`.
  init(_ units: [Unit?]) {
    var segments: [Segment] = []
    var current: [Unit] = []
    for unit in units {
      if let unit {
        current.append(unit)
      } else {
        segments.append(Segment(current))
        current = []
      }
    }
    segments.append(Segment(current))
    self.segments = segments
    hasStar = segments.count > 1
  }

  /// Whether the subject's scalars match the whole pattern.
  func matches(_ text: UnsafeBufferPointer<UInt32>) -> Bool {
    let first = segments[0]
    guard hasStar else { return first.count == text.count && first.matches(text, at: 0) }
    let last = segments[segments.count - 1]
    guard first.count + last.count <= text.count, first.matches(text, at: 0),
      last.matches(text, at: text.count - last.count)
    else { return false }
    var position = first.count
    let end = text.count - last.count
    for segment in segments.dropFirst().dropLast() {
      let window = UnsafeBufferPointer(rebasing: text[position..<end])
      guard let found = segment.firstOccurrence(in: window) else { return false }
      position += found + segment.count
    }
    return true
  }

  /// The text between two `*`s.
  struct Segment: Sendable {
    let units: [Unit]
    /// The segment's scalars, when it has no `?`: searched with KMP.
    let literal: [UInt32]?
    /// For a segment with `?`, the Shift-And tables.
    let bitParallel: BitParallel?

    var count: Int { units.count }

    init(_ units: [Unit]) {
      self.units = units
      let scalars = units.compactMap { if case .scalar(let value) = $0 { value } else { nil } }
      if scalars.count == units.count {
        literal = scalars
        bitParallel = nil
      } else {
        literal = nil
        bitParallel = BitParallel(units)
      }
    }

    func matches(_ text: UnsafeBufferPointer<UInt32>, at start: Int) -> Bool {
      for (offset, unit) in units.enumerated() {
        if case .scalar(let value) = unit, text[start + offset] != value { return false }
      }
      return true
    }

    func firstOccurrence(in text: UnsafeBufferPointer<UInt32>) -> Int? {
      if units.isEmpty { return 0 }
      if let literal {
        return literal.withUnsafeBufferPointer { SubstringSearch.firstOccurrence(of: $0, in: text) }
      }
      return bitParallel.unsafelyUnwrapped.firstOccurrence(in: text)
    }
  }

  /// Shift-And over a segment of *w* units in ⌈*w*/64⌉ words. Bit *i* of
  /// the state says the last *i*+1 scalars read match the segment's first
  /// *i*+1 units. A scalar's mask is the `?` positions plus its own: kept
  /// whole for the (at most 64) scalars that occur more often than there
  /// are words, as a list of positions for the others, so a step costs
  /// O(⌈*w*/64⌉) either way and the tables take O(*w*).
  struct BitParallel: Sendable {
    let length: Int
    let words: Int
    /// The `?` positions.
    let anyMask: [UInt64]
    /// Whole masks of frequent scalars, `words` words each, by index.
    let denseIndex: [UInt32: Int]
    let dense: [UInt64]
    /// Positions of the other scalars.
    let sparse: [UInt32: [Int]]

    init(_ units: [Unit]) {
      length = units.count
      words = (units.count + 63) / 64
      var anyMask = [UInt64](repeating: 0, count: words)
      var positions: [UInt32: [Int]] = [:]
      for (index, unit) in units.enumerated() {
        switch unit {
        case .anyOne: anyMask[index / 64] |= 1 << UInt64(index % 64)
        case .scalar(let value): positions[value, default: []].append(index)
        }
      }
      self.anyMask = anyMask
      var denseIndex: [UInt32: Int] = [:]
      var dense: [UInt64] = []
      var sparse: [UInt32: [Int]] = [:]
      for (scalar, places) in positions {
        if places.count > words {
          denseIndex[scalar] = dense.count / Swift.max(words, 1)
          var mask = [UInt64](repeating: 0, count: words)
          for place in places { mask[place / 64] |= 1 << UInt64(place % 64) }
          dense += mask
        } else {
          sparse[scalar] = places
        }
      }
      self.denseIndex = denseIndex
      self.dense = dense
      self.sparse = sparse
    }

    func firstOccurrence(in text: UnsafeBufferPointer<UInt32>) -> Int? {
      guard length > 0 else { return 0 }
      let lastWord = (length - 1) / 64
      let lastBit: UInt64 = 1 << UInt64((length - 1) % 64)
      let words = words
      return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * words) { buffer -> Int? in
        let state = UnsafeMutableBufferPointer(rebasing: buffer[0..<words])
        let shifted = UnsafeMutableBufferPointer(rebasing: buffer[words...])
        state.initialize(repeating: 0)
        shifted.initialize(repeating: 0)
        return anyMask.withUnsafeBufferPointer { anyMask -> Int? in
          dense.withUnsafeBufferPointer { dense -> Int? in
            for (offset, scalar) in text.enumerated() {
              var carry: UInt64 = 1
              for word in 0..<words {
                let value = state[word]
                shifted[word] = (value << 1) | carry
                carry = value >> 63
                state[word] = shifted[word] & anyMask[word]
              }
              if let index = denseIndex[scalar] {
                let base = index * words
                for word in 0..<words { state[word] |= shifted[word] & dense[base + word] }
              } else if let places = sparse[scalar] {
                for place in places where shifted[place / 64] & (1 << UInt64(place % 64)) != 0 {
                  state[place / 64] |= 1 << UInt64(place % 64)
                }
              }
              if state[lastWord] & lastBit != 0 { return offset - length + 1 }
            }
            return nil
          }
        }
      }
    }
  }
}
