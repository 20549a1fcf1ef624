/// A small, fast, seedable random number generator (SplitMix64), so that
/// property tests are reproducible: a failing test prints its seed, and the
/// `CONTEXTWATCHER_SEED` environment variable replays it. The benchmarks
/// package compiles this file too (`Benchmarks/Support` links to it), so
/// their data comes from the same sequences.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator; equal seeds give equal sequences.
  package init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The seed to use: `CONTEXTWATCHER_SEED` from the environment when set,
  /// else `fallback`.
  package static func seed(default fallback: UInt64) -> UInt64 {
    if let text = Environment.value(of: "CONTEXTWATCHER_SEED"), let seed = UInt64(text) {
      return seed
    }
    return fallback
  }

  /// A random element of a non-empty array.
  package mutating func pick<T>(_ elements: [T]) -> T {
    elements[Int.random(in: 0..<elements.count, using: &self)]
  }

  /// True with the given probability.
  package mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }
}

/// Reads the process environment without importing Foundation.
enum Environment {
  static func value(of name: String) -> String? {
    #if canImport(Glibc)
      guard let pointer = getenv(name) else { return nil }
      return String(cString: pointer)
    #elseif canImport(Darwin)
      guard let pointer = getenv(name) else { return nil }
      return String(cString: pointer)
    #else
      return nil
    #endif
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
