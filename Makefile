# roofline-hw: run `make help` for the targets.
# The first `make sim` or `make test` creates .venv and installs pinned dependencies into it.

PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

SIM        ?= icarus
TOP        ?= all
# The format and parameters: empty means the contract's defaults (model/roofline_golden/defaults.py)
INT_BITS   ?=
FRAC_BITS  ?=
LEVELS     ?=
COUNT_BITS ?=
MUL_STAGES ?=
SEED       ?=
TESTCASE   ?=
ONLY       ?=
WAVES      ?=
GATES      ?=
RTL        ?=
# pytest-xdist workers for `make test`
JOBS       ?= auto
# N: random vectors per run (each command has its default: --help). SWEEP= is its old make sim name.
SHARD      ?=
LANES      ?=
BATCH      ?=
REPLAY     ?=
# make benchmark BENCHMARK_ARGS="--sizes 1000,1000000 --repeats 5 --full" (BENCH_ARGS= still works)
BENCHMARK_ARGS ?= $(BENCH_ARGS)
# make synth SYNTH_ARGS="--only roofline_hierarchy_pipe --freq 60"; make prove PROVE_ARGS="-k hierarchy"
SYNTH_ARGS ?=
PROVE_ARGS ?=
MUTANT_ARGS ?=
# make mutation: MUTATION_BUDGET=<s> MUTATION_ALL=1 MUTATION_MODULES="judge hints" MUTATION_WRITE=1
MUTATION_BUDGET  ?= 1800
MUTATION_ALL     ?=
MUTATION_MODULES ?=
MUTATION_WRITE   ?=
# course labs: make grade LAB=1 RTL=<file or folder>; make grade-all LAB=1 SUBMISSIONS=<folder of folders>
LAB         ?=
TB          ?=
SUBMISSIONS ?=
HIDDEN      ?=
TIMEOUT     ?=
STUDENT     ?=
LATE        ?=
LATE_MAX    ?=
DUE         ?=
METADATA    ?=
# make sweep / grade-all CLUSTER=<Dask scheduler address or file> or CLUSTER=local:K; SHARDS=<n> for a sweep
CLUSTER     ?=
SHARDS      ?=
# V=1: make sim, make sweep and make check print the simulator's whole output, not only the summary and failures
V           ?=

# $(call given,VAR,default): VAR when set on the command line or in the environment, else the
# default; sweeps default to Verilator and to roofline_attainable, exhaustive runs to UQ4.4.
given = $(if $(filter command line environment,$(origin $(1))),$($(1)),$(2))
# Old names still work, with a one-line note.
ifneq ($(filter command line environment,$(origin SWEEP)),)
$(info note: SWEEP= is now N= (make sim N=$(SWEEP)); SWEEP= still works)
endif
# Each parameter is passed only when it is given: the commands hold the defaults.
PARAM_ARGS = $(if $(INT_BITS),--int-bits $(INT_BITS)) $(if $(FRAC_BITS),--frac-bits $(FRAC_BITS)) \
             $(if $(LEVELS),--levels $(LEVELS))
SWEEP_ARGS = --sim $(call given,SIM,verilator) --top $(call given,TOP,roofline_attainable) \
             $(PARAM_ARGS) $(if $(SEED),--seed $(SEED)) $(if $(SHARD),--shard $(SHARD)) \
             $(if $(LANES),--lanes $(LANES)) $(if $(BATCH),--batch $(BATCH)) $(if $(ONLY),--only $(ONLY)) \
             $(if $(REPLAY),--replay "$(REPLAY)") $(if $(RTL),--rtl "$(RTL)") \
             $(if $(CLUSTER),--cluster "$(CLUSTER)") $(if $(SHARDS),--shards $(SHARDS)) $(if $(filter 1 yes true,$(V)),--verbose)

SIM_ARGS = --sim $(SIM) --top $(TOP) $(PARAM_ARGS) $(if $(COUNT_BITS),--count-bits $(COUNT_BITS)) \
           $(if $(MUL_STAGES),--mul-stages $(MUL_STAGES)) $(if $(call given,N,$(SWEEP)),--sweep $(call given,N,$(SWEEP))) \
           $(if $(SEED),--seed $(SEED)) $(if $(TESTCASE),--testcase $(TESTCASE)) \
           $(if $(ONLY),--only $(ONLY)) $(if $(RTL),--rtl "$(RTL)") $(if $(filter 1 yes true,$(WAVES)),--waves) $(if $(filter 1 yes true,$(GATES)),--gates) \
           $(if $(filter 1 yes true,$(V)),--verbose) $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS))

.PHONY: help sim test test-all lint sweep exhaustive benchmark bench synth prove report mutants mutation code-coverage coverage docs grade check \
        grade-all handout clean prereqs prereqs-verilator

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
	@echo "  make mutation   mutation testing of the Python (cosmic-ray): modules whose code or tests changed, MUTATION_ALL=1 all"
	@echo "                  (MUTATION_MODULES=<names> MUTATION_BUDGET=<s> MUTATION_WRITE=1); docs/mutation.md"
	@echo "  make code-coverage  Verilator line and toggle coverage of the RTL under every bench; prints the report path"
	@echo "  make grade      grade a lab submission in a sandbox: LAB=<1..6> RTL=<file, folder or .zip> (HIDDEN=<file> TIMEOUT=<s>)"
	@echo "                  its last line says: full marks (exit 0), fewer marks (1), or could not grade (2)"
	@echo "  make check      what students run: the lab's visible groups only (LAB= RTL=; lab 6, a testbench: TB=<folder>)"
	@echo "  make grade-all  grade a class: LAB=<n> SUBMISSIONS=<folder, one entry per student> (JOBS= STUDENT= TIMEOUT= DUE= LATE= LATE_MAX= METADATA= CLUSTER=)"
	@echo "                  writes scores.csv and dashboard.html under build/grade/labN-all/"
	@echo "  make handout    the student copy: no reference RTL, no drop-in solution, no mutant list, no hidden groups"
	@echo "  roofline place|plot FILE   (in .venv/bin) place kernels on a platform's roofline (place --json); see examples/"
	@echo "  make clean      remove build outputs (keeps .venv; 'make clean-all' removes it too)"
	@echo ""
	@echo "make sim options: SEED=<n> TESTCASE=<cocotb test> ONLY=<vector index or case id> WAVES=1 GATES=1 V=1 JOBS=<benches at once>"
	@echo "                  INT_BITS= FRAC_BITS= LEVELS= COUNT_BITS= MUL_STAGES= N= RTL=<file or folder>"
	@echo "                  (the defaults: .venv/bin/python -m roofline_tb.sim --help)"
	@echo "make test / test-all options: RTL=<file or folder> (or ROOFLINE_RTL), SEED=<n>, JOBS=auto, PYTEST_ARGS="
	@echo "make sweep options: N= SIM=verilator|icarus TOP=roofline_attainable|roofline_hierarchy|all SEED=<n>"
	@echo "                  SHARD=i/n ONLY=<vector number> REPLAY=<failing-vectors .npz> LANES= BATCH= RTL= INT_BITS= ..."
	@echo "make exhaustive options: INT_BITS=4 FRAC_BITS=4 SIM=verilator TOP=... SHARD=i/n"
	@echo "on Dask (sweep, exhaustive, grade-all): CLUSTER=<scheduler address or file> or CLUSTER=local:K; SHARDS=<n>"

prereqs:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found: install Python >= 3.11"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: $$($(PYTHON) --version 2>&1) is too old: install Python >= 3.11 (or PYTHON=python3.x make ...)"; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || \
	  { echo "error: Python's venv module is missing: apt-get install python3-venv"; exit 1; }
	@command -v iverilog >/dev/null 2>&1 || { echo "error: iverilog not found: apt-get install iverilog"; exit 1; }
	@command -v make >/dev/null 2>&1 || { echo "error: make not found: apt-get install make"; exit 1; }

prereqs-verilator:
	@command -v g++ >/dev/null 2>&1 || { echo "error: g++ not found (Verilator builds C++): apt-get install g++"; exit 1; }
	@command -v perl >/dev/null 2>&1 || { echo "error: perl not found (Verilator needs it): apt-get install perl"; exit 1; }

$(STAMP): pyproject.toml | prereqs
	@echo "setting up $(VENV) (first run only)..."
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	@$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

sim: prereqs $(if $(filter verilator,$(SIM)),prereqs-verilator) $(STAMP)
	@$(VPY) -m roofline_tb.sim $(SIM_ARGS)

# make test: the everyday tier (tests not marked full); with RTL=, every test that exercises the
# given RTL, in both tiers. make test-all: every test, the full tier included (CI runs it).
PYTEST = ROOFLINE_RTL="$(or $(RTL),$(ROOFLINE_RTL))" $(if $(SEED),ROOFLINE_SEED=$(SEED)) \
	  $(VPY) -m pytest -n $(JOBS) --durations=10
TEST_SELECTION = $(if $(or $(RTL),$(ROOFLINE_RTL)),-m rtl,-m "not full")

test: prereqs prereqs-verilator $(STAMP)
	@$(PYTEST) --junitxml=build/regression.xml $(TEST_SELECTION) $(PYTEST_ARGS)

test-all: prereqs prereqs-verilator $(STAMP)
	@$(PYTEST) --junitxml=build/regression-all.xml $(PYTEST_ARGS)

sweep: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_bulk.sweep --mode random $(if $(call given,N,),-n $(N)) $(SWEEP_ARGS)

exhaustive: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_bulk.sweep --mode exhaustive $(SWEEP_ARGS)

benchmark: prereqs prereqs-verilator $(STAMP)
	@$(VPY) benchmark/run.py $(BENCHMARK_ARGS)

bench:
	@echo "note: make bench is now make benchmark"
	@$(MAKE) --no-print-directory benchmark

synth: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.synth $(if $(RTL),--rtl "$(RTL)") $(SYNTH_ARGS)

prove: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.prove $(if $(RTL),--rtl "$(RTL)") $(PROVE_ARGS)

code-coverage: prereqs prereqs-verilator $(STAMP)
	@$(VPY) -m roofline_flows.code_coverage

coverage:
	@echo "note: make coverage is now make code-coverage (functional coverage runs in every make sim)"
	@$(MAKE) --no-print-directory code-coverage

mutants: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.mutants $(MUTANT_ARGS)

mutation: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.mutation --budget $(MUTATION_BUDGET) $(if $(filter 1 yes true,$(MUTATION_ALL)),--all) \
	  $(if $(MUTATION_MODULES),--modules "$(MUTATION_MODULES)") $(if $(filter 1 yes true,$(MUTATION_WRITE)),--write)

docs: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.docs

report: prereqs $(STAMP)
	@$(VPY) -m roofline_flows.report

GRADE_ARGS = --lab "$(LAB)" $(if $(HIDDEN),--hidden "$(HIDDEN)") $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
             $(if $(filter verilator,$(SIM)),--sim verilator)
need = @test -n "$($(1))" || { echo "error: $(1)= is required: $(2)"; exit 2; }

# A testbench lab (lab 6) grades a testbench: TB=<its folder> names it (RTL= still works).
SUBMITTED = $(or $(TB),$(RTL))
need_submission = @test -n "$(SUBMITTED)" || { echo "error: RTL= is required: $(1) (lab 6, a testbench: TB=<folder>)"; exit 2; }

grade: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need_submission,the submission file or folder)
	@$(VPY) -m roofline_course.grade $(GRADE_ARGS) --rtl "$(SUBMITTED)"

check: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need_submission,your file or folder)
	@$(VPY) -m roofline_course.grade $(GRADE_ARGS) --rtl "$(SUBMITTED)" --visible-only

grade-all: prereqs $(STAMP)
	$(call need,LAB,the lab number (labs/labN))
	$(call need,SUBMISSIONS,a folder with one entry per student)
	@$(VPY) -m roofline_course.grade_all $(GRADE_ARGS) --submissions "$(SUBMISSIONS)" \
	  $(if $(STUDENT),--student "$(STUDENT)") $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS)) \
	  $(if $(LATE),--late-penalty $(LATE)) $(if $(LATE_MAX),--late-max-days $(LATE_MAX)) \
	  $(if $(DUE),--due "$(DUE)") $(if $(METADATA),--metadata "$(METADATA)") $(if $(CLUSTER),--cluster "$(CLUSTER)")

handout: prereqs $(STAMP)
	@$(VPY) -m roofline_course.handout

lint: prereqs $(STAMP)
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VPY) -m roofline_flows.lint $(if $(RTL),--rtl "$(RTL)")

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

clean-all: clean
	rm -rf $(VENV) *.egg-info
