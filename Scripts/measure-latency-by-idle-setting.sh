#!/usr/bin/env bash
# The watcher's save-to-delegate latency benchmarks (issue #5), run
# alternately with this VM's idle setting for its vCPUs and with the guest
# kernel's default: `guest_halt_poll_ns` 0 (an idle vCPU halts at once) and
# 200,000 (it polls for up to 200 µs first). Needs root, to write the
# parameter; puts back the value it found when it ends, however it ends.
# Figures: docs/benchmarks.md, "Latency (#5) and the VM's idle vCPUs".
#
#   sudo Scripts/measure-latency-by-idle-setting.sh [ROUNDS]   # default 2
set -euo pipefail
parameter=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [[ ! -w $parameter ]]; then
  echo "error: $parameter is missing or not writable (needs root, and the haltpoll cpuidle driver)" >&2
  exit 1
fi
original=$(cat "$parameter")
trap 'echo "$original" > "$parameter"' EXIT
cd "$(dirname "$0")/../Benchmarks"
for _ in $(seq "${1:-2}"); do
  for setting in 0 200000; do
    echo "$setting" > "$parameter"
    echo "=== guest_halt_poll_ns = $(cat "$parameter")"
    swift package --disable-sandbox benchmark --target WatcherBenchmarks --filter "latency.*" --no-progress 2>&1 |
      grep -E "^latency|save|hop|Metric"
  done
done
