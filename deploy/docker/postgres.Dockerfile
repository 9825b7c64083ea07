# PostgreSQL 15 from Debian's packages, for the one-host stack and its test (deploy/images/stack.sh):
# no registry needed. Production uses a managed PostgreSQL (deploy/README.md, "Past one machine").
# POSTGRES_PASSWORD (required), POSTGRES_USER/POSTGRES_DB (pathways), PGPORT (5432),
# PG_LISTEN (*). The data lives in the volume at /var/lib/postgresql/data.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
# No "main" cluster from the package's postinst: the entrypoint makes one in the volume.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
    && echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/no-main.conf \
    && apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
       /usr/share/doc/* /usr/share/man/* /usr/share/locale/* \
    && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data
# Last: the entrypoint changes more often than the packages (scripts/images.sh makes it 0755).
COPY entrypoint.sh /usr/local/bin/pathways-postgres
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PGDATA=/var/lib/postgresql/data PGPORT=5432
USER postgres
CMD ["pathways-postgres"]
