# A TPU grader worker (run on a Cloud TPU VM: docker run --privileged --net=host ...).
# Same grading code as the CPU image; JAX with the libtpu runtime instead of the CPU wheel.
# Build from the repository root: docker build -f deploy/docker/grader-tpu.Dockerfile .
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PATHWAYS_VAR_DIR=/var/lib/pathways
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/pathways pathways
WORKDIR /opt/pathways
COPY requirements-grader.txt ./
# The grader's pinned set, then the TPU runtime for the same JAX version.
RUN pip install -r requirements-grader.txt \
    && JAX_VERSION=$(sed -n 's/^jax==//p' requirements-grader.txt) \
    && pip install "jax[tpu]==${JAX_VERSION}" \
       -f https://storage.googleapis.com/jax-releases/libtpu_releases.html
COPY pyproject.toml README.md ./
COPY pathways ./pathways
COPY course ./course
COPY grading_contract ./grading_contract
COPY grader_worker ./grader_worker
RUN pip install --no-deps . && pathways worker --help >/dev/null
USER pathways
ENV PATHWAYS_GRADER_CONCURRENCY=1
CMD ["sh", "-c", "exec pathways worker --platform tpu --concurrency \"$PATHWAYS_GRADER_CONCURRENCY\""]
