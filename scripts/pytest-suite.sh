#!/usr/bin/env bash
# pytest for scripts/test.sh (issue 26): with no arguments the whole suite as two processes side
# by side, the course's code blocks (tests/course/test_content_runs.py: idle-class runs of
# their own, tests/course/content_background.py) and everything else on PATHWAYS_TEST_WORKERS
# (3) pytest-xdist workers, each test file whole on one worker; with arguments one plain
# pytest. Exit status: pytest's (5, nothing collected, is left for the caller to refuse).
# Each pytest runs in a session of its own, so that a SIGTERM or Ctrl-C here ends it with
# every process it started (xdist workers, the fork server, servers, browsers), not only it.
# PATHWAYS_TEST_RESULTS: the folder of the JUnit files and the content log (var/test-results);
# PATHWAYS_TEST_SUITE: what the workers run (tests; tests/scripts runs a sleeper through it).
# PATHWAYS_CHECK_JAX_CACHE: the course tools' shared compilation cache (default: a fresh
# $results/jax-cache).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PATHWAYS_TEST_PYTHON:-.venv/bin/python}
pids=()
stop_tests() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  for _ in $(seq 50); do  # 10 s to end cleanly, then killed
    local alive=0
    for pid in "${pids[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return
    sleep 0.2
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
}
trap 'stop_tests; exit 143' TERM
trap 'stop_tests; exit 130' INT
trap 'stop_tests; exit 129' HUP
# NumPy's BLAS on one thread in every process the tests start, as in every run the course tools
# and the grader make (course.tools.execute.BLAS_ENV): each cold numpy import would otherwise
# spin a thread per core for ~0.1 s, on the two cores the tests share.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
results=${PATHWAYS_TEST_RESULTS:-var/test-results}
mkdir -p "$results"
# One JAX compilation cache for every course tool the tests run (`course check`'s programs,
# the build's notebook kernels), fresh each run: course.tools.execute.JAX_CACHE_ENV.
if [ -z "${PATHWAYS_CHECK_JAX_CACHE:-}" ]; then
  case "$results" in /*) jax_cache=$results/jax-cache;; *) jax_cache=$PWD/$results/jax-cache;; esac
  rm -rf "$jax_cache"
  export PATHWAYS_CHECK_JAX_CACHE=$jax_cache
fi
if [ $# -gt 0 ]; then
  # The slowest tests in every log, so CI time is watched where it is spent.
  setsid "$PY" -m pytest --durations=25 "$@" &
  pids+=($!)
  wait "${pids[0]}"
  exit $?
fi
content_log=$results/content.log
setsid "$PY" -m pytest -q -p no:cacheprovider --junitxml="$results/content.xml" \
  tests/course/test_content_runs.py >"$content_log" 2>&1 &
pids+=($!)
# --no-loadscope-reorder: the workers take the files in the order tests/conftest.py:file_order
# gives them (files that mostly wait first), not xdist's own (most tests first).
# Three workers on 2 cores: with two, the waits of the files that wait (leases, limits, chaos)
# left a core idle once the course's idle-priority runs were done; a third keeps both cores
# busy to the end (bench/README.md, "A third xdist worker, again").
setsid "$PY" -m pytest --durations=25 -n "${PATHWAYS_TEST_WORKERS:-3}" --dist loadfile \
  --no-loadscope-reorder \
  --junitxml="$results/suite.xml" --deselect tests/course/test_content_runs.py \
  ${PATHWAYS_TEST_SUITE:-tests} &
pids+=($!)
wait "${pids[1]}"; rc=$?
wait "${pids[0]}"; content_rc=$?
echo "== the course's code blocks, their own pytest process ($content_log) =="
if [ "$content_rc" = 0 ]; then tail -n 3 "$content_log"; else cat "$content_log"; fi
if [ "$rc" = 0 ] || [ "$rc" = 5 ]; then [ "$content_rc" = 0 ] || rc=$content_rc; fi
exit "$rc"
