# The two commands: `make demo` and `make test`. Everything else is a step they call.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test setup prereqs lint typecheck unit bench clean

# The tests fail when the compiled core (hedera_history._speedups) did not build on this machine
# (tests/unit/test_speedups.py, and doctor says how to build it); the demo and production fall back
# to the pure-Python code instead.
export HEDERA_HISTORY_REQUIRE_SPEEDUPS := 1

demo: export HEDERA_HISTORY_REQUIRE_SPEEDUPS := 0
demo: setup
	$(BIN)/hedera-history doctor
	$(BIN)/hedera-history demo

test: setup
	$(BIN)/hedera-history doctor
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest -n 2 --dist loadgroup

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# ---- delivery (cloudbuild.yaml runs these) ------------------------------------------------------
DEPLOY_ENV ?= dev

.PHONY: lint typecheck pytest functions tf-fmt tf-validate tf-plan tf-apply

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

pytest: setup
	$(BIN)/pytest -n 2 --dist loadgroup

# The wheel and every function source (build/dist, build/functions), after checking that
# infra/generated matches the code.
functions: setup
	$(BIN)/hedera-history deploy generate --check
	$(BIN)/hedera-history deploy build

tf-fmt: setup
	$(BIN)/hedera-history deploy fmt --check

# infra/ against the pinned google provider schema, offline (also in make test: tests/unit/deploy/test_validate.py).
tf-validate: setup
	$(BIN)/hedera-history deploy validate

tf-plan: setup
	$(BIN)/hedera-history deploy plan --env $(DEPLOY_ENV)

tf-apply: setup
	$(BIN)/hedera-history deploy apply --env $(DEPLOY_ENV)
