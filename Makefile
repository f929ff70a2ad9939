PY := .venv/bin/python
SHARED := ../shared

.PHONY: install fmt lint type test test-all fuzz conformance ratchet bench browser check run worker up jslint jstest

install:
	./setup.sh

fmt:
	.venv/bin/ruff format scheduler_core playground config tests
	.venv/bin/ruff check --fix scheduler_core playground config tests

lint:
	.venv/bin/ruff check scheduler_core playground config tests

# scheduler_core strict, playground and config non-strict (pyproject.toml's [tool.mypy]).
type:
	.venv/bin/mypy

# The fast loop: the engine's, the conformance corpus' and the web app's tests, no browser, no
# real services, no fuzzing, no test marked slow, on every core (pytest-xdist). make test-all
# (and CI) runs everything.
FAST_TESTS := tests/scheduler_core tests/conformance tests/playground
test:
	.venv/bin/pytest -q -n auto $(FAST_TESTS) -m "not browser and not integration and not slow"

test-all:
	.venv/bin/pytest -q

fuzz:
	FUZZ_PROFILE=long .venv/bin/pytest -q tests/fuzz --hypothesis-show-statistics

conformance:
	$(PY) $(SHARED)/conformance/run.py --inprocess
	$(PY) $(SHARED)/conformance/run_loop.py --inprocess

ratchet:
	$(PY) -m tests.conformance.ratchet --update
	$(PY) -m tests.conformance.loop_ratchet --update

bench:
	for c in basic-500n-1000p basic-5000n-1000p affinity-5000n-1000p mixed-2000n-1000p; do \
	  $(PY) -m scheduler_core.bench $(SHARED)/bench/$$c.json --placements /tmp/$$c.out.json --check $(SHARED)/bench/$$c.placements.json | tail -1; \
	done
	# the same cluster with node sampling as a real scheduler does it (adaptive percentage)
	$(PY) -m scheduler_core.bench $(SHARED)/bench/basic-5000n-1000p.json --percentage 0 | tail -1

browser:
	.venv/bin/pytest -q -m browser

# The browser scripts (static/**/*.js, ES modules): ESLint and Prettier, then their node unit
# tests (tests/js/). `npm ci` (setup.sh) installs the tools.
jslint:
	npx --no-install eslint static tests/js eslint.config.js
	npx --no-install prettier --check 'static/**/*.js' 'tests/js/**/*.mjs' eslint.config.js

jstest:
	node --test tests/js/

check: lint type test

run:
	$(PY) manage.py serve

worker:
	.venv/bin/celery -A config worker --pool=solo --concurrency=1

up:
	docker-compose up
