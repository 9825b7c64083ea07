# The LTI tool service (gunicorn) and the result consumer: one image, two commands.
# Built by `make images` (scripts/images.sh) from a staged context: the wheels of
# requirements-service.txt and this project's wheel, built on the host; no index is reached here.
# BASE: pathways-base:bookworm (deploy/images/base.sh, no registry) or python:3.11-slim-bookworm.
# No course content, key or setting is in the image: COURSE_ROOT and the secrets come at run time.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE} AS build
COPY requirements.txt /stage/
COPY wheels /stage/wheels
# One venv, then no pip in it: nothing in the image installs anything at run time.
RUN python3 -m venv /opt/pathways \
    && /opt/pathways/bin/pip install -q --no-index --find-links /stage/wheels -r /stage/requirements.txt
# The project's wheel last: a code change rebuilds from here (the locked dependencies stay cached).
COPY project /stage/project
RUN /opt/pathways/bin/pip install -q --no-index --no-deps /stage/project/jax_pathways-*.whl \
    && /opt/pathways/bin/pip uninstall -q -y pip setuptools \
    && install -D -m 0644 /stage/project/gunicorn.conf.py /opt/pathways/etc/gunicorn.conf.py \
    && /opt/pathways/bin/pathways serve --help >/dev/null

FROM ${BASE}
RUN groupadd --system --gid 10001 pathways \
    && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/pathways pathways
COPY --from=build /opt/pathways /opt/pathways
ENV PATH=/opt/pathways/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PATHWAYS_VAR_DIR=/var/lib/pathways COURSE_ROOT=/srv/course \
    PATHWAYS_WEB_BIND=0.0.0.0:8000
WORKDIR /var/lib/pathways
USER pathways
EXPOSE 8000
CMD ["gunicorn", "-c", "/opt/pathways/etc/gunicorn.conf.py"]
