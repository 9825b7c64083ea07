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
set +e
# The slowest tests in every log, so CI time is watched where it is spent.
.venv/bin/python -m pytest --durations=25 "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi
# The lecture hall's CPU budget, short (issue 23, bench/_budget.py): on a full run (no pytest
# arguments), 100 learners per database launch over 2 s and answer at one instant beside the
# floor; fails when the service's CPU per launch or per answer misses its ratio to the floor's.
# About 25-30 s on 2 shared cores (load 3); its lines go to var/ci-bench, never to the README's
# figures. PATHWAYS_CI_BENCH=0 skips it. Fatal: a miss is measured once more (a neighbour's
# burst can move one run's ratio by ~0.5 at load 20+) and fails the run when it misses again
# (bench/README.md, "The answer in two statements": x1.38-1.64 PostgreSQL, x1.53-2.25 SQLite
# at load 20-27 over 5 runs).
ci_bench() {
  PATHWAYS_BENCH_RESULTS=var/ci-bench timeout 300 .venv/bin/python -P bench/checkpoint_load.py \
    --db both --sizes 100 --ramp 2 --window 0 --max-seconds 120
}
if [ "$rc" = 0 ] && [ $# = 0 ] && [ "${PATHWAYS_CI_BENCH:-1}" != 0 ]; then
  if ! ci_bench; then
    echo "CI bench: a CPU budget ratio was missed: measuring once more" >&2
    ci_bench || { echo "CI bench: a CPU budget ratio was MISSED twice: failing" >&2; rc=1; }
  fi
fi
exit "$rc"
