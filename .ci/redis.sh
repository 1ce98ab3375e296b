#!/usr/bin/env bash
# A throw-away Redis for the shared-state tests (tests/test_redis.py) and the fleet bench.
#
#   eval "$(.ci/redis.sh start [PORT])"   # prints export lines: ATELIER_TEST_REDIS_URL and
#                                         # ATELIER_TEST_REDIS_DIR (default port 46379)
#   .ci/redis.sh stop "$ATELIER_TEST_REDIS_DIR"
#   .ci/redis.sh restart "$ATELIER_TEST_REDIS_DIR" [PAUSE_S]   # stops it, waits PAUSE_S
#                                         # (default 0), starts it again on the same port, empty
#
# Debian's redis-server (installed if missing), on 127.0.0.1 only, no persistence (no RDB
# snapshots, no AOF), its files in a fresh temporary directory; start waits at most 20 s for
# PING. Progress goes to stderr, so stdout carries only the export lines.
set -euo pipefail

start() {
  local port="${1:-46379}"
  if ! command -v redis-server >/dev/null; then
    echo "redis.sh: installing redis-server from Debian" >&2
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server; } >&2
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "redis.sh: 127.0.0.1:$port is already in use; pick another port" >&2
    return 1
  fi
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/atelier-redis.XXXXXX")"
  echo "$port" >"$dir/port"
  launch "$dir" "$port"
  for _ in $(seq 1 100); do
    if ready "$dir" "$port"; then
      echo "redis.sh: Redis ready on 127.0.0.1:$port (files in $dir)" >&2
      echo "export ATELIER_TEST_REDIS_URL=redis://127.0.0.1:$port/0"
      echo "export ATELIER_TEST_REDIS_DIR=$dir"
      return 0
    fi
    sleep 0.2
  done
  echo "redis.sh: Redis did not answer PING on 127.0.0.1:$port within 20 s:" >&2
  tail -n 20 "$dir/redis.log" >&2 || true
  stop "$dir"
  return 1
}

# Starts redis-server for DIR on PORT (daemonized; returns at once).
launch() {
  local dir="$1" port="$2"
  redis-server --bind 127.0.0.1 --port "$port" --protected-mode yes \
    --save '' --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
}

ready() {
  [ -s "$1/redis.pid" ] && [ "$(redis-cli -h 127.0.0.1 -p "$2" ping 2>/dev/null)" = PONG ]
}

# Ends the server of DIR (SIGTERM, then SIGKILL after 10 s); its files stay.
halt() {
  local dir="$1"
  if [ -f "$dir/redis.pid" ]; then
    local pid
    pid="$(cat "$dir/redis.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/redis.pid"
  fi
}

stop() {
  local dir="${1:?usage: redis.sh stop DIR}"
  halt "$dir"
  case "$dir" in
    */atelier-redis.*) rm -rf "$dir" ;;
  esac
}

# The same server again, empty (no persistence: nothing survives), as after a crash.
restart() {
  local dir="${1:?usage: redis.sh restart DIR [PAUSE_S]}" pause="${2:-0}"
  [ -s "$dir/port" ] || { echo "redis.sh: $dir was not made by redis.sh start" >&2; return 1; }
  local port
  port="$(cat "$dir/port")"
  halt "$dir"
  sleep "$pause"
  launch "$dir" "$port"
  for _ in $(seq 1 100); do
    if ready "$dir" "$port"; then
      echo "redis.sh: Redis restarted empty on 127.0.0.1:$port" >&2
      return 0
    fi
    sleep 0.2
  done
  echo "redis.sh: Redis did not answer PING on 127.0.0.1:$port within 20 s of a restart" >&2
  return 1
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  restart) shift; restart "$@" ;;
  *) echo "usage: $0 start [PORT] | stop DIR | restart DIR [PAUSE_S]" >&2; exit 2 ;;
esac
