#!/usr/bin/env bash
# The whole deployment on one Docker host, from the images `make images` built: PostgreSQL and
# Redis (Debian packages), the migration, the web service, the result consumer and N CPU
# graders with their sandbox working. Every container uses the host's network (bind addresses
# and ports below); every container and volume carries the label pathways.stack=$STACK, so
# `down` removes exactly them. No Docker network is created.
#   usage: deploy/images/stack.sh up|down|status [ENV_FILE]   (default ENV_FILE: deploy/images/stack.env)
# ENV_FILE (mode 0600; deploy/images/stack.env.example): POSTGRES_PASSWORD, REDIS_PASSWORD,
# SECRET_KEY, PATHWAYS_GRADING_KEY, TOOL_BASE_URL; optional PATHWAYS_STACK (name, "pathways"),
# PATHWAYS_BIND (127.0.0.1), PATHWAYS_PG_PORT (5432), PATHWAYS_REDIS_PORT (6379),
# PATHWAYS_WEB_PORT (8000), PATHWAYS_GRADERS (2), PATHWAYS_GRADER_MEMORY_MB (4096),
# COURSE_DIR (this checkout's course/content), PATHWAYS_IMAGE_TAG (latest), and any setting of
# docs/CONFIGURATION.md for web and consumer (PATHWAYS_*, OUTBOUND_ALLOW_PRIVATE, ...).
# Needs root: the graders' cgroups are delegated from the host's /sys/fs/cgroup.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
cmd=${1:-status}
env_file=$(realpath -m "${2:-deploy/images/stack.env}")
docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}

[ -f "$env_file" ] || { echo "no $env_file: copy deploy/images/stack.env.example and fill it" >&2; exit 1; }
set -a; # shellcheck disable=SC1090
. "$env_file"; set +a
stack=${PATHWAYS_STACK:-pathways}
bind=${PATHWAYS_BIND:-127.0.0.1}
pg_port=${PATHWAYS_PG_PORT:-5432} redis_port=${PATHWAYS_REDIS_PORT:-6379}
web_port=${PATHWAYS_WEB_PORT:-8000} graders=${PATHWAYS_GRADERS:-2}
tag=${PATHWAYS_IMAGE_TAG:-latest}
course=$(realpath "${COURSE_DIR:-$repo/course/content}")
state=/run/pathways-stack/$stack  # the secrets as env files, 0600, removed by `down`
label=pathways.stack=$stack
cg_parent=pathways-graders/$stack
worker_uid=10001  # the images' pathways user
mem_mb=${PATHWAYS_GRADER_MEMORY_MB:-4096}  # each grader's runs together (its delegated cgroup)
# Where clients connect: the bound address, or loopback when bound to every interface.
host=$bind; [ "$bind" != 0.0.0.0 ] || host=127.0.0.1

ours() { "$docker" ps -a -q --filter "label=$label"; }

# A cgroup subtree per grader that its (non-root) worker may create run cgroups in, as
# systemd's Delegate=yes does: the worker puts each run's memory and pids limits there.
delegate_cgroup() {  # NAME
  local d
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then  # v2: one tree; the container joins it
    d=/sys/fs/cgroup/$cg_parent/$1
    mkdir -p "$d"
    for p in "/sys/fs/cgroup/pathways-graders" "/sys/fs/cgroup/$cg_parent" "$d"; do
      echo "+memory +pids" >"$p/cgroup.subtree_control" 2>/dev/null || true
    done
    chown "$worker_uid" "$d" "$d/cgroup.procs" "$d/cgroup.subtree_control" "$d/cgroup.threads"
    echo $((mem_mb * 1024 * 1024)) >"$d/memory.max"
  else  # v1: one directory per controller hierarchy
    for ctl in memory pids cpuacct; do
      d=/sys/fs/cgroup/$ctl/$cg_parent/$1
      mkdir -p "$d"
      chown "$worker_uid" "$d" "$d/cgroup.procs" "$d/tasks"
    done
    echo $((mem_mb * 1024 * 1024)) \
      >"/sys/fs/cgroup/memory/$cg_parent/$1/memory.limit_in_bytes"
  fi
}

remove_cgroups() {
  local top
  for top in /sys/fs/cgroup/$cg_parent /sys/fs/cgroup/{memory,pids,cpuacct}/$cg_parent; do
    [ -d "$top" ] || continue
    # Deepest first; a cgroup goes once its processes are gone (the containers are removed).
    find "$top" -depth -type d -exec rmdir {} + 2>/dev/null || true
    rmdir "$(dirname "$top")" 2>/dev/null || true
  done
}

wait_until() {  # WHAT SECONDS COMMAND...
  local what=$1 seconds=$2; shift 2
  for _ in $(seq $((seconds * 2))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "$what did not become ready in $seconds s" >&2
  return 1
}

logs_of() { "$docker" logs --tail 30 "$1" >&2 2>&1 || true; }

up() {
  : "${POSTGRES_PASSWORD:?}" "${REDIS_PASSWORD:?}" "${SECRET_KEY:?}" "${PATHWAYS_GRADING_KEY:?}" \
    "${TOOL_BASE_URL:?}"
  [ -z "$(ours)" ] || { echo "stack $stack is already up (down first)" >&2; exit 1; }
  install -d -m 0700 "$state"
  # Secrets reach the containers through files, never a command line (ps, shell history).
  printf 'POSTGRES_PASSWORD=%s\n' "$POSTGRES_PASSWORD" >"$state/postgres.env"
  printf 'REDIS_PASSWORD=%s\n' "$REDIS_PASSWORD" >"$state/redis.env"
  local redis_url="redis://:$REDIS_PASSWORD@$host:$redis_port/0"
  {
    echo "DATABASE_URL=postgresql+psycopg://pathways:$POSTGRES_PASSWORD@$host:$pg_port/pathways"
    echo "REDIS_URL=$redis_url"
    # Every other setting of the env file (docs/CONFIGURATION.md) but the stack's own.
    grep -E '^[A-Z_][A-Z0-9_]*=' "$env_file" | grep -vE \
      '^(POSTGRES_PASSWORD|REDIS_PASSWORD|COURSE_DIR|PATHWAYS_(STACK|BIND|PG_PORT|REDIS_PORT|WEB_PORT|GRADERS|GRADER_MEMORY_MB|IMAGE_TAG))='
  } >"$state/app.env"
  # Graders: the queue and the grading key, nothing else.
  printf 'REDIS_URL=%s\nPATHWAYS_GRADING_KEY=%s\n' "$redis_url" "$PATHWAYS_GRADING_KEY" \
    >"$state/grader.env"
  chmod 0600 "$state"/*.env

  local common=(--network host --label "$label" --restart unless-stopped)
  "$docker" volume create --label "$label" "$stack-pgdata" >/dev/null
  "$docker" volume create --label "$label" "$stack-redisdata" >/dev/null
  "$docker" run -d --name "$stack-postgres" "${common[@]}" --env-file "$state/postgres.env" \
    -e PGPORT="$pg_port" -e PG_LISTEN="$bind" -v "$stack-pgdata:/var/lib/postgresql/data" \
    "pathways-postgres:$tag" >/dev/null
  "$docker" run -d --name "$stack-redis" "${common[@]}" --env-file "$state/redis.env" \
    -e REDIS_PORT="$redis_port" -e REDIS_BIND="$bind" -v "$stack-redisdata:/data" \
    "pathways-redis:$tag" >/dev/null
  wait_until postgres 60 "$docker" exec "$stack-postgres" pg_isready -q -h "$host" -p "$pg_port" \
    || { logs_of "$stack-postgres"; exit 1; }
  wait_until redis 30 "$docker" exec "$stack-redis" sh -c \
    "REDISCLI_AUTH=\$REDIS_PASSWORD redis-cli -h $host -p $redis_port ping | grep -q PONG" \
    || { logs_of "$stack-redis"; exit 1; }
  echo "postgres: $bind:$pg_port, redis: $bind:$redis_port"

  # Migrations before any new code serves (a one-shot container; it fails the whole `up`).
  local app=(--env-file "$state/app.env" -v "$course:/srv/course:ro")
  "$docker" run --rm --network host --label "$label" "${app[@]}" "pathways-service:$tag" \
    pathways db upgrade
  "$docker" run -d --name "$stack-web" "${common[@]}" "${app[@]}" \
    -e PATHWAYS_WEB_BIND="$bind:$web_port" "pathways-service:$tag" >/dev/null
  "$docker" run -d --name "$stack-consumer" "${common[@]}" "${app[@]}" --stop-signal SIGINT \
    "pathways-service:$tag" pathways consumer >/dev/null

  # The graders' sandbox (deploy/README.md, "The grader's sandbox in a container"): the
  # seccomp profile allows the namespace and mount calls bubblewrap makes; systempaths lets it
  # mount a fresh /proc; the host's cgroup tree (writable only where delegated to uid 10001)
  # gives each run its memory and pids limits. No capability, no privileged mode, no root.
  local sandbox=(--security-opt "seccomp=$repo/deploy/docker/grader-seccomp.json"
                 --security-opt systempaths=unconfined --cgroupns host
                 -v /sys/fs/cgroup:/sys/fs/cgroup)
  if [ -d /sys/kernel/security/apparmor ] && grep -q Y /sys/module/apparmor/parameters/enabled 2>/dev/null; then
    sandbox+=(--security-opt apparmor=unconfined)  # docker-default denies mount
  fi
  local i name
  for i in $(seq 1 "$graders"); do
    name=$stack-grader-$i
    delegate_cgroup "$name"
    "$docker" run -d --name "$name" "${common[@]}" --env-file "$state/grader.env" \
      -v "$course:/srv/course:ro" "${sandbox[@]}" --stop-timeout 120 \
      -e PATHWAYS_GRADER_ID="$name" -e PATHWAYS_GRADER_CGROUP_ROOT="/$cg_parent/$name" \
      "pathways-grader-cpu:$tag" >/dev/null
  done

  wait_until web 60 bash -c "exec 3<>/dev/tcp/$host/$web_port" || { logs_of "$stack-web"; exit 1; }
  echo "web: http://$bind:$web_port/ (put TLS in front: deploy/nginx/)"
  echo "graders: $graders on redis $bind:$redis_port"
}

down() {
  local ids
  ids=$(ours)
  # SIGTERM first: graders finish their runs (up to --stop-timeout), the consumer its pass.
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086
    "$docker" stop -t 30 $ids >/dev/null
    # shellcheck disable=SC2086
    "$docker" rm -f -v $ids >/dev/null
  fi
  ids=$("$docker" volume ls -q --filter "label=$label")
  # shellcheck disable=SC2086
  [ -z "$ids" ] || "$docker" volume rm $ids >/dev/null
  remove_cgroups
  rm -rf "$state"
  echo "stack $stack removed (containers, volumes, cgroups)"
}

status() {
  "$docker" ps -a --filter "label=$label" --format '{{.Names}}\t{{.Status}}'
  [ -n "$(ours)" ]
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status [ENV_FILE]" >&2; exit 2 ;;
esac
