# Two commands on a fresh machine: `make run` (start the app) and `make test` (run the whole suite).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8501
LINTED := rebel tests benchmarks pages app.py
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: run test bench lint clean install

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[test,dev]'
	@touch $(STAMP)

$(VENV)/.bench-installed: $(STAMP)
	$(BIN)/python -m pip install -e '.[test,dev,bench]'
	@touch $@

install: $(STAMP)

run: $(STAMP)
	@echo "Compiling the boosting kernels into $(NUMBA_CACHE_DIR) (about 20 s the first time, instant afterwards)..."
	$(BIN)/python -c "import rebel; rebel.warmup()"
	$(BIN)/python -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT)

test: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/python -m pytest

bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff format $(LINTED)
	$(BIN)/ruff check --fix $(LINTED)

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache build *.egg-info
