#!/usr/bin/env bash
# Fuzzes the predicate parser with libFuzzer for a chosen time.
#
#   Scripts/fuzz-parser.sh [SECONDS] [extra libFuzzer flags...]
#
# Builds Fuzz/.out/parser-fuzzer (swiftc -sanitize=fuzzer,address) from the
# PredicateDSL sources and Fuzz/ParserFuzzer, then runs it on a working copy
# of the seed corpus for SECONDS (default 60). Findings go to
# Fuzz/.out/crashes/. The run's statistics are printed at the end.
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/Fuzz/.out"
binary="$out/parser-fuzzer"
mkdir -p "$out/corpus" "$out/crashes"
export SWIFT_BACKTRACE=enable=no

sources=$(find "$root/Sources/PredicateDSL" "$root/Fuzz/ParserFuzzer" -name '*.swift' | sort)
if [ ! -x "$binary" ] || [ -n "$(find $sources -newer "$binary" 2>/dev/null | head -1)" ]; then
  echo "building $binary"
  # shellcheck disable=SC2086
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name main \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -module-name ParserFuzzer $sources -o "$binary"; then
    echo "error: swiftc could not build the fuzzer (see the errors above; it also needs a toolchain with the libFuzzer runtime, -sanitize=fuzzer)" >&2
    exit 1
  fi
fi

cp -n "$root"/Fuzz/corpus/parser/* "$out/corpus/" 2>/dev/null || true
cd "$out"
"$binary" "$out/corpus" -dict="$root/Fuzz/parser.dict" -max_len=4096 -timeout=5 \
  -rss_limit_mb=4096 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$out/crashes/" "$@"
