"""A design lab graded end to end: a ridge bug loses only its vectors, is named, hinted and reruns;
all-or-nothing scoring; no hidden simulation alive beside a visible one."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from commands import run_command
from real_grading import LAB1_FILES, SLOT, grade, needs_sandbox, reference_copy  # noqa: F401

from roofline_bench.tape import Reply
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Verdict
from roofline_course.design_lab import grade as grading
from roofline_course.design_lab import judge
from roofline_course.intake.precheck import Precheck
from roofline_course.labs.definitions import load_lab
from roofline_flows.rtl_mutant_catalogue import ridge_mutant_edit
from roofline_golden import cases, fixed
from roofline_golden.cases import Params

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all



@needs_sandbox
@pytest.mark.sim
def test_a_ridge_bug_loses_only_its_vectors_is_named_hinted_and_reruns(tmp_path: Path) -> None:
    buggy = reference_copy(tmp_path / "ridge", ridge_mutant_edit())
    code, result, stdout = grade(buggy, tmp_path / "out", "--visible-only")
    assert code == 1 and stdout.splitlines()[-1].startswith("graded:") and "fewer than full marks (exit 1)" in stdout
    document = next(g for g in result["groups"] if g["name"] == "document cases")
    assert document["failing"] == ["document_cases: calculator_check_2_ridge"]
    # Proportional, beyond chance: 9 of the 10 cases pass, and the commonest expected output (the
    # golden model's) is shared by `same` of them, which a constant design would pass.
    wants = [fixed.attainable(v.params.fmt, v.peak, v.bws[0], v.ais[0]) for v in lab1_document_vectors()]
    outputs = [(want.cap, int(want.mem_bound)) for want in wants]
    same = max(outputs.count(o) for o in outputs) / len(outputs)
    assert document["score"] == round(document["weight"] * (9 / 10 - same) / (1 - same), 1), document  # to a tenth
    assert any("hint (ridge tie)" in line for line in document["detail"])
    rerun = re.search(r"rerun: (make sim [^\n]*ONLY=calculator_check_2_ridge[^\n]*)", stdout)
    assert rerun, stdout
    words = rerun[1].split()[2:]
    run = run_command(["make", "-s", "sim", *words])
    assert run.returncode != 0 and "calculator_check_2_ridge" in run.stdout and "1 checked, 1 failed" in run.stdout


@dataclass(frozen=True)
class RatesVector:
    params: Params
    peak: int
    bws: tuple[int, ...]
    ais: tuple[int, ...]


def lab1_document_vectors() -> list[RatesVector]:
    """Lab 1's document cases, one vector per level, as the golden model states them."""
    params = ParamSet().params
    vectors = []
    for case in cases.load_cases():
        if case.group == "document" and case.has_rates:
            rated = cases.rates(case, params)
            vectors += [RatesVector(params, rated.peak, (rated.bws[i],), (rated.ais[i],)) for i in range(rated.used_levels)]
    return vectors


def test_all_or_nothing_scoring_is_the_instructors_choice() -> None:
    lab = load_lab(1)
    group = next(g for g in lab.groups if g.name == "edge cases")
    one_failed = Verdict("edge_cases", checked=16, failed=("zero_peak",), planned=16, reports=("MISMATCH",))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    proportional = judge.score(lab, group, {"edge_cases": one_failed}, Reply(), facts, "make sim")
    strict = judge.score(lab, replace(group, scoring="all-or-nothing"), {"edge_cases": one_failed}, Reply(), facts, "make sim")
    assert proportional.score == pytest.approx(group.weight * 15 / 16) and strict.score == 0
    assert proportional.failing == ["edge_cases: zero_peak"] and (proportional.status, strict.status) == ("partial", "fail")


def test_no_hidden_simulation_is_alive_beside_a_visible_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every visible batch ends before the first hidden one starts, however many run at once."""
    import threading
    import time

    lab = load_lab(4)
    events: list[tuple[str, bool, float]] = []
    lock = threading.Lock()

    def fake_batch(lab_, batch, check, rtl, settings, out, earlier, timeout):  # noqa: ANN001, ANN202
        with lock:
            events.append(("start", batch[0].hidden, time.monotonic()))
        time.sleep(0.05)
        with lock:
            events.append(("end", batch[0].hidden, time.monotonic()))
        return [grading.GroupScore(group, group.weight, "pass") for group in batch]

    monkeypatch.setattr(grading, "grade_batch", fake_batch)
    monkeypatch.setattr(grading, "precheck", lambda *args, **kwargs: Precheck("ok"))
    grading.grade(lab, "x", tmp_path, grading.Settings(parallel=4), progress=False)
    visible_end = max(t for what, hidden, t in events if what == "end" and not hidden)
    hidden_start = min(t for what, hidden, t in events if what == "start" and hidden)
    assert sum(1 for what, hidden, _ in events if what == "start" and hidden) >= 2  # several hidden batches ran
    assert visible_end <= hidden_start, events
