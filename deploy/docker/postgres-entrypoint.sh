#!/usr/bin/env bash
# The PostgreSQL image's start: a cluster in $PGDATA on the first start (POSTGRES_USER owning
# POSTGRES_DB, password from POSTGRES_PASSWORD, scram on TCP), then the server in the foreground.
set -euo pipefail
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
user=${POSTGRES_USER:-pathways} db=${POSTGRES_DB:-pathways}
[[ "$user" =~ ^[a-z_][a-z0-9_]*$ && "$db" =~ ^[a-z_][a-z0-9_]*$ ]] \
  || { echo "POSTGRES_USER and POSTGRES_DB: lower-case identifiers" >&2; exit 2; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb -D "$PGDATA" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' \
    >>"$PGDATA/pg_hba.conf"
  [[ "$POSTGRES_PASSWORD" != *$'\n'* ]] || { echo "POSTGRES_PASSWORD: one line" >&2; exit 2; }
  password=${POSTGRES_PASSWORD//\'/\'\'}
  # Single-user mode: one statement per line; an error there fails the start (not silent).
  out=$(postgres --single -D "$PGDATA" postgres 2>&1 <<SQL
CREATE ROLE $user LOGIN PASSWORD '$password';
CREATE DATABASE $db OWNER $user;
SQL
)
  if grep -q ERROR <<<"$out"; then echo "$out" >&2; rm -rf "${PGDATA:?}"/*; exit 1; fi
fi
exec postgres -D "$PGDATA" -p "${PGPORT:-5432}" -c listen_addresses="${PG_LISTEN:-*}" \
  -c unix_socket_directories=/tmp
