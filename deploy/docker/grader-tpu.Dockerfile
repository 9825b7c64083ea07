# A TPU grader worker (a Cloud TPU VM): the CPU grader image plus libtpu from PyPI (jax[tpu]).
# Built on the CPU image (`ARG GRADER`, itself built on `${BASE}` by `make images` just
# before), so the locked dependencies, the project and bubblewrap are installed once and their
# layers are shared; this adds one layer: what jax[tpu] needs beyond the CPU image (libtpu),
# from wheels built on the host (scripts/images.sh stages only those). It needs only REDIS_URL
# and PATHWAYS_GRADING_KEY at run time, and the course (COURSE_ROOT, read by the trusted worker
# only): no database, no LTI keys, no course content in the image. JAX_PLATFORMS=cpu (from the
# CPU image) stays for the worker itself: only the sandboxed runs get the TPU (JAX_PLATFORMS=tpu
# from PATHWAYS_GRADER_PLATFORM), as one process at a time opens a TPU chip.
# Run it as the image's user with deploy/docker/grader-seccomp.json, a delegated cgroup and
# systempaths=unconfined: deploy/README.md ("The grader's sandbox in a container").
ARG BASE=python:3.11-slim-bookworm
ARG GRADER=pathways-grader-cpu:latest
FROM ${GRADER} AS build
USER root
COPY wheels /stage/wheels
# The extra packages into a directory of their own (pip from ensurepip, offline, in this stage
# only): the image gets them as one layer, not a second copy of the CPU image's environment.
RUN /opt/pathways/bin/python -m ensurepip >/dev/null \
    && /opt/pathways/bin/python -m pip install -q --no-index --no-deps --target /opt/tpu \
       /stage/wheels/*.whl \
    && rm -rf /opt/tpu/bin

FROM ${GRADER}
COPY --from=build /opt/tpu /opt/pathways/lib/python3.11/site-packages/
ENV PATHWAYS_GRADER_PLATFORM=tpu
USER pathways
