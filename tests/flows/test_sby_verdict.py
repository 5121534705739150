"""sby.run's verdict from what SymbiYosys printed, with no solver (tests/flows/test_sby.py runs the
real ones): PROVED only when k-induction closed; a BMC task with no failure to its depth is BOUNDED,
never PROVED; an induction that does not close on a drop-in
checked by its ports alone is BOUNDED, never PROVED; on the project's RTL, or with the invariants
attached, it is a failure; a timeout, an error or an output with no verdict never passes, and a
cover task passes only when every cover is reached."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from roofline_core.paths import RTL_DIR
from roofline_flows import sby

TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
PROVE = TASKS["roofline_intensity.data_uq2_2_c5"]  # k-induction, with a ports-only depth of its own
COVER = TASKS["roofline_intensity.cover_uq2_2_c5"]
BMC = TASKS["roofline_counts.data_uq1_1_l2_c2"]  # mode bmc: no induction, a depth of cycles from reset
PROJECT = RTL_DIR / "roofline_intensity.sv"
BASECASE_PASSED = "summary: engine_0 (smtbmc z3) returned pass for basecase\n"
NOT_CLOSED = BASECASE_PASSED + "engine_0: ##   0:00:01  Status: failed\nDONE (UNKNOWN, rc=4)\n"


def outcome(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, task: sby.Task, printed: str, design: Path = PROJECT,
            probes: tuple[str, ...] = (), timeout: bool = False) -> sby.Outcome:
    lacking = [] if probes or design.is_relative_to(RTL_DIR) else ["probe_count"]  # a drop-in without the invariants
    attachment = sby.Attachment(design, list(probes), lacking, properties=3)
    monkeypatch.setattr(sby, "attach", lambda *args, **options: attachment)
    monkeypatch.setattr(sby, "staged", lambda *args: tmp_path / "task.sby")

    def ran(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        assert options.get("capture_output") is True and options.get("text") is True and 59 < options["timeout"] <= 60
        if timeout:
            raise subprocess.TimeoutExpired(argv, 60)
        return subprocess.CompletedProcess(argv, 0, printed, "")

    monkeypatch.setattr(sby.subprocess, "run", ran)
    drop_in = None if design.is_relative_to(RTL_DIR) else str(design)
    found = sby.run(task, tmp_path, ["sby"], timeout=60, drop_in=drop_in)
    assert 0 <= found.seconds < 60, found.seconds  # the task's own time, not a clock reading
    return found


def test_a_closed_induction_is_proved(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, "DONE (PASS, rc=0)\n", probes=("probe_count",))
    assert found.passed and not found.bounded and found.verdict == "PROVED"
    assert found.summary == f"k-induction, depth {PROVE.depth_for(True)}"


def test_an_induction_that_does_not_close_on_a_drop_in_by_its_ports_alone_is_bounded_never_proved(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, NOT_CLOSED, design=tmp_path / "roofline_intensity.sv")
    assert found.passed and found.bounded and found.verdict == "BOUNDED"
    assert found.summary == (f"no failure in {PROVE.depth_for(False)} cycles from reset; induction does not close with "
                             "the port properties alone (the drop-in lacks probe_count)")


@pytest.mark.parametrize("probes", [(), ("probe_count",)])
def test_a_bmc_task_with_no_failure_to_its_depth_is_bounded_never_proved(probes: tuple[str, ...],
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    assert BMC.mode == "bmc"  # the premise: the project has such a task
    found = outcome(monkeypatch, tmp_path, BMC, "DONE (PASS, rc=0)\n", design=RTL_DIR / "roofline_counts.sv",
                    probes=probes)
    assert found.passed and found.verdict == "BOUNDED"
    assert found.summary == f"no failure in {BMC.depth_for(bool(probes))} cycles from reset"
    failing = outcome(monkeypatch, tmp_path, BMC, "DONE (FAIL, rc=2)\n", design=RTL_DIR / "roofline_counts.sv")
    assert not failing.passed and failing.verdict == "FAILED"


@pytest.mark.parametrize("where", ["the project's RTL", "the project's RTL, --no-probes", "a drop-in with the invariants"])
def test_an_induction_that_does_not_close_on_the_project_rtl_or_with_the_invariants_is_a_failure(
        where: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    design = tmp_path / "roofline_intensity.sv" if "drop-in" in where else PROJECT
    probes = () if "--no-probes" in where else ("probe_count",)
    found = outcome(monkeypatch, tmp_path, PROVE, NOT_CLOSED, design=design, probes=probes)
    assert not found.passed and not found.bounded and found.verdict == "FAILED"
    assert found.summary == "induction did not close"


def test_an_induction_whose_base_case_fails_is_a_failure_even_by_the_ports_alone(monkeypatch: pytest.MonkeyPatch,
                                                                               tmp_path: Path) -> None:
    printed = "failed assertion props_intensity.sv:113.7-113.32 at step 3\nDONE (UNKNOWN, rc=4)\n"  # no passed base case
    found = outcome(monkeypatch, tmp_path, PROVE, printed, design=tmp_path / "roofline_intensity.sv")
    assert not found.passed and found.verdict == "FAILED"


@pytest.mark.parametrize("printed", ["", "DONE (ERROR, rc=16)\n", "DONE (FAIL, rc=2)\n", "PASS\n"])
def test_an_output_without_a_passing_verdict_never_passes(printed: str, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, printed, design=tmp_path / "roofline_intensity.sv")
    assert not found.passed and not found.bounded and found.verdict == "FAILED"


def test_a_timeout_never_passes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, "", timeout=True)
    assert not found.passed and found.summary == "TIMEOUT" and found.verdict == "FAILED"


def test_a_cover_passes_only_when_every_cover_is_reached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    reached = "".join(f"summary:   reached cover statement props_intensity.c{line} at props_intensity.sv:{line}.5-{line}.20 "
                      "step 4\n" for line in (200, 201))
    found = outcome(monkeypatch, tmp_path, COVER, reached + "DONE (PASS, rc=0)\n")
    assert found.passed and found.verdict == "REACHED" and found.summary == "2 covers reached"
    missed = reached + "summary:   unreached cover statement props_intensity.c202 at props_intensity.sv:202.5-202.20\n"
    found = outcome(monkeypatch, tmp_path, COVER, missed + "DONE (PASS, rc=0)\n")
    assert not found.passed and found.detail == ["cover not reached: props_intensity.sv:202.5-202.20"]


def test_a_cover_task_that_reached_nothing_is_no_pass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PASS whose output names no reached cover (a format the reader does not know) checked nothing it can show."""
    found = outcome(monkeypatch, tmp_path, COVER, "DONE (PASS, rc=0)\n")
    assert not found.passed and found.verdict == "FAILED" and found.summary == "0 covers reached"


# ---------------------------------------------------------------- a task's lemma, proved before it

TREE = TASKS["roofline_hierarchy_pipe.data_uq4_4_l2_mul4"]  # relies on lemma_tree_product


def lemma_run(monkeypatch: pytest.MonkeyPatch, printed: list[str], timeout_at: int | None = None) -> list[list[str]]:
    """sby.subprocess.run faked: the n-th call prints printed[n] (or times out at call timeout_at);
    returns the command lines it was given. The lemma's proof is the first call, the task's the second."""
    calls: list[list[str]] = []
    monkeypatch.setattr(sby, "_PROVED_LEMMAS", {})

    def ran(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(argv)
        if timeout_at == len(calls) - 1:
            raise subprocess.TimeoutExpired(argv, 60)
        return subprocess.CompletedProcess(argv, 0, printed[len(calls) - 1], "")

    monkeypatch.setattr(sby.subprocess, "run", ran)
    return calls


def tree_outcome(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> sby.Outcome:
    attachment = sby.Attachment(RTL_DIR / "roofline_hierarchy_pipe.sv", ["valid_q"], [], properties=3)
    monkeypatch.setattr(sby, "attach", lambda *args, **options: attachment)
    monkeypatch.setattr(sby, "staged", lambda *args: tmp_path / "task.sby")
    return sby.run(TREE, tmp_path / "work" / "deeper", ["sby"], timeout=60)


def test_a_proved_lemma_comes_first_and_is_named_in_the_tasks_verdict(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    calls = lemma_run(monkeypatch, ["DONE (PASS, rc=0)\n", "DONE (PASS, rc=0)\n"])
    found = tree_outcome(monkeypatch, tmp_path)
    assert found.passed and found.verdict == "PROVED" and len(calls) == 2
    assert calls[0][-1].endswith("roofline_hierarchy_pipe_data_uq4_4_l2_mul4_lemma_tree_product.sby")
    head, lemma = found.summary.split("; ")
    assert head == "k-induction, depth 2"
    seconds = float(lemma.removeprefix("lemma lemma_tree_product (flows/formal/lemma_tree_product.sv) proved (")
                    .removesuffix(" s)"))
    assert 0 <= seconds < 60  # the lemma's own time, not a clock reading


@pytest.mark.parametrize(("printed", "timeout_at", "summary"), [
    (["", ""], 0, "lemma: TIMEOUT"),
    (["summary:   failed assertion lemma_tree_product._witness_.check_assert_17 at lemma_tree_product.sv:17.15-17.68 step 0\n"
      "counterexample trace: engine_0/trace.vcd\nDONE (FAIL, rc=2)\n", ""], None, "lemma fails"),
    (["DONE (UNKNOWN, rc=4)\n", ""], None, "lemma: UNKNOWN"),
    (["ERROR: one\nERROR: two\nERROR: three\n", ""], None, "lemma: ERROR"),
])
def test_a_lemma_that_does_not_close_gives_the_task_no_verdict(printed: list[str], timeout_at: int | None, summary: str,
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = lemma_run(monkeypatch, printed, timeout_at)
    found = tree_outcome(monkeypatch, tmp_path)
    assert not found.passed and found.verdict == "FAILED" and found.summary == summary, found
    assert len(calls) == 1 and 0 <= found.seconds < 60  # the task itself never ran; the lemma's time is its time
    assert "lemma lemma_tree_product (flows/formal/lemma_tree_product.sv)" in found.detail[0]
    if summary == "lemma fails":
        folder = tmp_path / "work" / "deeper" / "roofline_hierarchy_pipe_data_uq4_4_l2_mul4_lemma_tree_product"
        assert found.detail[1:3] == ["failed: lemma_tree_product.sv:17.15-17.68", f"waveform: {folder / 'engine_0/trace.vcd'}"]
        assert not any(line.startswith("ERROR") for line in found.detail)
    if summary == "lemma: ERROR":
        assert [line for line in found.detail if line.startswith("ERROR")] == ["ERROR: two", "ERROR: three"]
    if summary != "lemma: TIMEOUT":
        assert found.detail[-1].startswith("see ") and found.detail[-1].endswith("_lemma_tree_product.log")


def test_a_task_that_cannot_attach_fails_before_any_proof(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sby, "attach", lambda *args, **options: "cannot attach the port properties: no port ready_o")
    monkeypatch.setattr(sby.subprocess, "run", lambda *args, **options: pytest.fail("no proof may run"))
    found = sby.run(PROVE, tmp_path, ["sby"], timeout=60)
    assert not found.passed and found.verdict == "FAILED" and found.summary == "cannot attach"
    assert found.detail == ["cannot attach the port properties: no port ready_o"] and 0 <= found.seconds < 60


def test_one_cover_reached_passes_and_the_summary_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """sby's output elides long lists: the reached and unreached covers are read from its summary
    file too (the folder's PASS file)."""
    folder = tmp_path / f"{COVER.unit}_{COVER.name}"
    folder.mkdir()
    (folder / "PASS").write_text("reached cover statement props_intensity.c200 at props_intensity.sv:200.5-200.20 step 4\n")
    found = outcome(monkeypatch, tmp_path, COVER, "DONE (PASS, rc=0)\n")
    assert found.passed and found.summary == "1 covers reached"
    (folder / "PASS").write_text("props_intensity._witness_.check_cover_202 at props_intensity.sv:202.5-202.20\n"
                                 "reached cover statement props_intensity.c200 at props_intensity.sv:200.5-200.20 step 4\n")
    found = outcome(monkeypatch, tmp_path, COVER, "DONE (PASS, rc=0)\n")
    assert not found.passed and found.detail == ["cover not reached: props_intensity.sv:202.5-202.20"]


def test_the_task_gets_what_is_left_of_the_timeout_after_its_lemma(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """A lemma that took 59.5 of the 60 s leaves the task the last second (at least 1 s), never more."""
    clock = [1000.0]
    monkeypatch.setattr(sby.time, "monotonic", lambda: clock[0])
    timeouts: list[float] = []
    monkeypatch.setattr(sby, "_PROVED_LEMMAS", {})

    def ran(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        timeouts.append(float(options["timeout"]))  # type: ignore[arg-type]
        clock[0] += 59.5 if len(timeouts) == 1 else 0.25
        return subprocess.CompletedProcess(argv, 0, "DONE (PASS, rc=0)\n", "")

    monkeypatch.setattr(sby.subprocess, "run", ran)
    found = tree_outcome(monkeypatch, tmp_path)
    assert found.passed and timeouts == [60.0, 1.0] and found.seconds == pytest.approx(59.75)
    clock[0], timeouts[:] = 1000.0, []
    monkeypatch.setattr(sby, "_PROVED_LEMMAS", {})
    ran_fast = ran

    def quick(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        result = ran_fast(argv, **options)
        clock[0] -= 59.0 if len(timeouts) == 1 else 0.0  # this lemma took 0.5 s
        return result

    monkeypatch.setattr(sby.subprocess, "run", quick)
    assert tree_outcome(monkeypatch, tmp_path).passed and timeouts == [60.0, 59.5]


# ---------------------------------------------------------------- what a failure shows

INVARIANT_LINE, PORT_LINE = 130, 113  # props_intensity.sv: inside `ifdef ROOFLINE_PROBES, and a port property


def failing(line: int, traces: str = "counterexample trace: engine_0/trace.vcd\n", status: str = "FAIL") -> str:
    return (f"summary:   failed assertion props_intensity._witness_.check_{line} at props_intensity.sv:{line}.7-{line}.30 "
            f"step 3\n{traces}DONE ({status}, rc=2)\n")


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []

    def decode(vcd: Path, task: sby.Task) -> list[str]:
        seen.append(vcd)
        return [f"counterexample from {vcd.name}"]

    monkeypatch.setattr(sby, "decoded_trace", decode)
    return seen


def test_a_failure_shows_its_assertion_its_decoded_trace_and_its_waveform(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                         decoded: list[Path]) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, failing(PORT_LINE), probes=("probe_count",))
    folder = tmp_path / f"{PROVE.unit}_{PROVE.name}"
    assert found.summary == "assertion fails" and found.detail == [
        f"failed: props_intensity.sv:{PORT_LINE}.7-{PORT_LINE}.30", "counterexample from trace.vcd",
        f"waveform: {folder / 'engine_0/trace.vcd'}"]
    assert decoded == [folder / "engine_0/trace.vcd"]


def test_a_base_case_trace_is_shown_instead_of_an_induction_one_and_an_absolute_path_is_kept(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, decoded: list[Path]) -> None:
    both = ("counterexample trace [induction]: engine_0/trace_induct.vcd\n"
            f"counterexample trace: {tmp_path / 'elsewhere' / 'trace.vcd'}\n")
    found = outcome(monkeypatch, tmp_path, PROVE, failing(PORT_LINE, both), probes=("probe_count",))
    assert decoded == [tmp_path / "elsewhere" / "trace.vcd"]
    assert found.detail[-1] == f"waveform: {tmp_path / 'elsewhere' / 'trace.vcd'}"
    only_induction = "counterexample trace [induction]: engine_0/trace_induct.vcd\n"
    found = outcome(monkeypatch, tmp_path, PROVE, failing(PORT_LINE, only_induction, "UNKNOWN"), probes=("probe_count",))
    assert found.detail[-1] == f"waveform: {tmp_path / f'{PROVE.unit}_{PROVE.name}' / 'engine_0/trace_induct.vcd'}"


@pytest.mark.parametrize(("line", "drop_in", "probes", "noted"), [
    (INVARIANT_LINE, True, True, True),     # a drop-in whose signals are named like the project's
    (PORT_LINE, True, True, False),         # a port property failed: a real failure, no note
    (INVARIANT_LINE, False, True, False),   # the project's own RTL: its invariants must hold
    (INVARIANT_LINE, True, False, False),   # nothing attached, so no invariant could have failed
])
def test_a_drop_in_that_fails_only_the_projects_invariants_is_told_so(line: int, drop_in: bool, probes: bool, noted: bool,
                                                                     monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                     decoded: list[Path]) -> None:
    design = tmp_path / "roofline_intensity.sv" if drop_in else PROJECT
    found = outcome(monkeypatch, tmp_path, PROVE, failing(line), design=design, probes=("probe_count",) if probes else ())
    notes = [entry for entry in found.detail if entry.startswith("note: only internal invariants failed")]
    assert bool(notes) == noted, found.detail


def test_a_failure_with_nothing_to_show_gives_the_last_errors_or_the_log(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    printed = "ERROR: one\nsome error here\nnothing\nERROR: three\nlast Error line\nDONE (ERROR, rc=16)\n"
    found = outcome(monkeypatch, tmp_path, PROVE, printed)
    assert found.detail == ["ERROR: three", "last Error line", "DONE (ERROR, rc=16)"], found.detail  # the last three
    found = outcome(monkeypatch, tmp_path, PROVE, "DONE (FAIL, rc=2)\n")
    assert found.detail == [f"see {tmp_path / f'{PROVE.unit}_{PROVE.name}.log'}"]


def test_a_bounded_drop_in_of_a_harness_with_nothing_to_probe_says_no_invariant_was_attached(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing lacking, nothing attached (the harness probes nothing): the reason names the invariants, not a lack."""
    attachment = sby.Attachment(tmp_path / "roofline_intensity.sv", [], [], properties=3)
    monkeypatch.setattr(sby, "attach", lambda *args, **options: attachment)
    monkeypatch.setattr(sby, "staged", lambda *args: tmp_path / "task.sby")
    monkeypatch.setattr(sby.subprocess, "run", lambda argv, **options: subprocess.CompletedProcess(argv, 0, NOT_CLOSED, ""))
    found = sby.run(PROVE, tmp_path, ["sby"], timeout=60, drop_in=str(tmp_path / "roofline_intensity.sv"))
    assert found.bounded and found.summary.endswith("(the project's internal invariants are not attached)"), found.summary
