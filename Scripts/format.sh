#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the
# repository's .swift-format configuration, or, with --check (as CI runs
# it), fails when a file is not formatted or breaks a lint rule.
#
#   Scripts/format.sh           # format in place
#   Scripts/format.sh --check   # swift format lint --strict
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Fuzz/ParserFuzzer Benchmarks/Package.swift Benchmarks/Benchmarks Benchmarks/Tools
  Adapters/PostgresChangeSource/Package.swift Adapters/PostgresChangeSource/Sources
  Adapters/PostgresChangeSource/Tests Adapters/LiveQueryServer/Package.swift Adapters/LiveQueryServer/Sources
  Adapters/LiveQueryServer/Tests)
if [[ "${1:-}" == "--check" ]]; then
  swift format lint --strict --parallel -r "${paths[@]}"
  echo "format: clean"
else
  swift format format --in-place --parallel -r "${paths[@]}"
fi
