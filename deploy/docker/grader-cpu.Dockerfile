# A CPU grader worker: the grading code, CPU JAX and bubblewrap (the per-run sandbox).
# It needs only REDIS_URL: no database, no keys (the image holds none).
# Build from the repository root: docker build -f deploy/docker/grader-cpu.Dockerfile .
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PATHWAYS_VAR_DIR=/var/lib/pathways JAX_PLATFORMS=cpu
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/pathways pathways
WORKDIR /opt/pathways
COPY requirements-grader.txt ./
RUN pip install -r requirements-grader.txt
COPY pyproject.toml README.md ./
COPY pathways ./pathways
COPY course ./course
COPY grading_contract ./grading_contract
COPY grader_worker ./grader_worker
# Only the grader's code and its extra's lock file (no Flask, no database driver); setuptools
# skips the packages that are not copied. `worker --help` imports the whole worker.
RUN pip install --no-deps . && pathways worker --help >/dev/null
USER pathways
ENV PATHWAYS_GRADER_CONCURRENCY=1
CMD ["sh", "-c", "exec pathways worker --platform cpu --concurrency \"$PATHWAYS_GRADER_CONCURRENCY\""]
