# Two commands on a fresh machine: `make run` (start the app) and `make test` (run the whole suite).
# Each installs only what it needs into .venv: `run` the engine and the app (.[app]), `test` also the test stack.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
LINTED := rebel tests benchmarks pages app.py
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache
# Python writes the bytecode of the project's modules (and pytest its rewritten test modules) next to them, as it
# does by default, even where the environment says not to: without it every worker, server and command compiled
# every module of rebel/ and tests/ again (a test collection took 11.8 s instead of 6.3 s here).
unexport PYTHONDONTWRITEBYTECODE

# The server's safety and speed settings, passed on the command line as well as in .streamlit/config.toml, so
# they hold when the server is started from any working directory (tests/test_packaging.py checks that the two
# agree).
SAFETY := --server.address 127.0.0.1 \
          --server.headless true \
          --server.enableXsrfProtection true \
          --server.enableCORS true \
          --server.maxUploadSize 5 \
          --client.showErrorDetails none \
          --client.toolbarMode minimal \
          --client.showSidebarNavigation false \
          --browser.gatherUsageStats false \
          --runner.magicEnabled false \
          --server.fileWatcherType none \
          --runner.postScriptGC false \
          --runner.fastReruns false

.PHONY: run classroom test bench soak lint clean install

# The venv's packages are installed by uv (from PyPI, into the venv): the same versions pip's resolver picks, with
# the bytecode compiled as pip does, in 15 s here against pip's 41 s for the test stack. Where uv cannot be
# installed, pip does the same install.
INSTALL = install() { if $(BIN)/python -m uv --version >/dev/null 2>&1; \
  then $(BIN)/python -m uv pip install --compile-bytecode --python $(BIN)/python "$$@"; \
  else $(BIN)/python -m pip install "$$@"; fi; }; install

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install uv || echo "uv could not be installed: pip installs the packages instead"

$(VENV)/.app-installed: pyproject.toml | $(BIN)/python
	$(INSTALL) -e '.[app]'
	@touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(INSTALL) -e '.[test,dev]'
	@touch $@

$(VENV)/.bench-installed: pyproject.toml | $(BIN)/python
	$(INSTALL) -e '.[test,dev,bench]'
	@touch $@

install: $(VENV)/.test-installed

# `streamlit run` through rebel.ui.launch: the server compiles (first start, or after the kernels change) or
# loads the kernels from the numba cache from the moment it starts, while the browser loads the page; the
# engine options' kernels then compile in a background process. A fresh install's first page takes about 14 s.
run: $(VENV)/.app-installed
	$(BIN)/python -m rebel.ui.launch $(CURDIR)/app.py --server.port $(PORT) $(SAFETY)

# A class on one machine: N replicas of `make run`'s server (default one per core; `make classroom N=4`) behind
# HAProxy (apt-get installs it when missing) with session affinity, on port PORT of every interface (BIND=127.0.0.1
# for this machine only), the replicas on localhost from BASE_PORT on (default PORT + 100). Ctrl-C stops
# everything. docs/CLASSROOM.md is the lecturer's guide.
N    ?=
BIND ?= 0.0.0.0
BASE_PORT ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
classroom: $(VENV)/.app-installed
	@command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || { echo "installing haproxy with apt-get"; \
	  $(SUDO) apt-get install -y haproxy || { $(SUDO) apt-get update && $(SUDO) apt-get install -y haproxy; }; }
	$(BIN)/python -m rebel.ui.classroom --port $(PORT) --bind $(BIND) $(if $(N),--replicas $(N)) \
	  $(if $(BASE_PORT),--base-port $(BASE_PORT)) -- $(SAFETY)

# The suite in two parts: the kernels compile first, once, in two processes (`rebel.warmup`), so that no two
# workers and no server compile the same ones at the same time; then the browser tests on BROWSER_JOBS workers
# (pytest-xdist, a module per worker: each worker its own app server, shared by its tests that need no fresh one,
# and its own Chromium; each test waits on what the page draws), then the rest on TEST_JOBS workers. Both parts
# always run; the target fails if either does. (One run of both kinds dealt out together took longer here: 970 s
# against 812 s, the browser tests slower beside the compiling ones.) Tests marked `soak` (tests/conftest.py's
# SOAK: the same layouts at more window sizes, the soak's loads, the longest checks) run with `make soak` instead.
# Debian's chromium is installed with apt-get when missing (as `make classroom` does for HAProxy), and a browser
# test that cannot start it fails instead of skipping.
TEST_JOBS ?= 2
BROWSER_JOBS ?= 2
test: $(VENV)/.test-installed
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || { echo "installing chromium with apt-get"; \
	  $(SUDO) apt-get install -y chromium || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }; }
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	@start=$$(date +%s); \
	for groups in "'fit', 'predict', 'parallel'" "'variants',"; do \
	  $(BIN)/python -c "from rebel.warmup import warmup; warmup(groups=($$groups), jobs=1, load=False)" & \
	done; wait; \
	echo "kernels compiled (or loaded from $(NUMBA_CACHE_DIR)) in $$(( $$(date +%s) - start )) s"
	@status=0; start=$$(date +%s); \
	REBEL_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -m "browser and not soak" -n $(BROWSER_JOBS) --dist loadfile \
	  || status=$$?; \
	$(BIN)/python -m pytest -m "not browser and not soak" -n $(TEST_JOBS) || status=$$?; \
	echo "tests ran in $$(( $$(date +%s) - start )) s"; \
	exit $$status

bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks

# What `make test` leaves out (tests marked `soak`, tests/conftest.py's SOAK), the browser part one test at a time:
# the layouts at more window sizes and sidebar states, the soak's loads (waves of sessions at the limits, 3-5 minutes
# on 2 cores, then 10 sessions at once at the Playground's maxima, 10-15 minutes: prints the health latencies and
# RSS figures and appends the attack's to benchmarks/results/soak.txt), and the longest checks (the memory bound at
# the largest admitted settings, every kernel compiled in an empty cache).
soak: $(VENV)/.test-installed
	@status=0; \
	REBEL_SOAK=1 REBEL_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -s -m "browser and soak" || status=$$?; \
	$(BIN)/python -m pytest -m "soak and not browser" -n $(TEST_JOBS) || status=$$?; \
	exit $$status

lint: $(VENV)/.test-installed
	$(BIN)/ruff format $(LINTED)
	$(BIN)/ruff check --fix $(LINTED)

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache build *.egg-info
