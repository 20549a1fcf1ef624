// Heap bytes per watch of a ContextWatcher.
//
//   swift run -c release WatcherMemory                # 100,000 watches
//   swift run -c release WatcherMemory 10000 1000000  # other counts
//
// For each count and each kind of watch: creates a watcher fed change values
// directly (no context), reads glibc's count of heap bytes in use
// (mallinfo2: arena blocks plus mapped blocks), adds the watches through
// `watch(_:where:_:)` (parsing each format, as an application would) and keeps
// their tokens in an array reserved beforehand, reads the count again, and
// divides the difference by the count. The tokens (one object each, plus 8
// bytes in the array) are part of the figure, since an application must keep
// them; their share is printed apart.
//
// Kinds of watch:
//   simple, distinct constants: `city == %@`, each watch its own city;
//   simple, 100 constants:      `city == %@`, 1,000 watches per city at 100k;
//   with a residual:            `city == %@ AND age > %@`, ten watches per
//                               city, thresholds 18...69.
//
// Figures: docs/benchmarks.md.

import BenchmarkSupport
import ContextWatching
import MallocInfo
import ObjectGraph
import PredicateDSL

let schema = BenchmarkSchemas.cityPeople

struct Kind {
  var name: String
  var format: String
  var arguments: (Int, Int) -> [FilterValue]
}

let kinds = [
  Kind(name: "city == %@, distinct constants", format: "city == %@") { index, _ in [.string("C\(index)")] },
  Kind(name: "city == %@, 100 constants", format: "city == %@") { index, _ in [.string("C\(index % 100)")] },
  Kind(name: "city == %@ AND age > %@", format: "city == %@ AND age > %@") { index, count in
    [.string("C\(index % max(1, count / 10))"), .int(Int64(18 + index * 7_919 % 52))]
  },
]

struct Measurement {
  var perWatch: Double
  var tokenBlock: Int
}

func measure(_ kind: Kind, count: Int) -> Measurement {
  let watcher = ContextWatcher(schema: schema, target: .handler(on: .immediate) { _ in })
  var tokens: [WatchToken] = []
  tokens.reserveCapacity(count)
  let start = malloc_info_bytes_in_use()
  for index in 0..<count {
    tokens.append(try! watcher.watch("Person", where: kind.format, arguments: kind.arguments(index, count)))
  }
  let end = malloc_info_bytes_in_use()
  precondition(watcher.watchCount == count, "\(watcher.watchCount) watches")
  // The smallest block among the first tokens (a token may land in a larger
  // free block left by the parser).
  let tokenBlock = tokens.prefix(1_000).map { malloc_info_block_size(Unmanaged.passUnretained($0).toOpaque()) }.min()!
  // Hold the watcher and the tokens until after the reading.
  withExtendedLifetime((watcher, tokens)) {}
  return Measurement(perWatch: Double(end - start) / Double(count), tokenBlock: tokenBlock)
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }

// Sizes that explain the figures (a watch keeps its predicate inline).
print(
  "PredicateSyntax: size \(MemoryLayout<PredicateSyntax>.size) B; WatchOptions: size \(MemoryLayout<WatchOptions>.size) B; "
    + "FilterValue: stride \(MemoryLayout<FilterValue>.stride) B")

// A first, small watcher loads what is allocated once (type metadata, the
// schema's layouts, caches) before anything is counted.
for kind in kinds { _ = measure(kind, count: 1_000) }
precondition(malloc_info_bytes_in_use() > 0, "mallinfo2() is not available here")

for count in counts.isEmpty ? [100_000] : counts {
  for kind in kinds {
    let result = measure(kind, count: count)
    // A token's chunk: its usable size plus malloc's 8-byte header; plus its
    // 8-byte slot in the tokens array.
    let tokenShare = result.tokenBlock + 8 + 8
    print(
      "\(count) watches, \(kind.name): \(String(format: result.perWatch)) B/watch "
        + "(tokens \(tokenShare) B of it; watcher alone \(String(format: result.perWatch - Double(tokenShare))) B)")
  }
}

extension String {
  init(format value: Double) {
    self = String(Double(Int((value * 10).rounded())) / 10)
  }
}
