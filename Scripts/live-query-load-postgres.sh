#!/usr/bin/env bash
# Measures the live-query server over PostgreSQL (release builds), printing one JSON line per
# run, as Scripts/live-query-load.sh does for the embedded source: S subscriptions over C
# connections, each connection one user, each subscription its own priority window, while
# pgbench makes W single-row commits a second (a task's priority and its updated_at, the time
# inside the transaction, just before its commit, that the load tool measures from). The server
# follows the table through its replica (`--postgres`), so the latencies include the replica's:
# commit, WAL, wal2json, decode, apply.
# It runs live, then with no clients (what following the writes costs the server alone); the
# polling baseline is measured on the embedded source (Scripts/live-query-load.sh). The
# database's own CPU is not the server's, and is not counted.
# Runs itself under Scripts/postgres-test-server.sh (a throwaway cluster).
#
#   Scripts/live-query-load-postgres.sh 10000 100 500   # S C W
#   LOAD_MODES=live Scripts/live-query-load-postgres.sh 10000 100 500
set -euo pipefail
source "$(dirname "$0")/live-query-load-common.sh"
if [[ -z ${PGPORT:-} ]]; then
  exec "$(dirname "$0")/postgres-test-server.sh" "$0" "$@"
fi
[[ $# -eq 3 ]] || { echo "usage: $0 SUBSCRIPTIONS CONNECTIONS COMMITS_A_SECOND" >&2; exit 2; }
subscriptions=$1 connections=$2 rate=$3
cd "$(dirname "$0")/../Adapters/LiveQueryServer"
swift build -c release --product live-query-server >&2
swift build -c release --product live-query-load >&2
bin=$(swift build -c release --show-bin-path)
pgbench=/usr/lib/postgresql/15/bin/pgbench
export LIVE_QUERY_SECRET="load-test secret: $(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
seconds=${LOAD_SECONDS:-10}
objects=$((connections * 20)) priorities=1000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -q -v ON_ERROR_STOP=1 <<SQL
DROP TABLE IF EXISTS load_tasks;
CREATE TABLE load_tasks (
  id bigint PRIMARY KEY, title text NOT NULL, owner text NOT NULL, priority integer NOT NULL,
  status text NOT NULL, updated_at timestamptz NOT NULL);
ALTER TABLE load_tasks REPLICA IDENTITY FULL;
INSERT INTO load_tasks
  SELECT n, 'task ' || n, 'u' || (n % $connections + 1), floor(random() * $priorities)::int,
    (ARRAY['todo', 'doing', 'done'])[n % 3 + 1], now()
  FROM generate_series(1, $objects) AS n;
SQL
cat >"$work/schema.json" <<'JSON'
{"entities": [{"name": "Task", "table": "load_tasks", "attributes": {
  "title": {"type": "string"}, "owner": {"type": "string"}, "priority": {"type": "integer"},
  "status": {"type": "string"}, "updatedAt": {"type": "date"}},
  "columns": {"updatedAt": "updated_at"}}]}
JSON
cat >"$work/policy.json" <<'JSON'
{"roleClaim": "role",
 "entities": {"Task": {"read": "owner == $sub OR $role == 'admin'",
   "attributes": {"*": ["title", "owner", "priority", "status", "updatedAt"]}}}}
JSON
cat >"$work/write.sql" <<SQL
\set id random(1, $objects)
\set priority random(0, $((priorities - 1)))
UPDATE load_tasks SET priority = :priority, updated_at = clock_timestamp() WHERE id = :id;
SQL

run() { # mode
  local mode=$1 out slot="load_$1"
  out=$(mktemp)
  SWIFT_BACKTRACE=enable=no "$bin/live-query-server" --port 0 --hs256-secret-env LIVE_QUERY_SECRET \
    --postgres --schema "$work/schema.json" --policy "$work/policy.json" --slot "$slot" \
    --max-subscriptions $(((subscriptions + connections - 1) / connections)) \
    >"$out" 2>"$work/server.log" &
  local server=$!
  local port=""
  for _ in $(seq 300); do
    port=$(sed -n 's/.*:\([0-9]*\)".*/\1/p' "$out")
    [[ -n $port ]] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
  done
  # The writes go on until the run is measured; pgbench paces them at W a second.
  "$pgbench" -n -c 2 -j 1 -R "$rate" -T 3600 -f "$work/write.sql" >/dev/null 2>&1 &
  local writer=$!
  if [[ $mode == writer ]]; then
    print_idle_cores "postgres writer alone W=$rate" "$port" "$seconds"
  else
    "$bin/live-query-load" --port "$port" --connections "$connections" --subscriptions "$subscriptions" \
      --owners "$connections" --priorities "$priorities" --seconds "$seconds" \
      --label "postgres $mode S=$subscriptions C=$connections W=$rate" \
      || echo "{\"label\":\"postgres $mode S=$subscriptions C=$connections W=$rate\",\"failed\":true}"
  fi
  kill "$writer" 2>/dev/null || true
  wait "$writer" 2>/dev/null || true
  kill -TERM "$server"
  wait "$server" || true
  # The server's WAL sender may outlive the server by a moment.
  for _ in $(seq 50); do
    psql -q -c "SELECT pg_drop_replication_slot('$slot')" >/dev/null 2>&1 && break
    sleep 0.2
  done
  rm -f "$out"
}

for mode in ${LOAD_MODES:-live writer}; do
  run "$mode"
done
