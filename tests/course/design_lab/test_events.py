"""Events are part of the contract: a test that checks one (the latency, the handshake, the reset,
a done_o pulse) and sees it broken earns nothing, so a design that breaks it loses that test's
share, and one that breaks it in every test of a group loses the group (labs/labN/lab.toml
`events`; design_lab.scoring).

Fast, no simulator: first the rule on made-up verdicts, then the real benches and judge on cycle
models of the pipe and the divider (tests/support/sequential_design.py) with one event broken: a
late pipe, an early pipe, a synchronous reset, a double done_o. The full tier grades the same
bugs planted in the project's RTL through `make grade` (test_hints.py, test_events_rtl.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sequential_design import record

from roofline_bench.tape import Reply
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import EVENT_KINDS, Failure, Verdict
from roofline_course.design_lab import judge
from roofline_course.labs.definitions import Group, Lab, LabError, load_lab
from roofline_course.results import GroupScore

LAB3, LAB5 = load_lab(3), load_lab(5)
FACTS = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")


def verdict(test: str, cases: int, failed_cases: int = 0, events: tuple[tuple[str, str], ...] = ()) -> Verdict:
    """A test of `cases` cases, all checked, `failed_cases` of them wrong, and events (name, kind) broken."""
    failed = tuple(f"v{i}" for i in range(failed_cases)) + tuple(name for name, _ in events)
    kinds: dict[str, int] = {}
    for kind in ["mismatch"] * failed_cases + [kind for _, kind in events]:
        kinds[kind] = kinds.get(kind, 0) + 1
    failures = tuple(Failure(name, "", kind) for name, kind in events)
    return Verdict(test, cases, failed, cases, (), failures=failures, events=tuple(name for name, _ in events),
                   kinds=tuple(sorted(kinds.items())))


def group(lab: Lab, *tests: str, weight: float = 15) -> Group:
    return Group("g", weight, False, "covers", ParamSet(), tests=tests)


def scored(lab: Lab, found: dict[str, Verdict], weight: float = 15) -> GroupScore:
    return judge.score(lab, group(lab, *found, weight=weight), found, Reply(), FACTS, "rerun")


# ---------------------------------------------------------------- the rule, on made-up verdicts

def test_each_sequential_lab_states_its_events_and_the_combinational_ones_none() -> None:
    """lab.toml says it; the handout shows it (test_handouts.py)."""
    assert LAB5.events == ("timeout", "latency", "throughput", "handshake", "reset")
    assert LAB3.events == ("timeout", "latency", "pulse", "reset")
    assert [load_lab(n).events for n in (1, 2, 4)] == [(), (), ()]


def test_one_late_result_in_a_thousand_costs_the_whole_test_and_says_why() -> None:
    """The issue's case: one latency failure among 1000 right values scored 99.98; under the rule the
    test earns 0. The report line counts the cases (1000 of 1000) and the event apart."""
    late = verdict("one_result_per_clock", 1000, events=(("latency", "latency"),))
    result = scored(LAB5, {"one_result_per_clock": late})
    assert result.score == 0.0 and result.status == "fail"
    assert result.detail[0] == "1000 of 1000 passed; 1 event(s) failed, the first latency"
    assert result.detail[1] == ("    it broke the latency (1 time): in lab 5 an event of the contract is a case the whole "
                                "test stands on, so this test earns nothing")


def test_the_rule_costs_only_the_tests_that_broke_an_event() -> None:
    """Two tests: one broke the reset, the other passed: half the group."""
    found = {"reset_during_traffic": verdict("reset_during_traffic", 300, events=(("during_the_reset", "reset"),)),
             "document_and_edge_cases": verdict("document_and_edge_cases", 20)}
    assert scored(LAB5, found, weight=10).score == pytest.approx(5.0)


def test_a_kind_the_lab_does_not_list_is_scored_as_cases_only() -> None:
    """Lab 3 lists no handshake: a handshake failure there costs its cases, not the test."""
    found = {"document_cases": verdict("document_cases", 10, events=(("cycle_3", "handshake"),))}
    assert 0.8 < scored(LAB3, found, weight=10).score < 10  # short of full: an event broke


def test_a_value_bug_is_still_scored_beyond_chance() -> None:
    found = {"document_cases": verdict("document_cases", 10, failed_cases=1)}
    assert scored(LAB3, found, weight=10).score == pytest.approx(9.0)


def test_a_lab_file_must_state_its_events_and_hints_and_only_real_events(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from roofline_course.labs import definitions

    folder = tmp_path / "lab1"
    folder.mkdir()
    spec = (definitions.LABS_DIR / "lab1" / "lab.toml").read_text()
    monkeypatch.setattr(definitions, "LABS_DIR", tmp_path)
    (folder / "lab.toml").write_text(spec.replace("events = []", ""))
    with pytest.raises(LabError, match="give `events = \\[...\\]`"):
        load_lab(1)
    (folder / "lab.toml").write_text(spec.replace("events = []", 'events = ["lateness"]'))
    with pytest.raises(LabError, match="lateness are not events; use some of " + ", ".join(EVENT_KINDS)):
        load_lab(1)


# ---------------------------------------------------------------- the real benches, on cycle models

SWEEP = 120  # vectors of each random sweep here: the rule does not depend on how many (the full tier runs the lab's)
_GRADED: dict[tuple[int, str], dict[str, GroupScore]] = {}


def graded(lab: Lab, bug: str, folder: Path) -> dict[str, GroupScore]:
    """Every simulation group of the lab, judged from tapes of the cycle model with `bug`."""
    if (lab.number, bug) in _GRADED:
        return _GRADED[lab.number, bug]
    found = {}
    for chosen in lab.groups:
        if chosen.kind != "sim":
            continue
        chosen = replace(chosen, sweep=min(chosen.sweep, SWEEP))
        cfg = judge.bench_config(lab, chosen, "icarus", "<your folder>")
        reply = Reply({test: record(cfg, test, bug) for test in chosen.tests})
        found[chosen.name] = judge.score(lab, chosen, judge.verdicts(lab, chosen, reply, "icarus", "<your folder>"), reply,
                                         FACTS, "rerun")
    _GRADED[lab.number, bug] = found
    return found


def expected(lab: Lab, lost: set[str]) -> dict[str, float]:
    """Each group's marks by the rule as the handout states it: a test in `lost` (it checks the
    broken event) earns nothing, every other test its share (the model's values are right)."""
    return {g.name: g.weight * sum(test not in lost for test in g.tests) / len(g.tests) for g in lab.groups if g.kind == "sim"}


@pytest.fixture(scope="module")
def tapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tapes")


def test_the_models_without_a_bug_get_full_marks(tapes: Path) -> None:
    """The premise: each bug below is the only thing wrong."""
    for lab in (LAB3, LAB5):
        assert {name: s.score for name, s in graded(lab, "", tapes).items()} == expected(lab, set())


@pytest.mark.parametrize(("bug", "lost", "said"), [
    # a late pipe and an early one: one_result_per_clock is the test that holds the latency
    ("late", {"one_result_per_clock"}, "came 5 cycles after its input was accepted"),
    ("early", {"one_result_per_clock"}, "came 3 cycles after its input was accepted"),
    # a synchronous reset: out_valid_o stays high between rst_ni's fall and the next edge
    ("synchronous reset", {"reset_during_traffic"}, "the contract's reset is asynchronous"),
    # valid bits with no reset: out_valid_o is X, not low, out of reset, in every test that resets
    # (all but port_widths); it was once scored as an X the reset had nothing to do with
    ("valid never reset", {t for g in LAB5.groups for t in g.tests} - {"port_widths"},
     "out_valid_o holds X/Z: x right after reset"),
])
def test_a_pipe_that_breaks_an_event_loses_each_test_that_checks_it(bug: str, lost: set[str], said: str, tapes: Path) -> None:
    found = graded(LAB5, bug, tapes)
    assert {name: s.score for name, s in found.items()} == pytest.approx(expected(LAB5, lost))
    losing = [s for s in found.values() if s.score < s.group.weight]
    assert losing and all(any("so this test earns nothing" in line for line in s.detail) for s in losing)
    assert any(said in line for s in losing for line in s.detail), [s.detail for s in losing]


def test_a_late_pipe_is_told_its_first_late_result_and_its_input(tapes: Path) -> None:
    found = graded(LAB5, "late", tapes)["throughput and latency"]
    assert found.detail[0].startswith(f"{SWEEP - 1} of {SWEEP} passed, first failing: 0")  # the first result
    report = next(line for line in found.detail if "LATENCY" in line)
    assert "the result of" in report and "(in cycle 1)" in report and "the module documents 4 (3 + MUL_STAGES)" in report


@pytest.mark.parametrize(("bug", "lost", "said"), [
    # a double done_o: the second pulse belongs to no operation; every test with an operation sees it
    ("double done", {"document_cases", "edge_cases", "back_to_back", "random_sweep", "reset_mid_operation"},
     "with no operation in flight"),
    # a synchronous reset: busy_o still high while rst_ni is low
    ("synchronous reset", {"reset_mid_operation"}, "busy_o is high during reset"),
    # one cycle past the latency bound, on every division
    ("late", {"document_cases", "edge_cases", "back_to_back", "random_sweep", "reset_mid_operation"},
     "exceeds the contract's 84"),
    # busy_o with no reset: X, not low, out of reset, which every test checks; ports and reset once
    # kept 8.8 of its 10 marks for it
    ("busy never reset", {t for g in LAB3.groups for t in g.tests}, "busy_o holds X/Z: x after reset"),
])
def test_a_divider_that_breaks_an_event_loses_each_test_that_checks_it(bug: str, lost: set[str], said: str,
                                                                       tapes: Path) -> None:
    found = graded(LAB3, bug, tapes)
    scores = {name: s.score for name, s in found.items()}
    assert scores == pytest.approx(expected(LAB3, lost))
    assert any(said in line for s in found.values() for line in s.detail)


def test_a_result_out_of_nowhere_states_the_latency_the_bench_saw(tapes: Path) -> None:
    """A pipe one stage late that shows each result twice: the second copy of the last result comes
    with nothing in flight. The message said "less than the 4-cycle latency" whatever the latency
    was; it states what the bench measured: 5 cycles, against the documented 4."""
    found = graded(LAB5, "late and duplicated", tapes)["documents through the pipe"]
    said = [line for line in found.detail if "out_valid_o was high" in line]
    assert said and "the first result came 5 cycles after its input was accepted; the module documents 4" in said[0]
    assert "less than" not in " ".join(found.detail)
