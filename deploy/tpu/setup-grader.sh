#!/usr/bin/env bash
# Make a Cloud TPU VM a JAX Pathways grader. It needs only the queue's URL: no database, no keys.
# Run as root from a copy of the repository on the VM:
#   sudo PATHWAYS_GRADING_KEY=... deploy/tpu/setup-grader.sh redis://QUEUE-HOST:6379/0
# (PATHWAYS_GRADING_KEY: the service host's key that signs grading jobs and results.)
# Installs: bubblewrap, a venv in /opt/pathways/.venv with the pinned packages and jax[tpu],
# /etc/pathways/env (REDIS_URL, platform tpu) and the unit pathways-worker@1 (enabled, started).
# One worker with concurrency 1: a TPU's chips belong to one process at a time.
# Options: --python PATH (a Python >= 3.11; default: the newest python3.1x found)
#          --root DIR    (install under DIR instead of /, and skip apt, pip and systemctl:
#                         used by tests/deploy to check what would be written)
set -euo pipefail
usage() { echo "usage: $0 QUEUE_URL [--python PATH] [--root DIR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
queue_url=$1; shift
python=""; root=""
while [ $# -gt 0 ]; do
  case "$1" in
    --python) python=${2:?--python needs a path}; shift 2 ;;
    --root) root=$(realpath -m "${2:?--root needs a folder}"); shift 2 ;;
    *) usage ;;
  esac
done
case "$queue_url" in
  redis://?*|rediss://?*) ;;
  *) echo "QUEUE_URL=$queue_url: expected redis://HOST:PORT/DB (or rediss:// for TLS)," \
          "the REDIS_URL of the service host" >&2; exit 2 ;;
esac
grading_key=${PATHWAYS_GRADING_KEY:-}
if [ ${#grading_key} -lt 32 ]; then
  echo "set PATHWAYS_GRADING_KEY (the service host's grading key, at least 32 characters)" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$src/pyproject.toml" ] || { echo "run this from a repository checkout ($src has no pyproject.toml)" >&2; exit 2; }
dry=""; [ -n "$root" ] && dry=1
prefix="$root/opt/pathways"; etc="$root/etc/pathways"; units="$root/etc/systemd/system"
run() { if [ -n "$dry" ]; then echo "skipped (--root): $*"; else "$@"; fi; }

if [ -z "$dry" ] && [ "$(id -u)" != 0 ]; then echo "run as root (sudo $0 ...)" >&2; exit 1; fi
if [ -z "$python" ]; then
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null \
      && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      python=$(command -v "$candidate"); break
    fi
  done
fi
[ -n "$python" ] || { echo "no Python >= 3.11 found: install python3.11 and python3.11-venv," \
                           "or pass --python PATH" >&2; exit 1; }

echo "== packages"
run apt-get update -qq
run apt-get install -y -qq --no-install-recommends bubblewrap python3-venv
id pathways >/dev/null 2>&1 || run useradd --system --home-dir /var/lib/pathways --shell /usr/sbin/nologin pathways

echo "== code in $prefix"
mkdir -p "$prefix"
tar -C "$src" --exclude=.venv --exclude=var --exclude=.git --exclude='__pycache__' --exclude=.ruff_cache \
  --exclude=.pytest_cache --exclude=test-artifacts --exclude='*.egg-info' --exclude=./build --exclude=node_modules -cf - . \
  | tar -C "$prefix" -xf -
run "$python" -m venv "$prefix/.venv"
jax_version=$(sed -n 's/^jax==//p' "$src/requirements-grader.txt")
run "$prefix/.venv/bin/pip" install -q -r "$prefix/requirements-grader.txt"
run "$prefix/.venv/bin/pip" install -q "jax[tpu]==$jax_version" \
  -f https://storage.googleapis.com/jax-releases/libtpu_releases.html
run "$prefix/.venv/bin/pip" install -q --no-deps "$prefix"

echo "== settings in $etc/env"
mkdir -p "$etc"
umask 027
cat >"$etc/env" <<ENV
# Written by deploy/tpu/setup-grader.sh. A grader needs only the queue.
REDIS_URL=$queue_url
PATHWAYS_GRADING_KEY=$grading_key
PATHWAYS_GRADER_PLATFORM=tpu
PATHWAYS_GRADER_CONCURRENCY=1
ENV
umask 022
run chgrp pathways "$etc/env"

echo "== unit pathways-worker@1"
mkdir -p "$units"
cp "$src/deploy/systemd/pathways-worker@.service" "$units/"
run systemctl daemon-reload
run systemctl enable --now pathways-worker@1.service
if [ -z "$dry" ]; then
  runuser -u pathways -- "$prefix/.venv/bin/python" -c \
    'import jax; print("JAX", jax.__version__, "devices:", jax.devices())'
  systemctl --no-pager status pathways-worker@1.service | head -n 5
fi
echo "done: this VM grades jobs from $queue_url (journalctl -u pathways-worker@1 -f)"
