"""The contract table (roofline_core.contract) against everything it describes.

For every module: its RTL file exists and Yosys reads the table's parameters and ports from
it (names, directions, widths, order) at every set the regression uses; a top-level module
has a bench that samples the table's coverage bins; lint covers every module; synthesis,
proofs, bulk sweeps and the CLI cover exactly the modules the table says.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_bench.benches import TESTS as BENCH_TESTS
from roofline_bench.coverage import expected_bins
from roofline_core import contract
from roofline_core.contract import MODULES, PARAM_SETS, TOPS, Module
from roofline_core.gates import GATE_LEVEL_TOPS
from roofline_core.paths import REPO_ROOT, RTL_DIR, bench_dir
from roofline_core.tools import yosys_available, yosys_command
from roofline_flows import rtl_mutants_yosys, sby, synth

needs_yosys = pytest.mark.skipif(not yosys_available(), reason="no Yosys: apt-get install yosys, or pip install -e .[eda]")
TOOL_PACKAGES = (
    "core/roofline_core",
    "tb/roofline_bench",
    "tb/roofline_cocotb",
    "tb/roofline_bulk",
    "flows/roofline_flows",
    "course/roofline_course",
    "cli/roofline_cli",
)


def parameter_sets(module: Module) -> list[dict[str, int]]:
    return [p.for_module(module.name) for p in PARAM_SETS] if module.top else list(module.lint_sets)


def test_every_rtl_file_is_in_the_table_and_every_entry_has_its_file() -> None:
    on_disk = {path.stem for path in RTL_DIR.glob("*.sv")}
    assert on_disk == set(MODULES), "rtl/ and the contract table disagree"
    for module in MODULES.values():
        assert module.sources[-1] == module.name, f"{module.name}: its own file comes last in its sources"
        assert set(module.sources) <= on_disk


def test_sources_list_every_module_a_module_instantiates() -> None:
    for module in MODULES.values():
        text = (RTL_DIR / f"{module.name}.sv").read_text()
        instantiated = {name for name in MODULES if name != module.name and re.search(rf"^\s*{name}\b", text, re.M)}
        listed = set(module.sources[:-1])
        assert instantiated <= listed, f"{module.name} instantiates {instantiated - listed}, which its sources lack"


@pytest.mark.parametrize("top", TOPS)
def test_every_top_has_a_bench_with_tests_and_coverage_bins(top: str) -> None:
    bench = bench_dir(top) / f"test_{top}.py"
    assert bench.is_file(), f"{top}: no bench at {bench.relative_to(REPO_ROOT)}"
    assert f'cocotb_tests("{top}", globals())' in bench.read_text(), f"{top}: its cocotb module runs its bench's tests"
    assert BENCH_TESTS[top], f"{top}: its bench (roofline_bench) has no tests"
    for levels in {p.levels for p in PARAM_SETS}:
        assert expected_bins(top, levels), f"{top}: the table gives no coverage bins"


def yosys_module(module: Module, values: dict[str, int], folder: Path) -> dict:
    out = folder / f"{module.name}.json"
    files = " ".join(str(RTL_DIR / f"{stem}.sv") for stem in module.sources)
    sets = " ".join(f"-chparam {name} {value}" for name, value in values.items())
    script = f"read_verilog -sv {files}; hierarchy -top {module.name} {sets}; proc; write_json {out}"
    run = subprocess.run([*yosys_command(), "-q", "-p", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return next(
        m
        for name, m in json.loads(out.read_text())["modules"].items()
        if name.lstrip("\\$").split("$")[-1] == module.name
        or name == module.name
        or name.startswith(f"$paramod\\{module.name}\\")
    )


@needs_yosys
@pytest.mark.parametrize("name", list(MODULES))
def test_yosys_reads_the_tables_ports_from_the_rtl(name: str, tmp_path: Path) -> None:
    module = MODULES[name]
    defaults = yosys_module(module, {}, tmp_path)
    declared = {
        k: int(v, 2) if set(v) <= {"0", "1"} else int(v) for k, v in defaults["parameter_default_values"].items()
    }
    assert declared == module.parameters, f"{name}: parameters and defaults"
    for values in parameter_sets(module):
        ports = yosys_module(module, values, tmp_path)["ports"]
        actual = [(port, info["direction"], len(info["bits"])) for port, info in ports.items()]
        expected = [(port, direction, width) for port, (direction, width) in module.port_bits(values).items()]
        assert actual == expected, f"{name} at {values}"


def test_lint_covers_every_module_at_every_set() -> None:
    linted = {(t.module, tuple(sorted(t.values.items()))) for t in contract.lint_targets()}
    for module in MODULES.values():
        for values in parameter_sets(module):
            assert (module.name, tuple(sorted(values.items()))) in linted, f"make lint skips {module.name} at {values}"
        assert module.top or module.lint_sets, f"{module.name}: a building block needs lint_sets"


def test_flows_cover_what_the_table_says() -> None:
    assert set(synth.SYNTH_TOPS) == set(contract.tops_with("synth")) == set(TOPS)
    assert {top for top, *_ in synth.FPGA_RUNS} == {t for t in TOPS if MODULES[t].fpga}
    assert set(GATE_LEVEL_TOPS) == set(contract.tops_with("gates"))
    assert set(rtl_mutants_yosys.TOPS) == set(contract.tops_with("mutants"))
    proved = {task.unit for task in sby.tasks()}
    assert proved == set(contract.modules_with("prove")), "make prove's tasks and the table disagree"
    assert contract.cli_module("rates") in TOPS and contract.cli_module("counts") in TOPS


def test_no_tool_lists_modules_or_ports_of_its_own() -> None:
    """Module names in quotes appear in the contract table only; so do port names, outside the
    harness (whose checkers read and report the ports by name)."""
    names = "|".join(MODULES)
    ports = "|".join({port.name for module in MODULES.values() for port in module.ports})
    offenders = []
    for package in TOOL_PACKAGES:
        quoted = re.compile(rf"[\"']({names}{'' if package.startswith('tb/') else '|' + ports})[\"']")
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            # hints.py reads failure reports, which name the ports; benches.py names each module's bench
            if path.name in ("contract.py", "hints.py", "benches.py"):
                continue
            if found := quoted.findall(path.read_text()):
                offenders.append(f"{path.relative_to(REPO_ROOT)} names {sorted(set(found))}")
    assert not offenders, "take these from the contract table:\n" + "\n".join(offenders)


def test_flows_grading_and_the_cli_import_no_simulator_library() -> None:
    """Only the code that runs a simulation imports cocotb or cocotb-test."""
    modules = [
        "roofline_core.contract",
        "roofline_core.paths",
        "roofline_core.config",
        "roofline_bulk.config",
        "roofline_flows.lint",
        "roofline_flows.synth",
        "roofline_flows.prove",
        "roofline_flows.regression_page",
        "roofline_flows.docs",
        "roofline_course.labs.definitions",
        "roofline_course.intake.precheck",
        "roofline_course.grade",
        "roofline_course.cohort.grade_all",
        "roofline_cli.main",
    ]
    probe = (
        f"import sys\nfor name in {modules!r}: __import__(name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'cocotb', 'cocotb_test'}))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"a simulator library was imported: {run.stdout}"


def test_a_grading_step_builds_with_cocotb_test_but_without_cocotb_itself() -> None:
    """The grade job only builds and starts the simulator (which loads the real cocotb): it gets
    cocotb's version and folder, not cocotb and pytest; a use of anything more fails at its import."""
    probe = (
        "import io, os, runpy, sys\n"
        "os.environ['ROOFLINE_RESULT_FD'] = str(os.pipe()[1])\n"
        "sys.stdin = io.StringIO('{\"kind\": \"none\"}')  # a job it refuses on the pipe: only the start is of interest\n"
        "try:\n    runpy.run_module('roofline_course.design_lab.sandbox_job', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "import cocotb, cocotb.simulator, cocotb_test.simulator as built\n"
        "print('pytest' in sys.modules, hasattr(cocotb, '__path__'), bool(cocotb.__version__))\n"
        "print(built.Icarus.__name__, cocotb.simulator.__file__.rsplit('/', 1)[-1].split('.')[0])\n"
        "try:\n    import cocotb.handle\nexcept ModuleNotFoundError as problem:\n    print('refused', problem.name)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:3] == ["False False True", "Icarus simulator", "refused cocotb.handle"]
    # Imported rather than run (a test, a tool), it leaves the process its real cocotb.
    library = "import roofline_course.design_lab.sandbox_job, cocotb, cocotb.handle\nprint(hasattr(cocotb, '__path__'))"
    run = subprocess.run([sys.executable, "-c", library], capture_output=True, text=True, cwd=REPO_ROOT)
    assert (run.returncode, run.stdout.strip()) == (0, "True"), run.stderr


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="iverilog not installed")
def test_the_parameter_guard_names_the_rule(tmp_path: Path) -> None:
    module = MODULES["roofline_attainable"]
    files = [str(RTL_DIR / f"{stem}.sv") for stem in module.sources]
    run = subprocess.run(
        [
            "iverilog",
            "-g2012",
            "-o",
            str(tmp_path / "guard.vvp"),
            "-s",
            module.name,
            f"-P{module.name}.FRAC_BITS=0",
            *files,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "ERROR_roofline_FRAC_BITS_must_be_at_least_1" in run.stdout + run.stderr


@pytest.mark.parametrize("sby_file", sorted(sby.SBY_DIR.glob("*.sby")), ids=lambda path: path.stem)
def test_every_proof_reads_the_rtl_files_the_table_gives_its_unit(sby_file: Path) -> None:
    """A .sby file lists its RTL by hand ([files] and read_verilog): they must be its unit's sources in the
    table, every one and no other, so a proof checks the module the benches run (and RTL= swaps the same files)."""
    unit = sby_file.stem
    text = sby_file.read_text()
    files = [line.strip() for line in text.split("[files]", 1)[1].splitlines() if line.strip().startswith(sby.RTL_PREFIX)]
    listed = sorted(Path(line).stem for line in files)
    assert listed == sorted(MODULES[unit].sources), f"{sby_file.name}: [files] lists {listed}"
    reads = [line.split("read_verilog", 1)[1] for line in text.splitlines() if "read_verilog" in line]
    read = {Path(word).stem for line in reads for word in line.split() if word.endswith(".sv")}
    assert set(MODULES[unit].sources) <= read, f"{sby_file.name}: read_verilog leaves out {set(MODULES[unit].sources) - read}"


def test_the_padding_sets_pad_the_sum_tree_at_every_mul_stages_and_run_every_day() -> None:
    from roofline_core.contract import PADDED_TOP, PADDING_SETS, lint_targets

    chunks = {p.mul_stages: 1 << (p.mul_stages - 1) for p in PADDING_SETS}
    assert sorted(chunks) == [2, 3, 4]
    assert all((p.int_bits + p.frac_bits) % chunks[p.mul_stages] for p in PADDING_SETS)  # W not a multiple
    assert all((p.int_bits + p.frac_bits) % (1 << (p.mul_stages - 1)) == 0 for p in PARAM_SETS)  # why they are needed
    linted = {t.tag for t in lint_targets() if t.module == PADDED_TOP}
    assert {p.tag for p in PADDING_SETS} <= linted
