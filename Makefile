# Every target creates .venv on first use and installs what it needs; no other set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: help demo test peers course lint mutants bench clean

help:
	@echo "make demo      a tour of the protocol on the wire (mcp-ref demo; try mcp-ref demo --explain --step)"
	@echo "make test      the test suite, a sample of the mutants and of the course's wrong solutions included"
	@echo "make peers     the Node peers (Node 22, the official conformance suite) into .peers, where npm is present"
	@echo "make course    the course's graders against every wrong solution of their tables (CI runs it too)"
	@echo "make lint      ruff, mypy --strict and the import contracts (lint-imports)"
	@echo "make mutants   every mutant: for each MUST with code, remove the behaviour, check its test fails"
	@echo "make bench     benchmarks against the official SDK"
	@echo "make clean     remove .venv, .peers and caches"
	@echo ""
	@echo "After any target, .venv/bin/mcp-ref is installed:"
	@echo "  mcp-ref serve | request | inspect | config | demo | check | spec   (mcp-ref COMMAND --help)"
	@echo "  mcp-ref request --stdio 'mcp-ref serve' tools/list --explain   every message with its page and IDs"
	@echo "  mcp-ref spec LC-08                                             a requirement: code, tests, checker"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: setup.cfg pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-lint: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[lint]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[bench]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/mcp-ref demo

test: $(VENV)/.installed-test peers
	$(BIN)/python -m pytest -q

# The Node peers of tests/interop (install_peers.py says how). Never fails `make test`: without npm
# or a network it says so in one line and the tests that need them skip; when installed, it is quick.
peers: | $(BIN)/python
	-@$(BIN)/python tests/interop/install_peers.py

course: $(VENV)/.installed-test
	MCP_REF_COURSE=all $(BIN)/python -m pytest -q tests/course

mutants: $(VENV)/.installed-test
	$(BIN)/python -m tests.mutants

lint: $(VENV)/.installed-lint
	$(BIN)/ruff check mcp_ref mcp_ref_check tests examples benchmarks course
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/relay_bench.py

clean:
	rm -rf $(VENV) .peers build *.egg-info .pytest_cache .mypy_cache .ruff_cache
