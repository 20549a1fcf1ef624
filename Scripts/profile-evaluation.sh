#!/usr/bin/env bash
# Counts the instructions of compiled predicate evaluation under callgrind:
# 200 passes of the five-clause benchmark predicate over 1,000 slot-stored
# objects, in a whole-module release build of Sources/PredicateDSL plus a
# small driver. Instruction counts do not depend on the machine's load.
#
#   Scripts/profile-evaluation.sh            # prints the top functions
#
# Needs valgrind (apt-get install valgrind). Output stays in .build-profile/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-profile
mkdir -p "$out"
cat > "$out/main.swift" <<'SWIFT'
final class StoredPerson: Sendable {
  let values: [FilterValue]
  init(_ values: [FilterValue]) { self.values = values }
}
let fields = ["name", "age", "score", "status", "email"]
struct SlotResolver: KeyResolver {
  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<StoredPerson> {
    guard let slot = fields.firstIndex(of: path.components[0]) else {
      throw .unknownKey(path, entity: "Person", candidates: fields)
    }
    return ResolvedKey(consuming: 1) { $0.values[slot] }
  }
}
@main struct Main {
  static func main() throws {
    var people: [StoredPerson] = []
    for i in 0..<1000 {
      let name: FilterValue = .string(i % 3 == 0 ? "Bob" : "Alice")
      let age: FilterValue = .int(Int64(20 + i % 40))
      let score: FilterValue = .double(Double(i % 100))
      let status: FilterValue = .string(i % 4 == 0 ? "closed" : "active")
      let email: FilterValue = .string("a@example.org")
      people.append(StoredPerson([name, age, score, status, email]))
    }
    let filter = try CompiledFilter(
      #"age > 30 AND name BEGINSWITH "A" AND status IN {"active", "trial"} AND score BETWEEN {10, 90} AND email ENDSWITH ".org""#,
      resolver: SlotResolver())
    var count = 0
    for _ in 0..<200 { for person in people where try filter.evaluate(person) { count += 1 } }
    print("matches:", count)
  }
}
SWIFT
sources=$(find "$PWD/Sources/PredicateDSL" -name '*.swift')
# Built from inside $out, where swiftc also leaves its module files.
(cd "$out" && swiftc -O -wmo -g -parse-as-library -swift-version 6 -package-name main \
  -module-name Profile $sources main.swift -o profile)
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$out/profile" 2>&1 | grep 'refs'
callgrind_annotate "$out/callgrind.out" | sed -n '/file:function/,$p' | head -25
