#!/usr/bin/env bash
# Runs tests N times in a row and stops at the first failing run: shows that
# a suite does not fail now and then (a flake such as a SIGPIPE from a
# command that exits before reading its input kills the whole run).
#
#   Scripts/repeat-tests.sh [N] [FILTER] [extra swift test flags...]
#
# N defaults to 20 and FILTER to the command-line tests
# (ContextWatchToolTests); FILTER "." runs the whole suite. Builds once, then
# runs `swift test --skip-build` N times (with the extra flags, such as
# --skip REGEX), printing each run's result and time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
filter="${2:-ContextWatchToolTests}"
shift 2 || shift $# || true
swift build --build-tests
for run in $(seq 1 "$runs"); do
  start=$(date +%s)
  if ! log=$(swift test --skip-build --filter "$filter" "$@" 2>&1); then
    echo "$log" | tail -40
    echo "run $run of $runs FAILED"
    exit 1
  fi
  summary=$(grep -E "Test run with [0-9]+ tests" <<< "$log" | tail -1 | sed -E 's/.*(Test run with [0-9]+ tests).*/\1/')
  echo "run $run of $runs passed in $(($(date +%s) - start)) s (${summary:-no Swift Testing summary})"
done
echo "$runs runs in a row passed"
