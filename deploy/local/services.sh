#!/usr/bin/env bash
# PostgreSQL and Redis on loopback for tests and the local stack, from Debian packages.
# usage: services.sh start|stop|env  [STATE_DIR]   (default STATE_DIR: ./var/services)
# `start` prints export lines: TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL.
set -euo pipefail
cmd=${1:-start}
state=$(realpath -m "${2:-var/services}")
pg_port=${PATHWAYS_PG_PORT:-55432}
redis_port=${PATHWAYS_REDIS_PORT:-56379}
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

print_env() {
  echo "export TEST_DATABASE_URL=postgresql+psycopg://pathways@127.0.0.1:${pg_port}/pathways"
  echo "export TEST_REDIS_URL=redis://127.0.0.1:${redis_port}/0"
}

start() {
  mkdir -p "$state"
  if [ "$(id -u)" = 0 ]; then chown postgres "$state" 2>/dev/null || true; fi
  if [ ! -f "$state/pg/PG_VERSION" ]; then
    as_pg mkdir -p "$state/pg"
    as_pg "$pgbin/initdb" -D "$state/pg" -U postgres -A trust --no-sync >/dev/null
  fi
  if ! as_pg "$pgbin/pg_ctl" -D "$state/pg" status >/dev/null 2>&1; then
    as_pg "$pgbin/pg_ctl" -D "$state/pg" -w -l "$state/pg.log" \
      -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $state/pg -c fsync=off -c max_connections=300" start >/dev/null
  fi
  psql="psql -h 127.0.0.1 -p $pg_port -U postgres -v ON_ERROR_STOP=1 -qtA"
  $psql -c "select 1 from pg_roles where rolname='pathways'" | grep -q 1 \
    || $psql -c "create role pathways login superuser"
  $psql -c "select 1 from pg_database where datname='pathways'" | grep -q 1 \
    || $psql -c "create database pathways owner pathways"
  if ! redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
    redis-server --port "$redis_port" --bind 127.0.0.1 --daemonize yes --save "" \
      --appendonly no --dir "$state" --logfile "$state/redis.log" --pidfile "$state/redis.pid"
    for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 \
      || { echo "redis-server did not answer on port $redis_port (see $state/redis.log)" >&2; exit 1; }
  fi
  print_env
}

stop() {
  [ -f "$state/pg/PG_VERSION" ] && as_pg "$pgbin/pg_ctl" -D "$state/pg" -m fast stop >/dev/null 2>&1 || true
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|env [STATE_DIR]" >&2; exit 2 ;;
esac
