"""SymbiYosys proofs on the pip-installed tools. Every harness attaches by the unit's ports, so
make prove checks a drop-in: an independent implementation proves, a broken one fails with a
decoded counterexample and a waveform, one whose ports differ cannot attach, and a task with no
property from flows/formal fails instead of passing vacuously. `make prove` runs every task."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from places import INDEPENDENT_DIR

from roofline_core.contract import MODULES, modules_with
from roofline_core.paths import RTL_DIR
from roofline_core.tools import ToolError
from roofline_flows import counterexamples, prove, sby
from roofline_flows.rtl_mutant_catalogue import ridge_mutant_edit

TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
INDEPENDENT = INDEPENDENT_DIR
# make test proves the units whose tasks close in a few seconds; make test-all adds the slower
# control tasks and covers; the data tasks (minutes each) run in make prove.
EVERYDAY = [name for name in TASKS if name.startswith(("roofline_round_cap.", "roofline_div_step."))
            or name in ("roofline_attainable.verdict", "roofline_hierarchy.cap_le_peak",
                        "roofline_binding.matches_the_pairwise_rule_l3", "roofline_pipe_reg.prove_width1",
                        "roofline_pipe_reg.sink_waits_width8")]
FULL = ["roofline_attainable.cap_le_peak", "roofline_attainable.cap_is_a_term", "roofline_hierarchy.binding_cap_is_the_lowest",
        "roofline_binding.matches_the_pairwise_rule_l4", "roofline_hierarchy.matches_the_spec", "roofline_hierarchy.cover",
        "roofline_pipe_reg.cover_width4",
        "roofline_pipe_reg.full_rate_width8", "roofline_intensity.control_uq24_16_c64", "roofline_intensity.cover_uq2_2_c5",
        "roofline_counts.control_uq24_16_l3_c64", "roofline_hierarchy_pipe.control_uq24_16_l3_mul1",
        "roofline_hierarchy_pipe.cover_uq2_2_l2_mul1"]


@pytest.fixture(scope="module")
def command() -> list[str]:
    try:
        return sby.toolchain()[0]
    except ToolError as problem:
        pytest.skip(str(problem))


def broken_copy(tmp_path: Path, file: str, original: str, broken: str) -> Path:
    source = (RTL_DIR / file).read_text()
    assert source.count(original) == 1, original
    mutant = tmp_path / "rtl" / file
    mutant.parent.mkdir(exist_ok=True)
    mutant.write_text(source.replace(original, broken))
    return mutant


def test_every_unit_the_table_proves_has_a_proof_and_each_sequential_one_covers() -> None:
    units = {t.unit for t in TASKS.values()}
    assert units == set(modules_with("prove"))
    for unit in units:
        modes = {t.mode for t in TASKS.values() if t.unit == unit}
        assert {"prove", "cover"} <= modes if MODULES[unit].clocked else "prove" in modes, unit
    assert any(t.params.get("INT_BITS") == 24 and t.params.get("FRAC_BITS") == 16 for t in TASKS.values())
    assert set(EVERYDAY + FULL) <= set(TASKS)


def test_no_harness_is_included_by_the_rtl() -> None:
    """The properties attach from outside: no RTL file pulls them in."""
    for path in RTL_DIR.glob("*.sv"):
        assert "ROOFLINE_FORMAL" not in path.read_text() and "`include" not in path.read_text(), path.name


@pytest.mark.parametrize("name", [*EVERYDAY, *(pytest.param(n, marks=pytest.mark.full) for n in FULL)])
def test_the_task_passes_on_the_project_rtl_with_its_invariants(name: str, command: list[str], tmp_path: Path) -> None:
    outcome = sby.run(TASKS[name], tmp_path, command, timeout=600)
    assert outcome.passed and not outcome.bounded, "\n".join([outcome.summary, *outcome.detail])
    assert outcome.attachment is not None and not outcome.attachment.drop_in and outcome.attachment.properties > 0
    if TASKS[name].unit in ("roofline_intensity", "roofline_counts", "roofline_hierarchy_pipe") and TASKS[name].mode == "prove":
        assert outcome.attachment.probes, "the project's RTL must carry the invariants its induction needs"
    if TASKS[name].mode == "cover":
        assert int(outcome.summary.split()[0]) >= 3


def test_an_independent_pipe_reg_proves_by_its_ports_alone(command: list[str], tmp_path: Path) -> None:
    outcome = sby.run(TASKS["roofline_pipe_reg.prove_width1"], tmp_path, command, timeout=600,
                      drop_in=str(INDEPENDENT / "roofline_pipe_reg.sv"))
    assert outcome.passed and not outcome.bounded, "\n".join([outcome.summary, *outcome.detail])
    assert outcome.attachment is not None and outcome.attachment.drop_in and not outcome.attachment.probes
    assert outcome.summary.startswith("k-induction")


@pytest.mark.full
def test_an_independent_hierarchy_pipe_is_checked_by_its_ports(command: list[str], tmp_path: Path) -> None:
    """Its registers are not the project's, so no invariant attaches: bounded from reset, never PROVED."""
    outcome = sby.run(TASKS["roofline_hierarchy_pipe.control_uq24_16_l3_mul1"], tmp_path, command, timeout=900,
                      drop_in=str(INDEPENDENT / "roofline_hierarchy_pipe.sv"))
    assert outcome.passed, "\n".join([outcome.summary, *outcome.detail])
    assert outcome.attachment is not None and outcome.attachment.drop_in and outcome.attachment.missing
    assert outcome.bounded and outcome.verdict == "BOUNDED" and "cycles from reset" in outcome.summary, outcome.summary


@pytest.mark.parametrize(("name", "file", "original", "broken", "failing"), [
    pytest.param("roofline_hierarchy_pipe.control_uq24_16_l3_mul1", "roofline_hierarchy_pipe.sv",
                 "assign advance     = !valid_q[STAGES-1] || out_ready_i;", "assign advance     = out_ready_i;",
                 "roofline_stream.sv", id="pipe-ready-waits-for-the-sink", marks=pytest.mark.full),
    pytest.param("roofline_pipe_reg.prove_width1", "roofline_pipe_reg.sv",
                 "assign ready_o = !valid_q || ready_i;", "assign ready_o = ready_i;",
                 "roofline_stream.sv", id="register-ready-ignores-its-state"),
    pytest.param("roofline_pipe_reg.prove_width1", "roofline_pipe_reg.sv",
                 "    if (ready_o && valid_i) begin", "    if (valid_i) begin",
                 "props_pipe_reg.sv|roofline_valid_ready.sv", id="register-loads-while-full"),
    pytest.param("roofline_intensity.control_uq4_4_c8", "roofline_intensity.sv",  # done one cycle early
                 "LAST_STEP = STEP_W'(1);", "LAST_STEP = STEP_W'(2);", "props_intensity.sv", id="intensity-done-early",
                 marks=pytest.mark.full),
])
def test_a_broken_handshake_fails_its_proof_with_a_decoded_counterexample(
        name: str, file: str, original: str, broken: str, failing: str, command: list[str], tmp_path: Path) -> None:
    mutant = broken_copy(tmp_path, file, original, broken)
    outcome = sby.run(TASKS[name], tmp_path / "work", command, timeout=600, drop_in=str(mutant))
    assert not outcome.passed and outcome.summary == "assertion fails", outcome
    text = "\n".join(outcome.detail)
    assert any(f"failed: {file}:" in text for file in failing.split("|")), text
    assert "counterexample, inputs at each clock" in text and "clock 1:" in text, text
    waveform = next(line.removeprefix("waveform: ") for line in outcome.detail if line.startswith("waveform: "))
    assert Path(waveform).is_file()
    if "hierarchy" in name:
        assert "peak_i=" in text and "out_ready_i=0" in text, text  # the sink not ready


def test_a_drop_in_whose_ports_differ_cannot_attach(command: list[str], tmp_path: Path) -> None:
    port = "output logic             ready_o,"
    renamed = broken_copy(tmp_path, "roofline_pipe_reg.sv", port, port.replace("ready_o", "rdy_o"))
    renamed.write_text(renamed.read_text().replace("assign ready_o", "assign rdy_o").replace("ready_o &&", "rdy_o &&")
                       .replace("end else if (ready_o)", "end else if (rdy_o)"))
    outcome = sby.run(TASKS["roofline_pipe_reg.prove_width1"], tmp_path / "work", command, timeout=300, drop_in=str(renamed))
    assert not outcome.passed and outcome.summary == "cannot attach", outcome
    assert "no port ready_o" in outcome.detail[0] and "rdy_o" in outcome.detail[0], outcome.detail


def test_a_task_with_no_property_from_flows_formal_fails(command: list[str], tmp_path: Path) -> None:
    """A harness that instantiates the unit and checks nothing must not pass."""
    silent = tmp_path / "props_silent.sv"
    silent.write_text("module props_silent (input logic clk_i, rst_ni, valid_i, ready_i, input logic [0:0] data_i);\n"
                      "  logic ready_o, valid_o; logic [0:0] data_o;\n"
                      "  roofline_pipe_reg dut (.clk_i, .rst_ni, .valid_i, .ready_o, .data_i, .valid_o, .ready_i, .data_o);\n"
                      "endmodule\n")
    folder = tmp_path / "sby"
    folder.mkdir()
    (folder / "roofline_pipe_reg.sby").write_text(
        "[tasks]\nsilent\n\n[options]\nmode prove\ndepth 2\n\n[engines]\nsmtbmc z3\n\n[script]\n"
        "read_verilog -sv -formal roofline_param_check.sv roofline_pipe_reg.sv props_silent.sv\nprep -top props_silent\n\n"
        f"[files]\n{RTL_DIR / 'roofline_param_check.sv'}\n{RTL_DIR / 'roofline_pipe_reg.sv'}\n{silent}\n")
    (task,) = sby.tasks(folder)
    outcome = sby.run(task, tmp_path / "work", command, timeout=300)
    assert not outcome.passed and outcome.summary == "cannot attach", outcome
    assert "no assertion from flows/formal attached" in outcome.detail[0], outcome.detail


def test_the_ridge_bug_fails_the_verdict_with_the_inputs_in_units(command: list[str], tmp_path: Path) -> None:
    mutant = broken_copy(tmp_path, *ridge_mutant_edit())
    outcome = sby.run(TASKS["roofline_round_cap.verdict"], tmp_path / "work", command, timeout=300, drop_in=str(mutant))
    assert not outcome.passed and outcome.summary == "assertion fails", outcome
    text = "\n".join(outcome.detail)
    assert "failed: props_round_cap.sv:" in text and "counterexample, the inputs:" in text, text
    assert "peak_i=0x" in text and "GFLOP/s" in text and "product_i=0x" in text and "(ai*bw = " in text, text
    assert Path(next(line for line in outcome.detail if line.startswith("waveform: ")).split(": ", 1)[1]).is_file()


def test_a_printed_rerun_line_carries_the_drop_in_and_the_options() -> None:
    outcome = sby.Outcome(TASKS["roofline_pipe_reg.prove_width1"], False, 1.0, "assertion fails")
    args = argparse.Namespace(rtl="my/rtl dir", timeout=120.0, no_probes=True)
    line = prove.rerun_line(outcome, args)
    assert line == 'make prove ARGS="-k roofline_pipe_reg.prove_width1 --timeout 120 --no-probes" RTL="my/rtl dir"'
    assert prove.rerun_line(outcome, argparse.Namespace(rtl=None, timeout=prove.DEFAULT_TIMEOUT, no_probes=False)) == \
        'make prove ARGS="-k roofline_pipe_reg.prove_width1"'


def test_within_skips_the_slow_tasks_by_the_recorded_times_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = tmp_path / "prove-times.json"
    recorded.write_text('{"roofline_round_cap.verdict": 2.0, "roofline_round_cap.cap_le_peak": 900.0,'
                        ' "roofline_round_cap.cap_is_a_term": 700.0}')
    monkeypatch.setattr(prove, "RECORDED_TIMES", recorded)
    assert prove.main(["-k", "roofline_round_cap.", "--within", "60"]) == 0
    out = capsys.readouterr().out
    assert "PROVED roofline_round_cap.verdict" in out and "PROVED roofline_round_cap.cap_le_peak" not in out
    assert "not run (over 60 s each in the last complete run; make prove runs them): roofline_round_cap.cap_le_peak, " \
           "roofline_round_cap.cap_is_a_term" in out
    assert out.rstrip().endswith("make prove: 1 passed, 0 failed, 2 not run (--within 60)")
    assert recorded.read_text().count(":") == 3  # a partial run leaves the record alone


def test_within_that_leaves_nothing_to_prove_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    recorded = tmp_path / "prove-times.json"
    recorded.write_text('{"roofline_round_cap.verdict": 90.0}')
    monkeypatch.setattr(prove, "RECORDED_TIMES", recorded)
    assert prove.main(["-k", "roofline_round_cap.verdict", "--within", "60"]) == 2
    assert "nothing to prove" in capsys.readouterr().err
    assert prove.main(["--within", "-1"]) == 2
    assert capsys.readouterr().err == "error: --within -1: a number of seconds, 0 or more\n"


def test_the_recorded_times_name_every_task_once() -> None:
    """flows/results/prove-times.json is what CI's make prove --within chooses by: every task of
    make prove, each with the seconds of the last complete run."""
    recorded = json.loads(prove.RECORDED_TIMES.read_text())
    assert set(recorded) == set(TASKS) and all(seconds > 0 for seconds in recorded.values())


def lemma_task(name: str = "roofline_hierarchy_pipe.data_uq2_2_l2_mul3") -> sby.Task:
    """A small data task of the pipe with the tree lemma, as data_uq4_4_l2_mul4 has it: UQ2.2 at
    MUL_STAGES 3 proves in seconds."""
    return dataclasses.replace(TASKS[name], lemma="lemma_tree_product")


def test_the_tree_task_relies_on_its_lemma_and_its_spec_on_the_tree() -> None:
    tree = TASKS["roofline_hierarchy_pipe.data_uq4_4_l2_mul4"]
    assert tree.lemma == "lemma_tree_product" and "verilog_defines -DPROP_TREE" in tree.script
    assert not any(line.startswith("lemma ") for line in tree.options), "make prove's option must not reach sby"
    assert all(not t.lemma for t in TASKS.values() if "verilog_defines -DPROP_TREE" not in t.script)


def test_a_lemma_is_proved_for_every_input_before_its_task(command: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sby, "_PROVED_LEMMAS", {})  # proved here, not remembered from another test
    closed, summary, detail = sby.prove_lemma(lemma_task(), tmp_path, command, timeout=300)
    assert closed and summary.startswith("lemma lemma_tree_product (flows/formal/lemma_tree_product.sv) proved ("), summary
    assert detail == []
    staged = (tmp_path / "roofline_hierarchy_pipe_data_uq2_2_l2_mul3_lemma_tree_product.sby").read_text()
    assert "chparam -set INT_BITS 2 -set FRAC_BITS 2 -set MUL_STAGES 3 lemma_tree_product" in staged  # not LEVELS
    assert "mode prove" in staged and "select -assert-min 1" in staged
    assert sby.prove_lemma(lemma_task(), tmp_path / "again", command, timeout=300) == (True, summary, [])
    assert not (tmp_path / "again").exists()  # once proved, the same lemma on the same texts is not proved again


@pytest.mark.parametrize(("original", "broken"), [
    ("<< (CHUNK_W << (t - 1))", "<< (CHUNK_W << t)"),     # the tree's shift one stage off
    ("(2*W)'(ai) * (2*W)'(bw)", "(2*W)'(ai) * (2*W)'(bw) + (2*W)'(ai == '1)"),  # the lemma's own statement wrong
])
def test_a_lemma_that_fails_leaves_its_task_without_a_verdict(original: str, broken: str, command: list[str],
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose harness relies on a false lemma proves nothing: it fails before it runs, with
    the lemma's failing line and trace, and that failure is never a mutant's kill."""
    formal = tmp_path / "formal"
    shutil.copytree(sby.FORMAL_DIR, formal)
    for file in ("roofline_spec.sv", "lemma_tree_product.sv"):
        text = (formal / file).read_text()
        if original in text:
            assert text.count(original) == 1
            (formal / file).write_text(text.replace(original, broken))
            break
    else:
        raise AssertionError(original)
    monkeypatch.setattr(sby, "FORMAL_DIR", formal)
    outcome = sby.run(lemma_task(), tmp_path / "work", command, timeout=300)
    assert not outcome.passed and outcome.summary == "lemma fails", outcome
    assert outcome.detail[0].endswith("does not hold, so the task's harness proves nothing: no verdict on the design")
    assert any(line.startswith("failed: lemma_tree_product.sv:") for line in outcome.detail), outcome.detail
    assert any(line.startswith("waveform: ") and line.endswith(".vcd") for line in outcome.detail), outcome.detail
    assert not (tmp_path / "work" / "roofline_hierarchy_pipe_data_uq2_2_l2_mul3.sby").exists()  # the task never ran
    assert counterexamples.from_outcome(outcome) is None


def test_a_lemma_with_no_assertion_is_an_error_not_a_proof(command: list[str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    formal = tmp_path / "formal"
    shutil.copytree(sby.FORMAL_DIR, formal)
    lemma = formal / "lemma_tree_product.sv"
    statement = "always_comb assert (product == (2*W)'(ai) * (2*W)'(bw));"
    assert lemma.read_text().count(statement) == 1
    lemma.write_text(lemma.read_text().replace(statement, "wire unused_check = product == (2*W)'(ai) * (2*W)'(bw);"))
    monkeypatch.setattr(sby, "FORMAL_DIR", formal)
    closed, summary, detail = sby.prove_lemma(lemma_task(), tmp_path / "work", command, timeout=300)
    assert not closed and summary == "lemma: ERROR", (summary, detail)
    assert any("select" in line or "assert" in line for line in detail[1:]), detail
