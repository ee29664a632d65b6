#!/usr/bin/env bash
# Start a throwaway local PostgreSQL server for tests (Debian's postgresql package) on
# 127.0.0.1:${SYMTRACE_PG_PORT:-54329}, data under /tmp. Idempotent: reuses a running one.
# Prints nothing but errors; the URL is postgresql://symtrace:symtrace@127.0.0.1:PORT/<db>.
set -euo pipefail
PORT=${SYMTRACE_PG_PORT:-54329}
DATA=${SYMTRACE_PG_DATA:-/tmp/symtrace-pg-$PORT}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$PGBIN" ]; then
  echo "start-postgres: PostgreSQL is not installed (apt-get install -y postgresql)" >&2
  exit 1
fi
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ ! -s "$DATA/PG_VERSION" ]; then
  mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DATA"
  as_pg "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! as_pg "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t 60 \
    -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
fi
as_pg "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc \
  "SELECT 1 FROM pg_roles WHERE rolname='symtrace'" | grep -q 1 ||
  as_pg "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qc \
    "CREATE ROLE symtrace LOGIN SUPERUSER PASSWORD 'symtrace'"
# Create each database named as an argument (dropping it first when it exists).
for db in "$@"; do
  as_pg "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null
  as_pg "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qc "CREATE DATABASE \"$db\" OWNER symtrace" >/dev/null
done
