# A CPU grader worker: the grading code, CPU JAX and bubblewrap (the per-run sandbox).
# It needs only REDIS_URL and PATHWAYS_GRADING_KEY at run time, and the course (COURSE_ROOT, read
# by the trusted worker only): no database, no LTI keys, no course content in the image.
# Built by `make images` (scripts/images.sh) from a staged context: the wheels of
# requirements-grader.txt and this project's wheel (the grader's packages only: no Flask).
# Run it as the image's user with deploy/docker/grader-seccomp.json, a delegated cgroup and
# systempaths=unconfined: deploy/README.md ("The grader's sandbox in a container").
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE} AS build
COPY requirements.txt /stage/
COPY wheels /stage/wheels
RUN python3 -m venv /opt/pathways \
    && /opt/pathways/bin/pip install -q --no-index --find-links /stage/wheels -r /stage/requirements.txt
# The project's wheel last: a code change rebuilds from here (the locked dependencies stay cached).
COPY project /stage/project
RUN /opt/pathways/bin/pip install -q --no-index --no-deps /stage/project/jax_pathways-*.whl \
    && /opt/pathways/bin/pip uninstall -q -y pip setuptools \
    && /opt/pathways/bin/pathways worker --help >/dev/null

FROM ${BASE}
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
    && groupadd --system --gid 10001 pathways \
    && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/pathways pathways
COPY --from=build /opt/pathways /opt/pathways
ENV PATH=/opt/pathways/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PATHWAYS_VAR_DIR=/var/lib/pathways COURSE_ROOT=/srv/course \
    JAX_PLATFORMS=cpu PATHWAYS_GRADER_PLATFORM=cpu PATHWAYS_GRADER_CONCURRENCY=1
WORKDIR /var/lib/pathways
USER pathways
CMD ["sh", "-c", "exec pathways worker --platform \"$PATHWAYS_GRADER_PLATFORM\" --concurrency \"$PATHWAYS_GRADER_CONCURRENCY\""]
