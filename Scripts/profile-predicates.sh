#!/usr/bin/env bash
# Counts the instructions of parsing, compiling and evaluating predicates
# under callgrind, the way a client of the package runs them: PredicateDSL is
# built as its own module (whole-module, -O) and a driver in another module
# calls it, so generic code runs unspecialised as it does for users.
# Instruction counts do not depend on the machine's load; see
# docs/benchmarks.md for the figures.
#
#   Scripts/profile-predicates.sh                      # every case
#   Scripts/profile-predicates.sh parse                # only the cases whose name starts so
#   Scripts/profile-predicates.sh --top evaluate-five  # and where each case spends them
#   PROFILE_NO_BUILD=1 Scripts/profile-predicates.sh evaluate   # reuse the last build
#
# The evaluate cases mirror Benchmarks/Benchmarks/EvaluationBenchmarks: each
# predicate through the compiled filter (its resolver gives KeyReaders), the
# `-closure` cases through the benchmarks' hand-written closures over the same
# storage, and the `-readclosure` cases through a resolver that gives closures.
#
# Needs valgrind (apt-get install valgrind). Output stays in .build-profile/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=.build-profile/predicates
mkdir -p "$out"
top=false
if [[ "${1:-}" == "--top" ]]; then
  top=true
  shift
fi
filter=${1:-}

cat > "$out/driver.swift" <<'SWIFT'
import PredicateDSL

let fields = ["name", "age", "score", "status", "email", "active", "city", "level", "balance", "country"]
/// Reads a slot: the resolver gives it as a KeyReader, so that comparisons
/// are built here, specialised for StoredPerson.
struct SlotReader: KeyReader {
  let slot: Int
  func read(_ object: StoredPerson) -> FilterValue { object.values[slot] }
}
struct SlotResolver: KeyResolver {
  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<StoredPerson> {
    guard let slot = fields.firstIndex(of: path.components[0]) else {
      throw .unknownKey(path, entity: "Person", candidates: fields)
    }
    return ResolvedKey(consuming: 1, reader: SlotReader(slot: slot))
  }
}
/// The same resolver giving its reads as closures (the `-readclosure` cases).
struct ClosureSlotResolver: KeyResolver {
  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<StoredPerson> {
    guard let slot = fields.firstIndex(of: path.components[0]) else {
      throw .unknownKey(path, entity: "Person", candidates: fields)
    }
    return ResolvedKey(consuming: 1) { $0.values[slot] }
  }
}

let fiveClauses = BenchmarkPredicates.parsedFiveClauses
let evaluated = BenchmarkPredicates.evaluatedFiveClauses

func person(_ i: Int) -> StoredPerson {
  let name: FilterValue = .string(i % 3 == 0 ? "Bob" : "Alice")
  let age: FilterValue = .int(Int64(20 + i % 40))
  let score: FilterValue = .double(Double(i % 100))
  let status: FilterValue = .string(i % 4 == 0 ? "closed" : "active")
  return StoredPerson([
    name, age, score, status, .string("a@example.org"), .bool(i % 10 != 0), .string(i % 5 == 0 ? "Oslo" : "Bergen"),
    .int(Int64(i % 7)), .double(Double(i % 11)), .string(i % 6 == 0 ? "SE" : "NO"),
  ])
}
let people: [StoredPerson] = (0..<1000).map(person)

// The benchmarks' hand-written closures (Benchmarks/Benchmarks/EvaluationBenchmarks).
@Sendable func ageAbove30(_ p: StoredPerson) -> Bool { (p.values[1].intValue ?? 0) > 30 }
@Sendable func beginsWithA(_ p: StoredPerson) -> Bool { p.values[0].stringValue?.hasPrefix("A") ?? false }
@Sendable func likeAStarE(_ p: StoredPerson) -> Bool {
  p.values[0].stringValue.map { $0.hasPrefix("A") && $0.hasSuffix("e") && $0.count >= 2 } ?? false
}
let tenClauses = BenchmarkPredicates.evaluatedTenClauses
let evaluatedFormats = [
  "evaluate-short": "age > 30", "evaluate-begins": #"name BEGINSWITH "A""#,
  "evaluate-cd": #"name BEGINSWITH[cd] "a""#, "evaluate-like": #"name LIKE "A*e""#,
  "evaluate-five": evaluated, "evaluate-ten": tenClauses,
]
/// A switch, not a dictionary: a closure taken out of a dictionary is wrapped
/// in a reabstraction thunk, which would add a call to every evaluation.
func closure(_ mode: String) -> (@Sendable (StoredPerson) -> Bool)? {
  switch mode {
  case "evaluate-short-closure": ageAbove30
  case "evaluate-begins-closure": beginsWithA
  case "evaluate-like-closure": likeAStarE
  case "evaluate-five-closure": fiveClausesStored
  case "evaluate-ten-closure": tenClausesStored
  default: nil
  }
}

/// The timed work: callgrind counts only inside this function.
@inline(never)
func measured(_ repetitions: Int, _ body: () throws -> Int) rethrows -> Int {
  var total = 0
  for _ in 0..<repetitions { total &+= try body() }
  return total
}

/// Runs one case; a free function, so that its closures are not isolated
/// to the main actor (which would check the executor on every call).
func run(_ mode: String, _ repetitions: Int) throws -> Int {
    let result: Int
    switch mode {
    case "parse-short": result = try measured(repetitions) { try PredicateParser.parse("age > 30").range.upperBound }
    case "parse-140": result = try measured(repetitions) { try PredicateParser.parse(fiveClauses).range.upperBound }
    case "parse-10k", "parse-100k":
      let text = BenchmarkPredicates.longPredicate(bytes: mode == "parse-10k" ? 10_000 : 100_000)
      result = try measured(repetitions) { try PredicateParser.parse(text).range.upperBound }
    case "compile-short":
      result = try measured(repetitions) { try CompiledFilter("age > 30", resolver: SlotResolver()).constantResult == nil ? 1 : 0 }
    case "compile-short-readclosure":
      result = try measured(repetitions) { try CompiledFilter("age > 30", resolver: ClosureSlotResolver()).constantResult == nil ? 1 : 0 }
    case "compile-two-readclosure":
      result = try measured(repetitions) {
        try CompiledFilter(#"age > 30 AND name BEGINSWITH[c] "a""#, resolver: ClosureSlotResolver()).constantResult == nil ? 1 : 0
      }
    case "compile-two":
      result = try measured(repetitions) {
        try CompiledFilter(#"age > 30 AND name BEGINSWITH[c] "a""#, resolver: SlotResolver()).constantResult == nil ? 1 : 0
      }
    case _ where closure(mode) != nil:
      // The hand-written closures over the same storage that the benchmarks compare with.
      let test = closure(mode)!
      let objects = people
      result = measured(repetitions) { objects.count(where: test) }
    case _ where evaluatedFormats[mode] != nil:
      let filter = try CompiledFilter(evaluatedFormats[mode]!, resolver: SlotResolver())
      let objects = people
      result = try measured(repetitions) { try objects.count { try filter.evaluate($0) } }
    case _ where mode.hasSuffix("-readclosure"):
      let format = evaluatedFormats[String(mode.dropLast("-readclosure".count))]!
      let filter = try CompiledFilter(format, resolver: ClosureSlotResolver())
      let objects = people
      result = try measured(repetitions) { try objects.count { try filter.evaluate($0) } }
    default:
      fatalError("unknown mode \(mode)")
    }
    return result
}

@main struct Driver {
  static func main() throws {
    let arguments = CommandLine.arguments
    print(arguments[1], try run(arguments[1], Int(arguments[2])!))
  }
}
SWIFT

sources=$(find "$root/Sources/PredicateDSL" -name '*.swift')
if [[ -z "${PROFILE_NO_BUILD:-}" ]]; then  # PROFILE_NO_BUILD=1 reuses the last build
# Built from inside $out, where swiftc also leaves its module files.
(cd "$out" && swiftc -O -wmo -parse-as-library -swift-version 6 -package-name main -module-name PredicateDSL \
  -emit-library -emit-module $sources -o libPredicateDSL.so)
# The predicates and hand-written closures are the benchmarks' own.
(cd "$out" && swiftc -O -wmo -parse-as-library -swift-version 6 -I . -L . -lPredicateDSL driver.swift \
  "$root/Benchmarks/Support/BenchmarkInputs.swift" \
  -o driver -Xlinker -rpath -Xlinker "$root/$out")
fi

# name, repetitions, operations per repetition, unit
cases="parse-short 20000 1 parse
parse-140 20000 1 parse
parse-10k 100 1 parse
parse-100k 10 1 parse
compile-short 20000 1 compile
compile-short-readclosure 20000 1 compile
compile-two 20000 1 compile
compile-two-readclosure 20000 1 compile
evaluate-short 100 1000 object
evaluate-short-closure 100 1000 object
evaluate-short-readclosure 100 1000 object
evaluate-begins 100 1000 object
evaluate-begins-closure 100 1000 object
evaluate-cd 100 1000 object
evaluate-like 100 1000 object
evaluate-like-closure 100 1000 object
evaluate-five 100 1000 object
evaluate-five-closure 100 1000 object
evaluate-five-readclosure 100 1000 object
evaluate-ten 100 1000 object
evaluate-ten-closure 100 1000 object"

while read -r name repetitions per unit; do
  [[ -n "$filter" && "$name" != "$filter"* ]] && continue
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
    --callgrind-out-file="$out/$name.callgrind" "$out/driver" "$name" "$repetitions" > /dev/null 2> "$out/$name.log"
  total=$(grep -o 'refs: *[0-9,]*' "$out/$name.log" | tr -dc '0-9')
  echo "$name: $((total / (repetitions * per))) instructions per $unit"
  if $top; then
    callgrind_annotate --auto=no "$out/$name.callgrind" | sed -n '/file:function/,$p' | sed -n '3,22p'
  fi
done <<< "$cases"
