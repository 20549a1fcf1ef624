#!/usr/bin/env bash
# Times parsing, and freeing the parsed tree, apart, per byte, for the
# benchmarks' inputs (the 140-byte predicate, 10 KB and 100 KB), without the
# benchmark runner: the parser's linearity target in isolation
# (docs/benchmarks.md).
#
#   Scripts/measure-parse-linearity.sh [ROUNDS]
#
# Builds PredicateDSL as its own module (-O, whole module) and a driver that
# takes, for each input, the fastest of many parses and of many frees, in
# ROUNDS rounds (default 3) so that the spread on a shared machine shows.
# Wall clock: compare within a round. Output stays in .build-profile/linearity/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-profile/linearity
mkdir -p "$out"
rounds=${1:-3}

cat > "$out/main.swift" <<'SWIFT'
import Dispatch
import PredicateDSL

let inputs = [
  ("140 B", BenchmarkPredicates.parsedFiveClauses, 20_000),
  ("10 KB", BenchmarkPredicates.longPredicate(bytes: 10_000), 300),
  ("100 KB", BenchmarkPredicates.longPredicate(bytes: 100_000), 30),
]
var perByte: [String: Double] = [:]
for (label, text, repetitions) in inputs {
  var (bestParse, bestFree) = (UInt64.max, UInt64.max)
  for _ in 0..<repetitions {
    let start = DispatchTime.now().uptimeNanoseconds
    var parsed: PredicateSyntax? = try PredicateParser.parse(text)
    let parsedAt = DispatchTime.now().uptimeNanoseconds
    precondition(parsed != nil)
    parsed = nil
    let freedAt = DispatchTime.now().uptimeNanoseconds
    bestParse = min(bestParse, parsedAt - start)
    bestFree = min(bestFree, freedAt - parsedAt)
  }
  let bytes = Double(text.utf8.count)
  let (parse, free) = (Double(bestParse) / bytes, Double(bestFree) / bytes)
  perByte[label] = parse + free
  print(
    "  \(label) (\(text.utf8.count) B): parse \(String(format: 2, parse)) ns/B, free \(String(format: 2, free)) ns/B,"
      + " both \(String(format: 2, parse + free)) ns/B")
}
print("  100 KB per byte ÷ 140 B per byte: \(String(format: 2, perByte["100 KB"]! / perByte["140 B"]!))×")

extension String {
  /// `value` with `digits` decimals.
  init(format digits: Int, _ value: Double) {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    self = "\(Double(Int(value * scale + 0.5)) / scale)"
  }
}
SWIFT

sources=$(find Sources/PredicateDSL -name '*.swift' | sort)
# shellcheck disable=SC2086
(cd "$out" && swiftc -O -wmo -parse-as-library -swift-version 6 -package-name main -module-name PredicateDSL \
  -emit-library -emit-module $(for f in $sources; do echo "../../$f"; done) -o libPredicateDSL.so)
(cd "$out" && swiftc -O -swift-version 6 -I . -L . -lPredicateDSL main.swift ../../Benchmarks/Support/BenchmarkInputs.swift \
  -o driver -Xlinker -rpath -Xlinker "$PWD")
for round in $(seq 1 "$rounds"); do
  echo "round $round"
  "$out/driver"
done
