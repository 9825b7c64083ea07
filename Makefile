# The two commands a new user needs (README): `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint lock bench clean-venv chaos editor images images-test

$(STAMP): pyproject.toml requirements-dev.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $@

## The main job: service + queue + grader + a local LMS, on SQLite, on this machine.
demo: $(STAMP)
	$(VENV)/bin/pathways demo

## Everything CI runs: system packages, PostgreSQL + Redis on loopback, lint, all tests.
test: $(STAMP)
	bash scripts/test.sh

## The inner loop before a push (about 2 minutes): lint, then every test that needs no live
## server, browser or JAX run: the app/client-fixture view tests (guard, CSRF, bounded input,
## pages), units, configuration, contracts (tests/conftest.py marks the rest "live").
test-fast: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	JAX_PLATFORMS=cpu $(PY) -m pytest -q -m "not live" -p no:cacheprovider --durations=10 tests

## Style (ruff) and the layering rules (import-linter contracts in .importlinter).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

## Rewrite every lock file (requirements-*.txt, course/requirements-learner.txt) with uv.
lock: $(STAMP)
	bash scripts/lock.sh

## The deployment's images without a registry (deploy/README.md): a debootstrap base, wheels
## from the lock files, service + CPU/TPU grader + course. BASE=python:3.11-slim-bookworm to
## build on the registry's image instead. Needs root (starts dockerd when none runs).
images:
	bash scripts/images.sh

## The images end to end: PostgreSQL, Redis, web, consumer and 2 graders in containers, devlms
## on this host, a submission graded in a grader's sandbox, a grader killed mid-run, teardown.
images-test: $(STAMP)
	bash scripts/images-test.sh

## Every fault of docs/OPERATIONS.md against the real parts on loopback, with a bigger load;
## prints sent/recorded/lost/duplicated/stuck/recovery per fault (CI runs the fast ones).
chaos: $(STAMP)
	PATHWAYS_CHAOS_ALL=1 CHAOS_LEARNERS=$${CHAOS_LEARNERS:-30} CHAOS_JOBS=$${CHAOS_JOBS:-60} \
	  $(PY) -m pytest tests/chaos -q -s -p no:cacheprovider

bench: $(STAMP)
	bash scripts/bench.sh

## Rebuild lti_service/static/editor.js (CodeMirror 6) from web/editor; installs axe-core too.
editor:
	cd web/editor && npm ci && npm run build

clean-venv:
	rm -rf $(VENV)
