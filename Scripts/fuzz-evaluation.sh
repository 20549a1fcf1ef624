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
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/Fuzz/.out"
binary="$out/evaluation-fuzzer"
support="$out/evaluation-support"
mkdir -p "$out/evaluation-corpus" "$out/crashes" "$support"
export SWIFT_BACKTRACE=enable=no

for file in ReferenceInterpreter RandomEvaluation SeededGenerator; do
  grep -v '^\(public \|package \)\?import PredicateDSL$' "$root/Tests/TestSupport/$file.swift" > "$support/$file.swift.new"
  cmp -s "$support/$file.swift.new" "$support/$file.swift" || mv "$support/$file.swift.new" "$support/$file.swift"
  rm -f "$support/$file.swift.new"
done
sources=$(find "$root/Sources/PredicateDSL" "$root/Fuzz/EvaluationFuzzer" "$support" -name '*.swift' | sort)
if [ ! -x "$binary" ] || [ -n "$(find $sources -newer "$binary" 2>/dev/null | head -1)" ]; then
  echo "building $binary"
  # shellcheck disable=SC2086
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name main \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -enable-upcoming-feature InternalImportsByDefault \
    -module-name EvaluationFuzzer $sources -o "$binary"; then
    echo "error: swiftc could not build the fuzzer (see the errors above; it also needs a toolchain with the libFuzzer runtime, -sanitize=fuzzer)" >&2
    exit 1
  fi
fi

cp -n "$root"/Fuzz/corpus/evaluation/* "$out/evaluation-corpus/" 2>/dev/null || true
cd "$out"
"$binary" "$out/evaluation-corpus" -dict="$root/Fuzz/parser.dict" -max_len=1024 -timeout=5 \
  -rss_limit_mb=4096 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$out/crashes/evaluation-" "$@"
