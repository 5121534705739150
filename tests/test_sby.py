"""SymbiYosys proofs on the pip-installed tools: the fast tasks pass on the project's RTL, every
cover is reached, a pipeline that drops a stalled result and a rounding unit with the ridge bug
fail their proofs with a decoded counterexample and a waveform. `make prove` runs every task."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_core.contract import MODULES, modules_with
from roofline_core.paths import RTL_DIR
from roofline_core.tools import ToolError
from roofline_flows import sby
from roofline_flows.mutants import ridge_mutant_edit

TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
FAST = [name for name in TASKS if not TASKS[name].name.startswith(("data_", "equiv_"))]  # those run in make prove
# make test proves the units whose tasks close in a few seconds; the pipeline's control proofs
# and the counts cover run in make test-all.
EVERYDAY = [name for name in FAST if not name.startswith(("roofline_hierarchy_pipe.control", "roofline_counts.cover"))]


@pytest.fixture(scope="module")
def command() -> list[str]:
    try:
        return sby.toolchain()[0]
    except ToolError as problem:
        pytest.skip(str(problem))


def test_every_unit_the_table_proves_has_a_proof_and_each_sequential_one_covers() -> None:
    units = {t.unit for t in TASKS.values()}
    assert units == set(modules_with("prove"))
    for unit in units:
        modes = {t.mode for t in TASKS.values() if t.unit == unit}
        assert {"prove", "cover"} <= modes if MODULES[unit].clocked else modes == {"prove"}, unit
    assert any(t.params.get("INT_BITS") == 24 and t.params.get("FRAC_BITS") == 16 for t in TASKS.values())


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in EVERYDAY else pytest.mark.full) for n in FAST])
def test_the_task_passes(name: str, command: list[str], tmp_path: Path) -> None:
    outcome = sby.run(TASKS[name], tmp_path, command, timeout=600)
    assert outcome.passed, "\n".join([outcome.summary, *outcome.detail])
    if TASKS[name].mode == "cover":
        assert int(outcome.summary.split()[0]) >= 3


@pytest.mark.parametrize(("name", "file", "original", "broken"), [
    ("roofline_hierarchy_pipe.control_uq24_16_l3_mul1", "roofline_hierarchy_pipe.sv",
     "assign advance     = !valid_q[STAGES-1] || out_ready_i;", "assign advance     = 1'b1;"),
    ("roofline_pipe_reg.prove_width40", "roofline_pipe_reg.sv",
     "assign ready_o = !valid_q || ready_i;", "assign ready_o = 1'b1;"),
    ("roofline_intensity.control_uq4_4_c8", "roofline_intensity.sv",  # done one cycle early
     "LAST_STEP = STEP_W'(1);", "LAST_STEP = STEP_W'(2);"),
])
def test_a_broken_handshake_fails_its_proof_with_a_decoded_counterexample(
        name: str, file: str, original: str, broken: str, command: list[str], tmp_path: Path) -> None:
    source = (RTL_DIR / file).read_text()
    assert source.count(original) == 1
    mutant = tmp_path / "rtl" / file
    mutant.parent.mkdir()
    mutant.write_text(source.replace(original, broken))
    outcome = sby.run(TASKS[name], tmp_path / "work", command, timeout=600, drop_in=str(mutant))
    assert not outcome.passed and outcome.summary == "assertion fails", outcome
    text = "\n".join(outcome.detail)
    assert "failed: " in text and "_props.svh:" in text, text
    assert "counterexample, inputs at each clock" in text and "clock 1:" in text, text
    waveform = next(line.removeprefix("waveform: ") for line in outcome.detail if line.startswith("waveform: "))
    assert Path(waveform).is_file()
    if "hierarchy" in name:
        assert "peak_i=0x" in text and "GFLOP/s" in text and "out_ready_i=0" in text, text  # units, and the stall


def test_the_ridge_bug_fails_the_verdict_with_the_inputs_in_units(command: list[str], tmp_path: Path) -> None:
    file, original, broken = ridge_mutant_edit()
    mutant = tmp_path / "rtl" / file
    mutant.parent.mkdir()
    mutant.write_text((RTL_DIR / file).read_text().replace(original, broken))
    outcome = sby.run(TASKS["roofline_round_cap.verdict"], tmp_path / "work", command, timeout=300, drop_in=str(mutant))
    assert not outcome.passed and outcome.summary == "assertion fails", outcome
    text = "\n".join(outcome.detail)
    assert "failed: props_round_cap.sv:" in text and "counterexample, the inputs:" in text, text
    assert "peak_i=0x" in text and "GFLOP/s" in text and "product_i=0x" in text and "(ai*bw = " in text, text
    assert Path(next(line for line in outcome.detail if line.startswith("waveform: ")).split(": ", 1)[1]).is_file()
