#!/usr/bin/env bash
# Counts the watcher's instructions per unit under callgrind (the figures
# are in docs/benchmarks.md, "Watcher: classification, registration and
# memory"). Each mode of Benchmarks/Tools/WatcherProfile runs its work inside
# `measuredLoop`, and only that function (with what it calls) is counted; the
# count is divided by the mode's units (changed objects or watches).
# Instruction counts do not depend on the machine's load.
#
#   Scripts/watcher-instruction-counts.sh            # every mode of the table
#   Scripts/watcher-instruction-counts.sh composite  # only the modes that start so
#
# Needs valgrind (apt-get install valgrind) and bc.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
filter=${1:-}
swift build -c release --product WatcherProfile >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# count UNITS MODE ARGUMENTS...
count() {
  local units=$1
  shift
  [[ -z "$filter" || "$1" == "$filter"* ]] || return 0
  SWIFT_BACKTRACE=enable=no valgrind --tool=callgrind --callgrind-out-file="$work/out" --collect-atstart=no \
    --toggle-collect='*measuredLoop*' .build/release/WatcherProfile "$@" >/dev/null 2>"$work/log"
  local total
  total=$(grep -o 'refs: *[0-9,]*' "$work/log" | tr -dc 0-9)
  printf '%-24s %14s instructions  %8.0f per unit (%s units)\n' "$*" "$total" "$(echo "$total / $units" | bc -l)" "$units"
}

count 20000 process 1000 200
count 5000 process 100000 50
count 100000 register 100000 10000
count 20000 register 20000
count 20000 composite 20000 2000
count 20000 remove 20000
count 20000 ranges 200
for form in between half-open keyed text prefix; do
  count 5000 range-form "$form" 100000 50
  count 100000 register-range-form "$form" 100000
done
