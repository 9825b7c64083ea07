#!/usr/bin/env bash
# The Redis image's start: append-only in /data; a password when REDIS_PASSWORD is set.
set -euo pipefail
args=(--appendonly yes --dir /data --port "${REDIS_PORT:-6379}" --bind "${REDIS_BIND:-0.0.0.0}")
if [ -n "${REDIS_PASSWORD:-}" ]; then
  args+=(--requirepass "$REDIS_PASSWORD")
else
  args+=(--protected-mode no)  # reachable on the bound address only: bind it privately
fi
exec redis-server "${args[@]}"
