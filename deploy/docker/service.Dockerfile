# The LTI tool service (gunicorn) and the result consumer: one image, two commands.
# Build from the repository root: docker build -f deploy/docker/service.Dockerfile .
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PATHWAYS_VAR_DIR=/var/lib/pathways
RUN useradd --system --create-home --home-dir /var/lib/pathways pathways
WORKDIR /opt/pathways
COPY requirements-service.txt ./
# The service extra only: no JAX (the service never runs learner code).
RUN pip install -r requirements-service.txt
COPY pyproject.toml README.md ./
COPY pathways ./pathways
COPY course ./course
COPY grading_contract ./grading_contract
COPY lti_service ./lti_service
COPY deploy/gunicorn.conf.py ./deploy/gunicorn.conf.py
RUN pip install --no-deps . && pathways serve --help >/dev/null
USER pathways
# In a container the proxy is another container: bind all interfaces, trust the network's proxy.
ENV PATHWAYS_WEB_BIND=0.0.0.0:8000
EXPOSE 8000
CMD ["gunicorn", "-c", "/opt/pathways/deploy/gunicorn.conf.py"]
