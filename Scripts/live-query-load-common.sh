# Shared by Scripts/live-query-load.sh and Scripts/live-query-load-postgres.sh
# (sourced, not run): reading the server's CPU time from its /metrics.

# The server's CPU seconds so far, from its /metrics.
cpu_seconds() { # port
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  reply=$(cat <&3)
  exec 3<&-
  sed -n 's/^process_cpu_seconds_total \([0-9.e+-]*\).*/\1/p' <<<"$reply"
}

# Prints one JSON line with LABEL and the cores the server on PORT used over
# SECONDS, after two seconds to settle: what it costs with no clients.
print_idle_cores() { # label port seconds
  local start end
  sleep 2
  start=$(cpu_seconds "$2")
  sleep "$3"
  end=$(cpu_seconds "$2")
  echo "{\"label\":\"$1\",\"server_cpu_cores\":$(awk -v a="$start" -v b="$end" -v s="$3" 'BEGIN { printf "%.2f", (b - a) / s }')}"
}
