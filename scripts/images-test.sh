#!/usr/bin/env bash
# `make images-test`: the deployment through its containers, as CI runs it (deploy/README.md).
# Starts dockerd when none answers (and stops it again at the end), builds every image
# (scripts/images.sh: cached layers make a rebuild quick), then runs tests/deploy/images: the
# layers hold no secret or course content, the TPU image imports JAX, and the whole stack
# (PostgreSQL, Redis, migration, web, consumer, 2 graders, devlms on this host) grades a
# submission in a grader's sandbox, survives a grader killed mid-run, and is removed again.
# Ports (PATHWAYS_IMAGES_{PG,REDIS,WEB,LMS}_PORT, default 57432 57379 57800 57801) must be free.
# Needs root and the dev venv (make .venv/.installed). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker || echo docker)}
if ! "$docker" info >/dev/null 2>&1; then
  [ -n "${PATHWAYS_KEEP_DOCKERD:-}" ] || trap 'bash deploy/images/dockerd.sh stop' EXIT
fi
bash scripts/images.sh service grader-cpu grader-tpu course postgres redis
echo "images ready after $((SECONDS - start)) s" >&2
set +e
JAX_PLATFORMS=cpu PATHWAYS_IMAGES_TEST=1 timeout "${PATHWAYS_IMAGES_TEST_TIMEOUT:-2400}" \
  .venv/bin/python -m pytest tests/deploy/images -p no:cacheprovider --durations=10 "$@"
rc=$?
set -e
echo "images-test: $((SECONDS - start)) s in all (rc $rc)" >&2
exit "$rc"
