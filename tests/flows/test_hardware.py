"""What gets built is what was verified: gate-level simulation, synthesis checks, mutants.

The full runs are `make sim GATES=1`, `make synth` and `make mutants`; these tests run the
quick part of each and show that each check can fail. The proofs are in tests/flows/test_sby.py.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from roofline_core.config import BenchConfig
from roofline_core.contract import PARAM_SETS, sources_of
from roofline_core.gates import GATE_LEVEL_TOPS
from roofline_core.paths import RTL_DIR
from roofline_core.runner import run_bench
from roofline_core.sources import rtl_sources
from roofline_core.tools import eda_command, tool_available, yosys_available, yosys_command
from roofline_flows import rtl_mutants_yosys, synth

pytestmark = pytest.mark.full  # gate level, synthesis and place and route, mutants: make test-all

needs_yosys = pytest.mark.skipif(not yosys_available(), reason="no Yosys: apt-get install yosys, or pip install -e .[eda]")
SMALL_SET = PARAM_SETS[2]


@needs_yosys
@pytest.mark.sim
@pytest.mark.parametrize("top", GATE_LEVEL_TOPS)
def test_the_gate_level_netlist_passes_the_same_bench(top: str, seed: int) -> None:
    result = run_bench(BenchConfig(top, "icarus", SMALL_SET, seed, sweep=300, gates=True))
    assert result.failed == 0 and result.passed > 0, "\n\n".join(result.failures)
    assert result.build_dir.name.endswith("-gates")


@needs_yosys
@pytest.mark.parametrize("top", synth.SYNTH_TOPS)
def test_every_module_synthesizes_cleanly_at_the_small_format(top: str, tmp_path: Path) -> None:
    files = " ".join(str(p) for p in rtl_sources())
    outcome = synth.generic(top, "small", synth.SMALL_SET, tmp_path, files)
    assert outcome.ok, outcome.problem
    assert outcome.cells.get("total", 0) > 0


@needs_yosys
def test_a_latch_fails_synthesis(tmp_path: Path) -> None:
    source = (RTL_DIR / "roofline_round_cap.sv").read_text()
    latchy = source.replace(
        "  assign cap_o             = mem_bound_o ? rounded_sum[ROUND_W-1:FRAC_BITS] : peak_i;",
        "  always @* if (mem_bound_o) cap_o = rounded_sum[ROUND_W-1:FRAC_BITS];",
    )
    assert latchy != source
    (tmp_path / "roofline_round_cap.sv").write_text(latchy)
    files = " ".join(str(p) for p in rtl_sources(str(tmp_path / "roofline_round_cap.sv")))
    outcome = synth.generic("roofline_attainable", "small", synth.SMALL_SET, tmp_path, files)
    assert not outcome.ok and "latch" in outcome.problem


@needs_yosys
def test_mechanical_mutants_are_judged_by_bench_then_sat(tmp_path: Path) -> None:
    original, detail = rtl_mutants_yosys.baseline("roofline_attainable", seed=3)
    assert original is not None, detail
    listed = rtl_mutants_yosys.list_mutations("roofline_attainable", 4, 3, tmp_path)
    assert len(listed) == 4 and all(m.command.startswith("mutate -mode ") for m in listed)
    same, _ = rtl_mutants_yosys.equivalent("roofline_attainable", original, original)
    assert same
    broken = tmp_path / "roofline_attainable.v"
    broken.write_text(original.read_text().replace("assign mem_bound_o =", "assign mem_bound_o = ~"))
    same, why = rtl_mutants_yosys.equivalent("roofline_attainable", original, broken)
    assert not same and "differs from the original at" in why


@needs_yosys
def test_sequential_survivors_are_judged_by_induction_or_a_trace_from_reset(tmp_path: Path) -> None:
    top = "roofline_hierarchy_pipe"
    original, detail = rtl_mutants_yosys.baseline(top, seed=3)
    assert original is not None, detail
    text = original.read_text()
    same_but_written_apart = tmp_path / "same" / f"{top}.v"
    same_but_written_apart.parent.mkdir()
    assert "s1_peak <= peak_i;" in text
    same_but_written_apart.write_text(text.replace("s1_peak <= peak_i;", "s1_peak <= ~(~peak_i);"))
    same, why = rtl_mutants_yosys.equivalent(top, original, same_but_written_apart)
    assert same and "equiv_induct" in why
    valid_out_of_reset = tmp_path / "valid" / f"{top}.v"
    valid_out_of_reset.parent.mkdir()
    assert text.count("valid_q <= 4'h0;") == 1
    valid_out_of_reset.write_text(text.replace("valid_q <= 4'h0;", "valid_q <= 4'h8;"))
    same, why = rtl_mutants_yosys.equivalent(top, original, valid_out_of_reset)
    assert not same and why.startswith("differs from the original after reset: clock 1:"), why


@pytest.mark.parametrize("eda", ["native", "yowasp"])
def test_both_toolchains_synthesize_and_place(eda: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pip (WebAssembly) tools and native ones on PATH both run the flows (ROOFLINE_EDA= picks)."""
    monkeypatch.setenv("ROOFLINE_EDA", eda)
    if not yosys_available() or not tool_available("nextpnr-ice40"):
        pytest.skip(f"no {eda} Yosys or nextpnr-ice40 here")
    command = yosys_command()
    assert (command == ["yosys"]) == (eda == "native")
    files = " ".join(str(p) for p in rtl_sources())
    outcome = synth.generic("roofline_attainable", "small", synth.SMALL_SET, tmp_path, files)
    assert outcome.ok and outcome.cells.get("total", 0) > 0, outcome.problem
    routed = synth.place_and_route("roofline_attainable", "small", synth.SMALL_SET, "hx8k", tmp_path, files, 50)
    assert routed.ok and synth.lut_count(routed.cells) > 100 and routed.fmax_mhz, routed.problem
    assert (eda_command("nextpnr-ice40") == ["nextpnr-ice40"]) == (eda == "native")


def test_pip_yosys_keeps_its_temporary_files_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """WebAssembly Yosys names ABC's folders from a counter, so runs at once must not share one /tmp."""
    monkeypatch.setenv("ROOFLINE_EDA", "yowasp")
    if not yosys_available():
        pytest.skip("no pip Yosys here")
    files = " ".join(str(RTL_DIR / f"{stem}.sv") for stem in sources_of(["roofline_round_cap"]))
    script = (f"read_verilog -sv {files}; chparam -set INT_BITS 4 -set FRAC_BITS 4 "
              "roofline_round_cap; synth -noabc -top roofline_round_cap; abc -g AND -showtmp")
    run = subprocess.run([*yosys_command(), "-p", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    folder = re.search(r"`(/tmp/roofline-yowasp-\w+)/yosys-abc-\d+/input\.blif'", run.stdout)
    assert folder, run.stdout[-2000:]
    assert not Path(folder.group(1)).exists()  # removed when the tool exits
