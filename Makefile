# Two commands: `make run` and `make test`. Everything else here serves them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
UV     := $(BIN)/uv
UV_VERSION := 0.13.9
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))

.PHONY: run test lint format install install-dev clean

run: install
	$(BIN)/samops up

test: install-dev lint
	$(BIN)/pytest

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==$(UV_VERSION)

# --inexact keeps uv itself, which the lock file does not list, inside the venv.
$(VENV)/.installed: uv.lock pyproject.toml | $(UV)
	$(UV) sync --frozen --inexact
	touch $@

$(VENV)/.installed-dev: uv.lock pyproject.toml | $(UV)
	$(UV) sync --frozen --inexact --extra dev
	touch $@ $(VENV)/.installed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
