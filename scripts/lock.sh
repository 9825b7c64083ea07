#!/usr/bin/env bash
# The one command that writes every lock file (`make lock`): one per image or audience.
#   requirements-service.txt   the service image (jax-pathways[service])
#   requirements-grader.txt    the grader images (jax-pathways[grader])
#   requirements-dev.txt       make demo / make test (jax-pathways[test])
#   requirements-cpu.txt       the learner's set: what the seed's setup installs from a checkout
#                              (`python -m pip install -r requirements-cpu.txt`); copied to
#   course/requirements-learner.txt  which ships in the wheel and the learner ZIP carries
# uv keeps the versions already pinned in an existing output file unless --upgrade is passed
# ("$@" goes to every compile), so a rerun only moves what a range change forces.
set -euo pipefail
cd "$(dirname "$0")/.."
uv=${UV:-.venv/bin/uv}
[ -x "$uv" ] || uv=$(command -v uv) || {
  echo "uv is not installed: .venv/bin/pip install uv (it is in the test extra)" >&2; exit 1; }
compile() {
  local out=$1; shift
  "$uv" pip compile --quiet --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
    --no-emit-package jax-pathways --custom-compile-command "make lock" -o "$out" "$@"
}
compile requirements-service.txt pyproject.toml --extra service "$@"
compile requirements-grader.txt pyproject.toml --extra grader "$@"
compile requirements-dev.txt pyproject.toml --extra test "$@"
compile requirements-cpu.txt course/requirements-learner.in "$@"
cp requirements-cpu.txt course/requirements-learner.txt
