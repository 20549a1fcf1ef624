#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster on loopback for the PostgreSQL
# adapter's tests and demo, runs a command against it, then stops the server
# and removes its folder, whatever the command's outcome.
#
#   Scripts/postgres-test-server.sh COMMAND [ARGUMENT...]
#   Scripts/postgres-test-server.sh swift test --package-path Adapters/PostgresChangeSource
#
# The command runs with libpq's variables set (PGHOST=127.0.0.1, PGPORT,
# PGUSER=postgres, PGDATABASE=postgres; no password, loopback is trusted),
# and exits with the command's status. Without a command the script prints
# the variables and keeps the server up until it is interrupted.
#
# Installs what is missing from Debian's packages (postgresql-15,
# postgresql-15-wal2json, and libpq-dev, which the adapter's streaming
# builds against) when it runs as root. initdb refuses to run as
# root, so as root the cluster belongs to the `postgres` user (the Debian
# package creates it) and its folder is handed to that user.
#
# The cluster runs with wal_level = logical and room for replication slots.
# PGTEST_PORT picks the port; by default the first free one from 55432.
# PGTEST_SETTINGS holds postgresql.conf lines added last, which win over the
# ones above (the adapter's tests start servers set up wrong with it:
# PGTEST_SETTINGS="wal_level = replica").
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
wal2json=/usr/lib/postgresql/15/lib/wal2json.so

if [[ ! -x "$bin/initdb" || ! -f "$wal2json" || ! -f /usr/include/postgresql/libpq-fe.h ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "postgres-test-server: PostgreSQL 15, wal2json or libpq's headers are missing; run as root to" \
      "install postgresql-15, postgresql-15-wal2json and libpq-dev" >&2
    exit 1
  fi
  echo "postgres-test-server: installing postgresql-15, postgresql-15-wal2json and libpq-dev" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-wal2json libpq-dev >/dev/null
fi

port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${PGTEST_PORT:-}
if [[ -z "$port" ]]; then
  port=55432
  while ! port_is_free "$port"; do port=$((port + 1)); done
fi

dir=$(mktemp -d /tmp/pg-test-server.XXXXXX)
as_owner=()
if [[ $(id -u) -eq 0 ]]; then
  chown postgres: "$dir"
  as_owner=(runuser -u postgres --)
fi

sleeper=
stop() {
  [[ -z "$sleeper" ]] || kill "$sleeper" 2>/dev/null || true
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
  >"$dir/initdb.log" 2>&1 || {
  cat "$dir/initdb.log" >&2
  exit 1
}
cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
wal_level = logical
max_replication_slots = 64
max_wal_senders = 60
max_connections = 200
fsync = off
full_page_writes = off
EOF
# PostgreSQL 15.19 and later load only the output plugins this parameter
# lists; earlier servers do not know it and would refuse to start with it.
parameters=$("${as_owner[@]}" "$bin/postgres" --describe-config 2>/dev/null || true)
if grep -q '^output_plugin_libraries' <<<"$parameters"; then
  echo "output_plugin_libraries = 'pgoutput, test_decoding, wal2json'" >>"$dir/data/postgresql.conf"
fi
if [[ -n "${PGTEST_SETTINGS:-}" ]]; then
  printf '%s\n' "$PGTEST_SETTINGS" >>"$dir/data/postgresql.conf"
fi
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null || {
  cat "$dir/server.log" >&2
  exit 1
}

export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres
unset PGPASSWORD
if [[ $# -eq 0 ]]; then
  echo "PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER PGDATABASE=$PGDATABASE"
  echo "postgres-test-server: running in $dir; interrupt to stop" >&2
  # The sleep runs in the background so that a signal's trap runs at once.
  while true; do
    sleep 3600 &
    sleeper=$!
    wait "$sleeper" || true
  done
fi
status=0
"$@" || status=$?
exit "$status"
