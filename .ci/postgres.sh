#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests, from Debian's packages (apt-get install postgresql).
#
#   .ci/postgres.sh start DIR [PORT]   initialises DIR/data, starts it on 127.0.0.1:PORT (a free
#                                      port if none), waits at most 60 s, prints the database URL
#   .ci/postgres.sh stop DIR           stops it (fast shutdown) and removes DIR
#   .ci/postgres.sh restart DIR [PAUSE_S]  stops it (fast shutdown: open sessions are cut), waits
#                                      PAUSE_S (default 0), starts it again on the same port
#
# The cluster listens on loopback only, trusts its one user (atelier) and keeps everything,
# socket included, in DIR. initdb refuses to run as root, so under root the server runs as the
# user "postgres" (created by Debian's package) or, failing that, a system user created here.
# DIR itself is handed to that user; its parents must be searchable by it (mktemp -d is fine).
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

bin_dir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [[ -x "$dir/initdb" ]] || die "no PostgreSQL binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
  echo "$dir"
}

# Runs a command as the cluster's owner.
as_owner() {
  if [[ $(id -u) -ne 0 ]]; then
    "$@"
  else
    local user=postgres
    if ! id -u "$user" >/dev/null 2>&1; then
      user=atelier-pg
      id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user"
    fi
    runuser -u "$user" -- "$@"
  fi
}

owner_name() {
  if [[ $(id -u) -ne 0 ]]; then id -un
  elif id -u postgres >/dev/null 2>&1; then echo postgres
  else echo atelier-pg; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir=${1:?usage: postgres.sh start DIR [PORT]} port=${2:-}
  local bin
  bin=$(bin_dir)
  [[ -n "$port" ]] || port=$(free_port)
  mkdir -p "$dir"
  [[ $(id -u) -ne 0 ]] || chown "$(owner_name)" "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U atelier --auth=trust -E UTF8 --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  echo "$port" >"$dir/port"
  launch "$dir" "$port"
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U atelier atelier
  echo "postgresql://atelier@127.0.0.1:$port/atelier"
}

# Starts the cluster of DIR on PORT; waits at most 60 s.
launch() {
  local dir=$1 port=$2
  # fsync off: a throw-away test cluster, nothing to keep across a power cut.
  as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log" >&2; die "the server did not start within 60 s"; }
}

restart() {
  local dir=${1:?usage: postgres.sh restart DIR [PAUSE_S]} pause=${2:-0}
  [[ -s "$dir/port" ]] || die "$dir was not made by postgres.sh start"
  as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
  sleep "$pause"
  launch "$dir" "$(cat "$dir/port")"
}

stop() {
  local dir=${1:?usage: postgres.sh stop DIR}
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  restart) shift; restart "$@" ;;
  *) die "usage: postgres.sh start DIR [PORT] | stop DIR | restart DIR [PAUSE_S]" ;;
esac
