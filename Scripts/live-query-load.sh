#!/usr/bin/env bash
# Measures the live-query server under load (release builds), printing one JSON line per run:
# S subscriptions over C connections, each connection one user, each subscription its own
# priority window, while the server's writer makes W commits a second. Each size runs twice,
# live and with the polling baseline (every subscription fetched again each second), so the
# two are compared in one run. A third run, with no clients, measures what the server's own
# writer costs, which both pay. See docs/live-queries.md ("Load") and docs/benchmarks.md.
#
#   Scripts/live-query-load.sh                 # the sizes of docs/benchmarks.md
#   Scripts/live-query-load.sh 10000 100 500   # one size: S C W
#   LOAD_MODES=live Scripts/live-query-load.sh 100000 1000 500   # some of live, poll, writer
set -euo pipefail
source "$(dirname "$0")/live-query-load-common.sh"
cd "$(dirname "$0")/../Adapters/LiveQueryServer"
swift build -c release --product live-query-server >&2
swift build -c release --product live-query-load >&2
bin=$(swift build -c release --show-bin-path)
export LIVE_QUERY_SECRET="load-test secret: $(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
seconds=${LOAD_SECONDS:-10}

run() { # subscriptions connections rate mode
  local subscriptions=$1 connections=$2 rate=$3 mode=$4 out
  local owners=$connections priorities=1000 objects=$((connections * 20))
  local poll=()
  [[ $mode == poll ]] && poll=(--poll-interval 1)
  out=$(mktemp)
  SWIFT_BACKTRACE=enable=no "$bin/live-query-server" --port 0 --hs256-secret-env LIVE_QUERY_SECRET \
    --rate "$rate" --owners "$owners" --priorities "$priorities" --objects "$objects" \
    --max-subscriptions $(((subscriptions + connections - 1) / connections)) "${poll[@]}" \
    >"$out" 2>/dev/null &
  local server=$!
  local port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*:\([0-9]*\)".*/\1/p' "$out")
    [[ -n $port ]] && break
    sleep 0.1
  done
  if [[ $mode == writer ]]; then
    # No clients: the writer's commits, saved and observed by no one.
    print_idle_cores "writer alone W=$rate" "$port" "$seconds"
  else
    "$bin/live-query-load" --port "$port" --connections "$connections" --subscriptions "$subscriptions" \
      --owners "$owners" --priorities "$priorities" --seconds "$seconds" --label "$mode S=$subscriptions C=$connections W=$rate" \
      || echo "{\"label\":\"$mode S=$subscriptions C=$connections W=$rate\",\"failed\":true}"
  fi
  kill -TERM "$server"
  wait "$server" || true
  rm -f "$out"
}

if [[ $# -eq 3 ]]; then
  for mode in ${LOAD_MODES:-live poll writer}; do
    run "$1" "$2" "$3" "$mode"
  done
else
  for size in "1000 100" "10000 100" "100000 1000"; do
    read -r subscriptions connections <<<"$size"
    run "$subscriptions" "$connections" 500 live
    run "$subscriptions" "$connections" 500 poll
  done
  run 1000 100 500 writer
fi
