#!/usr/bin/env bash
# `make bench`: every bench/ script in turn (about 10 minutes on 2 cores), then bench/report.py
# rewrites the README's "Latest benchmark figures" from bench/results/. Launches and answers run
# at the issue's sizes (200 and 500 launching within 5 s; 200 answers at one instant and over
# 10 s), each beside its floor (bench/_floor.py) measured in the same run; see bench/README.md. PostgreSQL: TEST_DATABASE_URL, else the loopback server of
# deploy/local/services.sh (started here, and stopped after, if it is not running).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export JAX_PLATFORMS=cpu

pg_up() {
  [ -n "${TEST_DATABASE_URL:-}" ] && $PY - <<'EOF' 2>/dev/null
import os, psycopg
from sqlalchemy.engine import make_url
url = make_url(os.environ["TEST_DATABASE_URL"]).set(drivername="postgresql")
psycopg.connect(url.render_as_string(hide_password=False), connect_timeout=3).close()
EOF
}
if ! pg_up; then
  eval "$(bash deploy/local/services.sh env)"
  if ! pg_up; then
    eval "$(bash deploy/local/services.sh start var/bench-services)"
    trap 'bash deploy/local/services.sh stop var/bench-services' EXIT
  fi
fi

status=0
run() {
  echo "== $*"
  # -P: keep bench/ off sys.path (its modules must not shadow installed packages).
  if ! $PY -P "$@"; then
    echo "!! $1 failed or missed its target (see above)" >&2
    status=1
  fi
}
run bench/cpu_budget.py --db both --learners 200
run bench/course_tools.py --skip-check
run bench/grading.py --submissions 8 --workers 1,2
run bench/launch_load.py --db both --sizes 200,500
run bench/checkpoint_load.py --db both --sizes 200 --window 0
run bench/checkpoint_load.py --db both --sizes 200
$PY -P bench/report.py
exit "$status"
