// Benchmarks of the predicate language front end: lexing and parsing into a
// syntax tree, and printing the canonical form. Every benchmark checks its
// result once before it is timed, so a broken parser cannot look fast.
//
// Figures and the commands that reproduce them: docs/benchmarks.md.

import Benchmark
import BenchmarkSupport
import PredicateDSL

/// `age > 30`: the shortest typical predicate.
let short = "age > 30"

/// Five clauses, 140 bytes.
let fiveClauses = BenchmarkPredicates.parsedFiveClauses

let tenKilobytes = BenchmarkPredicates.longPredicate(bytes: 10_000)
let hundredKilobytes = BenchmarkPredicates.longPredicate(bytes: 100_000)

/// Parses once and checks the canonical form, before any timing.
func checked(_ text: String, canonical: String? = nil) -> String {
  do {
    let syntax = try PredicateParser.parse(text)
    if let canonical { precondition(syntax.description == canonical, "unexpected printout \(syntax)") }
    let reparsed = try PredicateParser.parse(syntax.description)
    precondition(reparsed == syntax, "round trip failed")
  } catch {
    fatalError("benchmark input does not parse: \(error)")
  }
  return text
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal, .throughput],
    warmupIterations: 10,
    maxDuration: .seconds(3),
    maxIterations: 1_000_000
  )

  let shortText = checked(short, canonical: "age > 30")
  Benchmark("Parse age > 30 (8 B)", configuration: .init(scalingFactor: .kilo)) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? PredicateParser.parse(shortText))
    }
  }

  let fiveText = checked(fiveClauses)
  precondition(fiveText.utf8.count == 140, "five-clause input is \(fiveText.utf8.count) bytes")
  Benchmark("Parse five clauses (140 B)", configuration: .init(scalingFactor: .kilo)) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? PredicateParser.parse(fiveText))
    }
  }

  let tenText = checked(tenKilobytes)
  Benchmark("Parse 10 KB") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? PredicateParser.parse(tenText))
    }
  }

  let hundredText = checked(hundredKilobytes)
  Benchmark("Parse 100 KB") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? PredicateParser.parse(hundredText))
    }
  }

  let fiveSyntax = try! PredicateParser.parse(fiveText)
  Benchmark("Print five clauses", configuration: .init(scalingFactor: .kilo)) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(fiveSyntax.description)
    }
  }

  let garbage = String(repeating: "§ ( ' ? 0x ", count: 10_000)
  Benchmark("Reject 110 KB of garbage") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? PredicateParser.parse(garbage))
    }
  }
}
