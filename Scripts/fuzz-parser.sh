#!/usr/bin/env bash
# Fuzzes the predicate parser with libFuzzer for a chosen time.
#
#   Scripts/fuzz-parser.sh [SECONDS] [extra libFuzzer flags...]
#
# Builds Fuzz/.out/parser-fuzzer (swiftc -sanitize=fuzzer,address) from the
# PredicateDSL sources and Fuzz/ParserFuzzer, then runs it on a working copy
# of the seed corpus for SECONDS (default 60). Findings go to
# Fuzz/.out/crashes/. The run's statistics are printed at the end.
source "$(dirname "$0")/fuzz-common.sh"
shift || true

binary="$out/parser-fuzzer"
mapfile -t sources < <(find "$root/Sources/PredicateDSL" "$root/Fuzz/ParserFuzzer" -name '*.swift' | sort)
fuzz_build "$binary" ParserFuzzer "${sources[@]}"
fuzz_run "$binary" "$root/Fuzz/corpus/parser" "$out/corpus" 4096 "$out/crashes/" "$@"
