#!/usr/bin/env bash
# The test command (README, `make test`, .ci/run): system packages, servers, lint, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh
eval "$(bash deploy/local/services.sh start var/test-services)"
[ -n "${PATHWAYS_KEEP_SERVICES:-}" ] || trap 'bash deploy/local/services.sh stop var/test-services' EXIT
export JAX_PLATFORMS=cpu
.venv/bin/ruff check .
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi
exit "$rc"
