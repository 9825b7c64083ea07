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
COPY requirements-cpu.txt ./
RUN pip install -r requirements-cpu.txt
COPY pyproject.toml README.md ./
COPY pathways ./pathways
COPY course ./course
COPY grading_contract ./grading_contract
COPY grader_worker ./grader_worker
# The package list in pyproject names the service too; the grader never imports it, so
# only the grader's code is copied and installed (setuptools skips missing packages).
RUN pip install --no-deps . && pathways --help >/dev/null
USER pathways
ENV PATHWAYS_GRADER_CONCURRENCY=1
CMD ["sh", "-c", "exec pathways worker --platform cpu --concurrency \"$PATHWAYS_GRADER_CONCURRENCY\""]
