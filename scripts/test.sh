#!/usr/bin/env bash
# The test command (README, `make test`, .ci/run): system packages, servers, lint, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh
# A failed start stops here with its cause, not later as dozens of unrelated test errors.
if ! service_env=$(bash deploy/local/services.sh start var/test-services); then
  echo "PostgreSQL/Redis did not start; their logs:" >&2
  tail -n 20 var/test-services/pg.log var/test-services/redis.log >&2 2>/dev/null || true
  exit 1
fi
eval "$service_env"
[ -n "${PATHWAYS_KEEP_SERVICES:-}" ] || trap 'bash deploy/local/services.sh stop var/test-services' EXIT
export JAX_PLATFORMS=cpu
# axe-core (and the editor's sources) for the browser tests: from the committed lock file.
[ -f web/editor/node_modules/axe-core/axe.min.js ] || (cd web/editor && npm ci --no-audit --no-fund --loglevel=error)
.venv/bin/ruff check .
.venv/bin/lint-imports --no-cache  # layering contracts (.importlinter)
# pytest: the whole suite as two processes side by side (the course's code blocks, and the rest
# on three xdist workers), or one plain pytest with arguments (scripts/pytest-suite.sh).
# A SIGTERM or Ctrl-C here is passed on, and the servers stop (EXIT) only once it has ended.
bash scripts/pytest-suite.sh "$@" &
suite=$!
trap 'kill -TERM "$suite" 2>/dev/null; wait "$suite"; exit 143' TERM
trap 'kill -TERM "$suite" 2>/dev/null; wait "$suite"; exit 130' INT
set +e
wait "$suite"
rc=$?
set -e
trap - TERM INT
if [ "$rc" = 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi
# The lecture hall's CPU budget, short (issue 23, bench/_budget.py): on a full run (no pytest
# arguments), 100 learners per database launch over 2 s and answer at one instant beside the
# floor; a missed ratio of the service's CPU per launch or per answer to the floor's is printed.
# About 25-50 s on 2 shared cores; its lines go to var/ci-bench, never to the README's figures.
# PATHWAYS_CI_BENCH=0 skips it. Reported, not yet gating: PostgreSQL's answer is under its 2x
# line but close to it (x1.76-1.95 at load 9, x1.38-2.95 at load 14-28, with 2 statements an
# answer: bench/README.md, "The answer in two statements"); PATHWAYS_CI_BENCH_FATAL=1 fails the
# run on a miss measured twice.
ci_bench() {
  PATHWAYS_BENCH_RESULTS=var/ci-bench timeout 300 .venv/bin/python -P bench/checkpoint_load.py \
    --db both --sizes 100 --ramp 2 --window 0 --max-seconds 120
}
if [ "$rc" = 0 ] && [ $# = 0 ] && [ "${PATHWAYS_CI_BENCH:-1}" != 0 ]; then
  if ! ci_bench; then
    echo "CI bench: a CPU budget ratio was missed: measuring once more" >&2
    if ! ci_bench; then
      echo "CI bench: a CPU budget ratio was MISSED twice (see the lines above)" >&2
      if [ "${PATHWAYS_CI_BENCH_FATAL:-0}" = 1 ]; then rc=1; fi
    fi
  fi
fi
exit "$rc"
