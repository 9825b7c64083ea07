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
# The whole suite (no arguments) runs as two pytest processes side by side (issue 26): the
# course's code blocks (tests/course/test_content_runs.py, idle-class runs of their own:
# tests/course/content_background.py) and everything else on PATHWAYS_TEST_WORKERS xdist
# workers (2), each test file whole on one worker. Arguments run one plain pytest, as before.
# Both run in the background so that a SIGTERM or Ctrl-C here ends them and their children.
pids=()
stop_tests() { [ ${#pids[@]} = 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true; }
trap 'stop_tests; exit 143' TERM
trap 'stop_tests; exit 130' INT
mkdir -p var/test-results
set +e
if [ $# = 0 ]; then
  content_log=var/test-results/content.log
  .venv/bin/python -m pytest -q -p no:cacheprovider --junitxml=var/test-results/content.xml \
    tests/course/test_content_runs.py >"$content_log" 2>&1 &
  pids+=($!)
  # The slowest tests in every log, so CI time is watched where it is spent.
  .venv/bin/python -m pytest --durations=25 -n "${PATHWAYS_TEST_WORKERS:-2}" --dist loadfile \
    --junitxml=var/test-results/suite.xml --deselect tests/course/test_content_runs.py tests &
  pids+=($!)
  wait "${pids[1]}"; rc=$?
  wait "${pids[0]}"; content_rc=$?
  pids=()
  echo "== the course's code blocks, their own pytest process ($content_log) =="
  if [ "$content_rc" = 0 ]; then tail -n 3 "$content_log"; else cat "$content_log"; fi
  if [ "$rc" = 0 ] || [ "$rc" = 5 ]; then [ "$content_rc" = 0 ] || rc=$content_rc; fi
else
  .venv/bin/python -m pytest --durations=25 "$@" &
  pids+=($!)
  wait "${pids[0]}"; rc=$?
  pids=()
fi
set -e
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
