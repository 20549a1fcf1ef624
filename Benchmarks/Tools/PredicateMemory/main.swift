// Memory a large predicate takes to parse and compile.
//
//   swift run -c release --package-path Benchmarks PredicateMemory            # 1 MB and 15 MB
//   swift run -c release --package-path Benchmarks PredicateMemory 4000000
//
// For each size: builds a predicate of short comparisons joined by OR
// (`a == 1 OR b == 2 OR …`, the shape that yields the most nodes a byte),
// raises the length limit to fit it, then compiles it from its text for
// records, as a service compiles a client's predicate. It reports, per byte
// of text: the heap the compiled filter holds (glibc's mallinfo2), and the
// growth of the process's peak resident memory over the whole step
// (getrusage), which includes what parsing and compiling allocate and free
// on the way. Sizes run from smallest to largest, so each peak is its own.
//
// Figures: docs/limits.md and docs/benchmarks.md.

import Foundation
import MallocInfo
import PredicateDSL

func predicate(bytes: Int) -> String {
  var text = ""
  text.reserveCapacity(bytes + 32)
  var index = 0
  while text.utf8.count < bytes {
    if index > 0 { text += " OR " }
    text += "k\(index % 26) == \(index)"
    index += 1
  }
  return text
}

func peakResidentBytes() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_maxrss * 1024
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }
for size in (sizes.isEmpty ? [1_000_000, 15_000_000] : sizes).sorted() {
  let text = predicate(bytes: size)
  let length = text.utf8.count
  let limits = PredicateLimits(maximumLength: length)
  let heapBefore = malloc_info_bytes_in_use()
  let peakBefore = peakResidentBytes()
  let filter = try! CompiledFilter(text, limits: limits, resolver: RecordKeyResolver())
  let heapHeld = malloc_info_bytes_in_use() - heapBefore
  let peakGrowth = max(0, peakResidentBytes() - peakBefore)
  precondition(try! filter.evaluate(["k0": .int(0)]), "the first comparison must match")
  withExtendedLifetime(filter) {}
  print(
    "\(megabytes(length)) predicate: held \(megabytes(heapHeld)) (\(String(format: "%.1f", Double(heapHeld) / Double(length))) B a byte), "
      + "peak resident growth \(megabytes(peakGrowth)) (\(String(format: "%.1f", Double(peakGrowth) / Double(length))) B a byte)"
  )
}
