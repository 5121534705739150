"""The scoreboard's counts, verdict and credit, by hand (make mutation's tests for core/roofline_core/scoreboard.py).

A test passes only when it checked something and nothing failed or stopped it; its credit is the share of the
cases it meant to check that passed, beyond what constant outputs pass (0 for a design that computes nothing),
short of 1 when an event broke; at most MAX_REPORTS reports and MAX_FAILURES_KEPT failures are kept, every
failure is counted; each report carries a rerun line (ONLY= the vector, none for an event). The numbers below
are that arithmetic, done by hand.
"""

from __future__ import annotations

import logging

import pytest

from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import (
    DOCUMENTS,
    MAX_REPORTS,
    Failure,
    Field,
    Scoreboard,
    Verdict,
    binding_text,
    failing_line,
    selected,
)

CFG = BenchConfig("roofline_attainable", "icarus", ParamSet(), 42)
RERUN = "make sim TOP=roofline_attainable SIM=icarus"


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno == logging.ERROR:
            self.errors.append(record.getMessage())


def board(test: str = "t_cases") -> tuple[Scoreboard, Recorder]:
    log = logging.getLogger(f"scoreboard-mutants-{test}")
    recorder = Recorder()
    log.handlers[:] = [recorder]
    log.propagate = False
    return Scoreboard(CFG, test, log), recorder


def good(value: int = 5) -> list[Field]:
    return [Field("cap_o", value, value, "GFLOP/s"), Field("mem_bound_o", 1, 1)]


def bad(value: int = 5) -> list[Field]:
    return [Field("cap_o", value, value + 1, "GFLOP/s"), Field("mem_bound_o", 1, 1), Field("binding_o", 0, 2, "index")]


def verdict(checked: int, failed: tuple[str, ...] = (), planned: int = 0, **given: object) -> Verdict:
    return Verdict("t", checked, failed, planned, (), **given)


# ---------------------------------------------------------------- a check and a failure


def test_a_field_is_right_when_its_actual_value_is_the_expected_one() -> None:
    assert Field("x", 3, 3).ok and not Field("x", 3, 4).ok and Field("x", 0, 0).decode == "bit"


def test_a_passing_check_is_counted_and_leaves_no_failure_or_report() -> None:
    sb, log = board()
    called = []
    assert sb.check(0, "ridge", lambda: called.append(1) or ["x"], good()) is True
    assert (sb.checked, sb.failed, sb.order, sb.reports, sb.failures, dict(sb.kinds), called, log.errors) == (
        1, set(), [], [], [], {}, [], [])
    assert sb.expected == {(5, 1): 1}


def test_a_failing_check_records_the_vector_once_each_differing_output_and_a_report_with_its_rerun_line() -> None:
    sb, log = board()
    assert sb.check(7, "ridge", ["peak 1"], bad(), context=lambda: ["math"], regimes=lambda: ("ridge",)) is False
    assert (sb.checked, sb.failed, sb.order, dict(sb.kinds)) == (1, {"7"}, ["7"], {"mismatch": 1})
    assert sb.failures == [Failure("7", "ridge", "mismatch", (("cap_o", 5, 6), ("binding_o", 0, 2)), ("ridge",))]
    (report,) = sb.reports
    assert report == log.errors[0]
    assert report.startswith("MISMATCH roofline_attainable [t_cases 7: ridge] UQ24.16, icarus\n  inputs  : peak 1\n")
    assert "  binding_o   expected 0  actual 2   <-- differs" in report and "  mem_bound_o expected 1  actual 1\n" in report
    assert "\n  math\n" in report
    assert report.endswith(f"  seed 42 | rerun: {RERUN} " + " ".join(
        f"{k}={v}" for k, v in ParamSet().for_module("roofline_attainable").items()) + " SEED=42 TESTCASE=t_cases ONLY=7")
    assert sb.check(7, "ridge", ["peak 1"], bad()) is False and sb.order == ["7"] and sb.kinds["mismatch"] == 2
    assert sb.failures[1].regimes == ()  # no regimes given: none recorded


def test_only_the_first_five_reports_are_made_and_every_failure_is_counted() -> None:
    sb, log = board()
    made = []
    for vector in range(8):
        sb.check(vector, "v", lambda v=vector: made.append(v) or [str(v)], bad())
    sb.fail("e", "an event", kind="pulse", event=True)
    assert (len(sb.reports), len(log.errors), made) == (5, 5, [0, 1, 2, 3, 4])
    assert (sb.checked, len(sb.failed), sb.kinds["mismatch"], sb.kinds["pulse"]) == (8, 9, 8, 1)


def test_the_first_two_hundred_failures_are_kept_as_data() -> None:
    sb, _ = board()
    for vector in range(201):
        sb.check(vector, "v", [], bad())
    assert len(sb.failures) == 200 and sb.failures[-1].vector_id == "199" and len(sb.failed) == 201


def test_expected_outputs_are_counted_without_the_documents_fields_and_not_at_all_for_a_non_value_check() -> None:
    sb, _ = board()
    sb.check(0, "v", [], [Field("cap_o", 5, 5), Field(f"verdict {DOCUMENTS[1]}", 1, 1)])
    sb.check(1, "v", [], [Field("cap_o", 9, 9)], values=False)
    sb.expect((5,), count=3)
    assert sb.expected == {(5,): 4} and sb.checked == 2


@pytest.mark.parametrize(("event", "kind", "only", "unchecked", "events"), [
    (False, "timeout", " ONLY=3", ["3"], []), (True, "timeout", "", [], ["3"]),
    (False, "latency", " ONLY=3", [], []), (True, "reset", "", [], ["3"]),
])
def test_a_failure_that_is_not_a_mismatch(event: bool, kind: str, only: str, unchecked: list[str], events: list[str]) -> None:
    sb, log = board()
    sb.fail(3, "no result", kind=kind, event=event, label="lbl", regimes=("r",))
    sb.fail(3, "no result again", kind=kind, event=event)
    assert (sb.failed, sb.order, sb.kinds[kind], sb.unchecked, sb.events) == ({"3"}, ["3"], 2, unchecked * 2, events)
    assert sb.failures[0] == Failure("3", "lbl", kind, (), ("r",))
    assert sb.reports[0] == log.errors[0]
    assert sb.reports[0].startswith("no result\n  seed 42 | rerun: make sim ") and sb.reports[0].endswith(
        f"SEED=42 TESTCASE=t_cases{only}")


def test_a_stuck_output_that_breaks_an_event_every_cycle_is_recorded_whole_and_reported_a_few_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A done_o held high fails an event at every cycle of a long test (71,385 in one lab-3 test): each is
    kept once, in order, apart from a vector of the same name that failed first, and only the reports shown
    build a rerun line."""
    sb, log = board()
    built: list[object] = []
    monkeypatch.setattr(BenchConfig, "rerun_command", lambda self, test, only=None: built.append(only) or RERUN)
    sb.fail("cycle_2", "a vector named like an event", kind="latency")
    cycles = [f"cycle_{n}" for n in range(1, 20_001)]
    for name in cycles + cycles[::-1]:
        sb.fail(name, "done_o with nothing in flight", kind="pulse", event=True)
    assert sb.events == cycles and sb.kinds["pulse"] == 40_000 and len(sb.failed) == 20_000
    assert len(sb.reports) == len(log.errors) == MAX_REPORTS and built == ["cycle_2"] + [None] * (MAX_REPORTS - 1)


def test_an_unknown_kind_of_failure_is_refused() -> None:
    sb, _ = board()
    with pytest.raises(ValueError, match="unknown failure kind 'bogus'"):
        sb.fail(0, "x", kind="bogus")
    assert not sb.failed and not sb.kinds


# ---------------------------------------------------------------- the verdict


def test_the_verdict_carries_the_counts_in_order_and_the_summary() -> None:
    sb, _ = board()
    sb.plan(4)
    sb.plan(2)
    for vector in (9, 2):
        sb.check(vector, "v", [], bad())
    sb.check(5, "v", [], good())
    sb.fail("cycle 7", "late", kind="latency", event=True)
    sb.fail(11, "waiting", kind="timeout")
    found = sb.verdict(stopped="simulation ended", ran_out=True)
    assert (found.test, found.checked, found.failed, found.planned) == ("t_cases", 3, ("9", "2", "cycle 7", "11"), 6)
    assert (found.stopped, found.ran_out, found.events, found.unchecked) == ("simulation ended", True, ("cycle 7",), ("11",))
    assert found.kinds == (("latency", 1), ("mismatch", 2), ("timeout", 1))
    assert found.summary == "3 checked, 4 failed (roofline_attainable, icarus, UQ24.16, seed 42)"
    assert found.failures == tuple(sb.failures) and found.reports == tuple(sb.reports)
    assert found.baseline == pytest.approx(2 / 3)  # (5, 1) came twice of three


def test_the_baseline_is_the_share_of_the_commonest_expected_output_and_zero_with_none() -> None:
    sb, _ = board()
    assert sb.verdict().baseline == 0.0
    for value in (1, 1, 1, 2):
        sb.check(value, "v", [], good(value))
    assert sb.verdict().baseline == 0.75


def test_a_test_that_checked_nothing_never_passes_and_finish_says_so() -> None:
    sb, _ = board()
    assert not sb.verdict().passed
    with pytest.raises(AssertionError, match=r"nothing was checked \(ONLY= matched nothing\?\)"):
        sb.finish()
    sb.check(0, "v", [], good())
    assert sb.verdict().passed
    sb.finish()  # everything checked passed: no exception


def test_finish_fails_with_the_summary_the_failing_names_and_the_reports() -> None:
    sb, _ = board()
    sb.check(3, "v", ["in"], bad())
    sb.check(1, "v", ["in"], good())
    with pytest.raises(AssertionError) as raised:
        sb.finish()
    text = str(raised.value)
    assert text.startswith("2 checked, 1 failed (") and "\nfailing: 3\n" in text and "first 1 shown:\n\nMISMATCH" in text
    assert "nothing was checked" not in text and "stopped:" not in text


@pytest.mark.parametrize(("made", "passed"), [
    (dict(checked=1), True), (dict(checked=0), False), (dict(checked=3, failed=("1",)), False),
    (dict(checked=3, stopped="ran out"), False),
])
def test_passed_needs_a_check_no_failure_and_no_stop(made: dict, passed: bool) -> None:
    assert verdict(**made).passed is passed


def test_a_stopped_test_says_why_and_one_that_checked_nothing_because_it_stopped_is_not_told_only() -> None:
    text = verdict(0, stopped="no such port").message()
    assert "stopped: no such port" in text and "nothing was checked" not in text


# ---------------------------------------------------------------- credit


@pytest.mark.parametrize(("made", "credit"), [
    (dict(checked=10), 1.0),
    (dict(checked=10, failed=("1", "2")), 0.8),
    (dict(checked=5, failed=("1",), planned=10), 0.4),  # cut short: scored against what it meant to check
    (dict(checked=10, failed=("1", "2"), planned=4), 0.8),  # checked more than planned: against what it checked
    (dict(checked=10, failed=("1", "2"), baseline=0.5), 0.6),  # (0.8 - 0.5) / (1 - 0.5)
    (dict(checked=10, failed=tuple(str(i) for i in range(6)), baseline=0.5), 0.0),  # below the constant: nothing
    (dict(checked=10, baseline=1.0, stopped="x"), 0.0),  # every check passed by a constant: nothing
    (dict(checked=10, failed=("e",), events=("e",)), 0.9),  # every case right, an event broken: one short
    (dict(checked=10, failed=("1", "e"), events=("e",)), 0.9),  # a case wrong and an event: the case costs
    (dict(checked=0, failed=("e",), events=("e",)), 0.0),
    (dict(checked=4, failed=("3",), planned=5, unchecked=("3",)), 0.8),  # the waiting case: planned, never checked
    (dict(checked=0, stopped="x"), 0.0),
])
def test_credit_is_the_share_passed_beyond_a_constant_and_short_of_full_with_an_event(made: dict, credit: float) -> None:
    assert verdict(**made).credit == pytest.approx(credit)


def test_cases_passed_do_not_count_events_or_a_case_twice_and_never_go_below_zero() -> None:
    assert verdict(5, ("1", "e", "2"), events=("e",)).cases_passed == 3
    assert verdict(5, ("1", "e", "2"), events=("e",)).cases_failed == ("1", "2")
    assert verdict(1, ("1", "2", "3")).cases_passed == 0
    assert verdict(4, ("3",), unchecked=("3",)).cases_passed == 4  # left waiting: not among the checked
    assert verdict(4, ("3", "4"), unchecked=("3",)).cases_passed == 3


def test_which_kinds_broke_in_the_order_asked_and_how_often() -> None:
    found = verdict(3, ("1",), kinds=(("latency", 2), ("mismatch", 1), ("pulse", 0)))
    assert found.broke(("pulse", "mismatch", "reset", "latency")) == ("mismatch", "latency")
    assert (found.count("latency"), found.count("mismatch"), found.count("reset")) == (2, 1, 0)


# ---------------------------------------------------------------- the small helpers


def test_the_failing_line_names_numbers_in_order_then_names_and_at_most_a_hundred() -> None:
    assert failing_line({"10", "9", "b", "a", "100"}) == "failing: 9, 10, 100, a, b"
    names = {str(i) for i in range(103)}
    assert failing_line(names) == "failing: " + ", ".join(str(i) for i in range(100)) + " and 3 more"
    assert failing_line({str(i) for i in range(100)}).endswith(", 99")
    assert failing_line({str(i) for i in range(101)}).endswith(", 99 and 1 more")


def test_only_narrows_a_test_to_one_vector_and_none_selects_all() -> None:
    assert selected(CFG, 3) and selected(CFG, "x")
    one = BenchConfig("roofline_attainable", "icarus", ParamSet(), 42, only="3")
    assert selected(one, 3) and selected(one, "3") and not selected(one, 4)


@pytest.mark.parametrize(("binding", "levels", "text"), [
    (3, 3, "compute roof"), (4, 3, "compute roof"), (2, 3, "memory level 2"), (0, 1, "memory level 0"), (1, 1, "compute roof"),
])
def test_the_binding_index_names_the_compute_roof_at_and_past_the_levels(binding: int, levels: int, text: str) -> None:
    assert binding_text(binding, levels) == text


def test_one_case_checked_and_an_event_broken_earns_nothing_and_a_test_stopped_after_its_one_check_earns_it() -> None:
    assert verdict(1, ("e",), events=("e",)).credit == 0.0  # its one case right, an event broken: one short of 1 of 1
    assert verdict(1, stopped="ran out").credit == 1.0  # nothing planned: scored against the one it checked


def test_the_kind_of_a_failure_is_always_named_and_a_verdict_did_not_run_out_unless_told() -> None:
    sb, _ = board()
    with pytest.raises(TypeError):
        sb.fail(3, "late", "latency")  # type: ignore[misc]
    assert not sb.failed
    assert sb.verdict().ran_out is False and sb.verdict().stopped == ""
