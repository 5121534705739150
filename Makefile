# roofline-hw: run `make help` for the targets.
# The first `make sim` or `make test` creates .venv and installs pinned dependencies into it.

PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

# Python caches what it compiles (__pycache__, ignored by git), whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set, every simulator's cocotb and every test worker compiled the project
# again, and pytest rewrote every test's asserts (collection 9.9 s against 2.2 s cached). The grading
# sandbox sets it again inside, for the student's code (roofline_course.sandbox.mounts).
export PYTHONDONTWRITEBYTECODE :=

# Every knob is empty unless you give it: each command holds its own defaults (`make help`; the contract's
# in model/roofline_golden/defaults.py, the harness's in core/roofline_core/config.py), and Make passes a
# value only when one is given.
SIM        ?=
TOP        ?=
INT_BITS   ?=
FRAC_BITS  ?=
LEVELS     ?=
COUNT_BITS ?=
MUL_STAGES ?=
SEED       ?=
N          ?=
TESTCASE   ?=
ONLY       ?=
WAVES      ?=
GATES      ?=
RTL        ?=
JOBS       ?=
SHARD      ?=
LANES      ?=
BATCH      ?=
REPLAY     ?=
CLUSTER    ?=
V          ?=
# ARGS: more options for the target's own command (make prove ARGS="-k hierarchy"; its --help lists them)
ARGS       ?=
# course labs: make grade LAB=1 RTL=<file or folder>; make grade-all LAB=1 SUBMISSIONS=<folder of folders>
LAB         ?=
TB          ?=
SUBMISSIONS ?=
HIDDEN      ?=
TIMEOUT     ?=
STUDENT     ?=
LATE        ?=
DUE         ?=
METADATA    ?=

yes = $(filter 1 yes true,$(1))
# The old names still work, each with a one-line note: SWEEP= (now N=), <target>_ARGS= (now ARGS=),
# SHARDS= and MUTATION_*= (now ARGS=...), LATE_MAX= (now LATE=<percent>/<days>).
old = $(if $(filter command line environment,$(origin $(1))),$(info note: $(1)= is now $(2); $(1)= still works))
$(call old,SWEEP,N=)
$(foreach name,PYTEST_ARGS BENCHMARK_ARGS BENCH_ARGS SYNTH_ARGS PROVE_ARGS MUTANT_ARGS,$(call old,$(name),ARGS=))
$(call old,SHARDS,ARGS="--shards <n>")
$(call old,LATE_MAX,LATE=<percent per day>/<most days>)
$(foreach name,MUTATION_ALL MUTATION_MODULES MUTATION_BUDGET MUTATION_WRITE,$(call old,$(name),ARGS=... (make mutation ARGS=--help)))
N := $(or $(N),$(SWEEP))
LATE_PER_DAY = $(firstword $(subst /, ,$(LATE)))
LATE_DAYS = $(or $(word 2,$(subst /, ,$(LATE))),$(LATE_MAX))

PARAM_ARGS = $(if $(INT_BITS),--int-bits $(INT_BITS)) $(if $(FRAC_BITS),--frac-bits $(FRAC_BITS)) \
             $(if $(LEVELS),--levels $(LEVELS))
SWEEP_ARGS = $(if $(SIM),--sim $(SIM)) $(if $(TOP),--top $(TOP)) $(PARAM_ARGS) $(if $(SEED),--seed $(SEED)) \
             $(if $(SHARD),--shard $(SHARD)) $(if $(LANES),--lanes $(LANES)) $(if $(BATCH),--batch $(BATCH)) \
             $(if $(ONLY),--only $(ONLY)) $(if $(REPLAY),--replay "$(REPLAY)") $(if $(RTL),--rtl "$(RTL)") \
             $(if $(CLUSTER),--cluster "$(CLUSTER)") $(if $(SHARDS),--shards $(SHARDS)) $(if $(call yes,$(V)),--verbose) $(ARGS)
SIM_ARGS = $(if $(SIM),--sim $(SIM)) $(if $(TOP),--top $(TOP)) $(PARAM_ARGS) $(if $(COUNT_BITS),--count-bits $(COUNT_BITS)) \
           $(if $(MUL_STAGES),--mul-stages $(MUL_STAGES)) $(if $(N),--sweep $(N)) \
           $(if $(SEED),--seed $(SEED)) $(if $(TESTCASE),--testcase $(TESTCASE)) \
           $(if $(ONLY),--only $(ONLY)) $(if $(RTL),--rtl "$(RTL)") $(if $(call yes,$(WAVES)),--waves) $(if $(call yes,$(GATES)),--gates) \
           $(if $(call yes,$(V)),--verbose) $(if $(JOBS),--jobs $(JOBS)) $(if $(REPLAY),--replay "$(REPLAY)") $(ARGS)
MUTATION_ARGS = $(if $(MUTATION_BUDGET),--budget $(MUTATION_BUDGET)) $(if $(call yes,$(MUTATION_ALL)),--all) $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS)) \
                $(if $(MUTATION_MODULES),--modules "$(MUTATION_MODULES)") $(if $(call yes,$(MUTATION_WRITE)),--write) $(ARGS)

.PHONY: help sim test test-all lint sweep exhaustive benchmark bench synth prove report mutants mutation code-coverage coverage docs grade check \
        grade-all handout clean prereqs prereqs-python prereqs-verilator

help:
	@echo "roofline-hw: a verified fixed-point roofline unit"
	@echo ""
	@echo "  make sim        run the cocotb testbenches (SIM=icarus|verilator, TOP=<module>|all)"
	@echo "  make test       the everyday regression (about two minutes): the model, the contract, every bench on both"
	@echo "                  simulators, bulk, the fast proofs, the CLI, a smoke test of the rest; RTL=<yours>: what runs it"
	@echo "  make test-all   every test: all parameter sets, hostile submissions, clusters, the wheel, every proof (CI)"
	@echo "  make lint       verilator -Wall and iverilog -Wall over every module and parameter set, and ruff (RTL=<yours>)"
	@echo "  make sweep      a bulk random sweep: N vectors streamed through the RTL, checked with numpy"
	@echo "  make exhaustive every input combination of a small format (UQ4.4: 16.7M vectors)"
	@echo "  make benchmark  verified vectors/s of per-vector cocotb, bulk, numpy and a native C++ loop"
	@echo "  make synth      Yosys synthesis (generic; iCE40 and ECP5 with nextpnr): cells, LUTs, FFs, DSPs, Fmax"
	@echo "  make prove      SAT proofs (Yosys) and SymbiYosys k-induction proofs and covers of the RTL: one table"
	@echo "  make report     the last regression as one HTML page, with the roofline computed by the RTL"
	@echo "  make docs       regenerate the tables in docs/ from the contract, the cases and the results files"
	@echo "  make mutants    hand-written mutants (flows/mutants/catalogue.toml) and Yosys mutate ones: each dies or is proved equivalent"
	@echo "  make mutation   mutation testing of the Python (cosmic-ray): modules whose code or tests changed; ARGS=--all every"
	@echo "                  module, ARGS=--stale those whose row is older than their code (ARGS=\"--modules <names> --budget <s> --write\");"
	@echo "                  JOBS=<lanes side by side> (one per CPU); docs/mutation.md"
	@echo "  make code-coverage  Verilator line and toggle coverage of the RTL under every bench; prints the report path"
	@echo "  make grade      grade a lab submission in a sandbox: LAB=<1..6> RTL=<file, folder or .zip> (HIDDEN=<file> TIMEOUT=<s>)"
	@echo "                  its last line says: full marks (exit 0), fewer marks (1), or could not grade (2)"
	@echo "  make check      what students run: the lab's visible groups only (LAB= RTL=; lab 6, a testbench: TB=<folder>)"
	@echo "  make grade-all  grade a class: LAB=<n> SUBMISSIONS=<folder, one entry per student> (JOBS= STUDENT= TIMEOUT= DUE= LATE=<%/day>[/<days>] METADATA= CLUSTER=)"
	@echo "                  writes scores.csv and dashboard.html under build/grade/labN-all/"
	@echo "  make handout    the student copy: no reference RTL, no drop-in solution, no mutant list, no hidden groups"
	@echo "  roofline place|plot FILE   (in .venv/bin) place kernels on a platform's roofline (place --json); see examples/"
	@echo "  make clean      remove build outputs (keeps .venv; 'make clean-all' removes it too)"
	@echo ""
	@echo "Options are empty unless given; each command holds its defaults (<command> --help, or ARGS=--help)."
	@echo "make sim options: SIM= TOP= SEED=<n> TESTCASE=<cocotb test> ONLY=<vector index or case id> WAVES=1 GATES=1 V=1"
	@echo "                  JOBS=<benches at once> INT_BITS= FRAC_BITS= LEVELS= COUNT_BITS= MUL_STAGES= N= RTL=<file or folder>"
	@echo "                  REPLAY=<a failed proof's trace.vcd or .yw> with its TOP= and parameters: the counterexample as a bench"
	@echo "make test / test-all options: RTL=<file or folder> (or ROOFLINE_RTL), SEED=<n>, JOBS=<pytest workers>, ARGS=<pytest's>"
	@echo "make sweep options: N= SIM= TOP=<module>|all SEED=<n> SHARD=i/n ONLY=<vector number> REPLAY=<failing-vectors .npz>"
	@echo "                  LANES= BATCH= RTL= INT_BITS= ... (make exhaustive: the same, every input of UQ4.4 by default)"
	@echo "on Dask (sweep, exhaustive, grade-all): CLUSTER=<scheduler address or file> or CLUSTER=local:K (ARGS=\"--shards <n>\")"
	@echo "every target: ARGS=<more options for its command> (make prove ARGS=\"-k hierarchy\", make synth ARGS=--help)"
	@echo "old names, still read: SWEEP= (N=), PYTEST_ARGS= BENCHMARK_ARGS= BENCH_ARGS= SYNTH_ARGS= PROVE_ARGS= MUTANT_ARGS= (ARGS=),"
	@echo "                  SHARDS= (ARGS=--shards), MUTATION_ALL= MUTATION_MODULES= MUTATION_BUDGET= MUTATION_WRITE= (ARGS=),"
	@echo "                  LATE_MAX= (LATE=<%/day>/<days>); make bench (benchmark), make coverage (code-coverage)"

# The tools every target needs (no program runs: a check that started Python cost 0.3 s of every make).
prereqs:
	@command -v iverilog >/dev/null 2>&1 || { echo "error: iverilog not found: apt-get install iverilog"; exit 1; }
	@command -v make >/dev/null 2>&1 || { echo "error: make not found: apt-get install make"; exit 1; }

prereqs-verilator:
	@command -v g++ >/dev/null 2>&1 || { echo "error: g++ not found (Verilator builds C++): apt-get install g++"; exit 1; }
	@command -v perl >/dev/null 2>&1 || { echo "error: perl not found (Verilator needs it): apt-get install perl"; exit 1; }

# The packages go in with uv (pinned; its cache makes a fresh clone's set-up seconds, not a minute
# of pip), or with pip where uv cannot be had.
UV_VERSION := 0.13.9
# Python is checked when the virtual environment is made; every target after that runs the environment's.
prereqs-python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found: install Python >= 3.11"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: $$($(PYTHON) --version 2>&1) is too old: install Python >= 3.11 (or PYTHON=python3.x make ...)"; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || \
	  { echo "error: Python's venv module is missing: apt-get install python3-venv"; exit 1; }

$(STAMP): pyproject.toml | prereqs prereqs-python
	@echo "setting up $(VENV) (first run only)..."
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	@{ $(VPY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) && \
	   $(VENV)/bin/uv pip install --quiet --python $(VPY) -e '.[dev]'; } || \
	  $(VPY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

sim: prereqs $(if $(filter verilator,$(SIM)),prereqs-verilator) $(STAMP)
	@$(VPY) -m roofline_cocotb.sim $(SIM_ARGS)

# make test: the everyday tier (tests not marked full); with RTL=, every test that exercises the
# given RTL, in both tiers. make test-all: every test, the full tier included (CI runs it).
PYTEST = ROOFLINE_RTL="$(or $(RTL),$(ROOFLINE_RTL))" $(if $(SEED),ROOFLINE_SEED=$(SEED)) \
	  $(VPY) -m pytest -n $(or $(JOBS),auto) --dist worksteal --durations=10
TEST_SELECTION = $(if $(or $(RTL),$(ROOFLINE_RTL)),-m rtl,-m "not full")

test: prereqs prereqs-verilator $(STAMP)
	@$(PYTEST) --junitxml=build/regression.xml $(TEST_SELECTION) $(PYTEST_ARGS) $(ARGS)

test-all: prereqs prereqs-verilator $(STAMP)
	@$(PYTEST) --junitxml=build/regression-all.xml $(PYTEST_ARGS) $(ARGS)

sweep: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_bulk.sweep --mode random $(if $(N),-n $(N)) $(SWEEP_ARGS)

exhaustive: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_bulk.sweep --mode exhaustive $(SWEEP_ARGS)

benchmark: prereqs prereqs-verilator $(STAMP)
	@$(VPY) benchmark/run.py $(BENCHMARK_ARGS) $(BENCH_ARGS) $(ARGS)

bench:
	@echo "note: make bench is now make benchmark"
	@$(MAKE) --no-print-directory benchmark

synth: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.synth $(if $(RTL),--rtl "$(RTL)") $(SYNTH_ARGS) $(ARGS)

prove: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.prove $(if $(RTL),--rtl "$(RTL)") $(PROVE_ARGS) $(ARGS)

code-coverage: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_flows.code_coverage

coverage:
	@echo "note: make coverage is now make code-coverage (functional coverage runs in every make sim)"
	@$(MAKE) --no-print-directory code-coverage

mutants: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.rtl_mutants $(MUTANT_ARGS) $(ARGS)

mutation: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.python_mutation $(MUTATION_ARGS)

docs: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.docs

report: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.regression_page

GRADE_ARGS = --lab "$(LAB)" $(if $(HIDDEN),--hidden "$(HIDDEN)") $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
             $(if $(SIM),--sim $(SIM))
need = @test -n "$($(1))" || { echo "error: $(1)= is required: $(2)"; exit 2; }

# A testbench lab (lab 6) grades a testbench: TB=<its folder> names it (RTL= still works).
SUBMITTED = $(or $(TB),$(RTL))
need_submission = @test -n "$(SUBMITTED)" || { echo "error: RTL= is required: $(1) (lab 6, a testbench: TB=<folder>)"; exit 2; }

grade: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need_submission,the submission file or folder)
	@$(VPY) -m roofline_course.grade $(GRADE_ARGS) --rtl "$(SUBMITTED)" $(ARGS)

check: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need_submission,your file or folder)
	@$(VPY) -m roofline_course.grade $(GRADE_ARGS) --rtl "$(SUBMITTED)" --visible-only $(ARGS)

grade-all: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need,SUBMISSIONS,a folder with one entry per student)
	@$(VPY) -m roofline_course.cohort.grade_all $(GRADE_ARGS) --submissions "$(SUBMISSIONS)" \
	  $(if $(STUDENT),--student "$(STUDENT)") $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS)) \
	  $(if $(LATE_PER_DAY),--late-penalty $(LATE_PER_DAY)) $(if $(LATE_DAYS),--late-max-days $(LATE_DAYS)) \
	  $(if $(DUE),--due "$(DUE)") $(if $(METADATA),--metadata "$(METADATA)") $(if $(CLUSTER),--cluster "$(CLUSTER)") $(ARGS)

handout: prereqs $(STAMP)
	@$(VPY) -m roofline_course.handout

lint: prereqs $(STAMP)
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VPY) -m roofline_flows.lint $(if $(RTL),--rtl "$(RTL)")

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

clean-all: clean
	rm -rf $(VENV) *.egg-info
