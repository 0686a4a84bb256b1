#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL: a cluster in a temporary directory on a free
# loopback port, from Debian's packages (scripts/setup.sh installs them), removed afterwards.
# The command sees AGORA_TEST_POSTGRES_URL (superuser `agora`, database `postgres`).
#   scripts/with-postgres.sh cargo test --features ssr
# PG_FSYNC=off trades durability for speed (tests); the load script keeps it on.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "PostgreSQL is not installed: run scripts/setup.sh test (apt-get install postgresql)" >&2
  exit 1
fi
dir=$(mktemp -d -t agora-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# PostgreSQL will not run as root: as root, the cluster belongs to Debian's `postgres` user.
run=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  run=(runuser -u postgres --)
fi
stop() {
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${run[@]}" "$bin/initdb" -D "$dir/data" -A trust -U agora -E UTF8 --no-sync >/dev/null
"${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o \
  "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${PG_FSYNC:-off} -c shared_preload_libraries=pg_stat_statements" \
  start >/dev/null || { cat "$dir/log" >&2; exit 1; }
export AGORA_TEST_POSTGRES_URL="postgres://agora@127.0.0.1:$port/postgres"
"$@"
