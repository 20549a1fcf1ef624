#!/usr/bin/env bash
# Fuzzes compiled evaluation against the reference interpreter (a
# differential fuzzer) with libFuzzer for a chosen time.
#
#   Scripts/fuzz-evaluation.sh [SECONDS] [extra libFuzzer flags...]
#
# Builds Fuzz/.out/evaluation-fuzzer (swiftc -sanitize=fuzzer,address) from
# the PredicateDSL sources, Fuzz/EvaluationFuzzer and the test support it
# uses (the reference interpreter and the random records and predicates,
# their `import PredicateDSL` dropped: one module), then runs it on a working
# copy of Fuzz/corpus/evaluation for SECONDS (default 60). An input is 8
# bytes of seed, then predicate text. Findings go to Fuzz/.out/crashes/;
# keep each as a regression test (Tests/PredicateDSLTests/FuzzFindingsTests.swift).
source "$(dirname "$0")/fuzz-common.sh"
shift || true

binary="$out/evaluation-fuzzer"
support="$out/evaluation-support"
mkdir -p "$support"
for file in ReferenceInterpreter RandomEvaluation SeededGenerator; do
  grep -v '^\(public \|package \)\?import PredicateDSL$' "$root/Tests/TestSupport/$file.swift" > "$support/$file.swift.new"
  cmp -s "$support/$file.swift.new" "$support/$file.swift" || mv "$support/$file.swift.new" "$support/$file.swift"
  rm -f "$support/$file.swift.new"
done
mapfile -t sources < <(find "$root/Sources/PredicateDSL" "$root/Fuzz/EvaluationFuzzer" "$support" -name '*.swift' | sort)
fuzz_build "$binary" EvaluationFuzzer "${sources[@]}"
fuzz_run "$binary" "$root/Fuzz/corpus/evaluation" "$out/evaluation-corpus" 1024 "$out/crashes/evaluation-" "$@"
