#!/usr/bin/env bash
# Runs the concurrent-saves stress test (Tests/ContextWatchingTests/StressTests.swift)
# at a chosen scale: several threads save into one context while watches look
# on and others come and go; every delivery is checked against a sequential
# oracle.
#
#   Scripts/stress.sh [THREADS SAVES WATCHES CHURN]
#
# Defaults to the full scale: 8 threads, 100,000 saves in all, 10,000
# watches, 10,000 watches added (a third removed again) during the run. The
# test suite runs it small (4 threads, 160 saves, 2,000 and 2,000). Built in
# release mode with testing enabled, in .build-stress; set
# CONTEXTWATCHER_SEED to replay a seed a failure printed.
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${1:-8}"
saves="${2:-100000}"
watches="${3:-10000}"
churn="${4:-10000}"
export CONTEXTWATCHER_STRESS="$threads,$saves,$watches,$churn"
echo "stress: $threads threads, $saves saves, $watches watches, $churn added during the run"
swift test -c release -Xswiftc -enable-testing --scratch-path .build-stress \
  --filter "StressTests/concurrentSavesAgreeWithTheOracle"
