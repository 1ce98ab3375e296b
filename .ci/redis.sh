#!/usr/bin/env bash
# A throw-away Redis for the shared-state tests (tests/test_redis.py) and the fleet bench.
#
#   eval "$(.ci/redis.sh start [PORT])"   # prints export lines: ATELIER_TEST_REDIS_URL and
#                                         # ATELIER_TEST_REDIS_DIR (default port 46379)
#   .ci/redis.sh stop "$ATELIER_TEST_REDIS_DIR"
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
  redis-server --bind 127.0.0.1 --port "$port" --protected-mode yes \
    --save '' --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
  for _ in $(seq 1 100); do
    if [ -s "$dir/redis.pid" ] && [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; then
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

stop() {
  local dir="${1:?usage: redis.sh stop DIR}"
  if [ -f "$dir/redis.pid" ]; then
    local pid
    pid="$(cat "$dir/redis.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  case "$dir" in
    */atelier-redis.*) rm -rf "$dir" ;;
  esac
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) echo "usage: $0 start [PORT] | stop DIR" >&2; exit 2 ;;
esac
