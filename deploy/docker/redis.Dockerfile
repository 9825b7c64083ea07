# Redis 7 from Debian's packages, for the one-host stack and its test (deploy/images/stack.sh).
# Append-only, so queued grading jobs survive a restart. REDIS_PORT (6379), REDIS_BIND
# (0.0.0.0), REDIS_PASSWORD (optional). The data lives in the volume at /data.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
       /usr/share/doc/* /usr/share/man/* \
    && install -d -o redis -g redis -m 0750 /data
# Last: the entrypoint changes more often than the packages (scripts/images.sh makes it 0755).
COPY entrypoint.sh /usr/local/bin/pathways-redis
ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
USER redis
CMD ["pathways-redis"]
