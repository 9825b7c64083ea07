# The course content alone (hidden checks and reference solutions included): data, not code,
# for a private registry. Kubernetes copies it into a read-only volume with an init container
# (deploy/k8s/); on one host, mount a checkout's course/content at COURSE_ROOT instead.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
COPY content /course
USER 10001
CMD ["cp", "-a", "/course/.", "/srv/course/"]
