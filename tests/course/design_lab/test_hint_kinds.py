"""Which hint a failure gets, rule by rule (course/roofline_course/design_lab/hints.py's docstring and HINTS):
each case is a failure as the judge records it, and the kind the hint's own words say it is for.
Fast, no simulator: `make mutation` runs these once per mutant of the hints."""

from __future__ import annotations

import pytest

from roofline_core.scoreboard import Failure
from roofline_course.design_lab import hints

RIDGE, TIE, WIDE, LEVEL_TIE = hints.RIDGE, hints.TIE, hints.WIDE, hints.LEVEL_TIE
ATTAINABLE, HIERARCHY, INTENSITY = "roofline_attainable", "roofline_hierarchy", "roofline_intensity"


def failure(kind: str, *differs: tuple[str, int, int], regimes: tuple[str, ...] = (), vector: str = "v") -> Failure:
    return Failure(vector, "label", kind, differs, regimes)


@pytest.mark.parametrize(("top", "found", "kind"), [
    # a cap one LSB off is a rounding bug, however the field names the output
    (HIERARCHY, failure("mismatch", ("level_cap_o[1]", 40, 41)), "rounding"),
    (ATTAINABLE, failure("mismatch", ("cap_o (the documents' value)", 40, 39)), "rounding"),
    # the error bound alone: a product above the format is a width bug, else rounding
    (ATTAINABLE, failure("error bound", regimes=(WIDE,)), "product width"),
    (ATTAINABLE, failure("error bound"), "rounding"),
    # the ridge: the verdict wrong at ai*bw == peak with the caps within an LSB; two LSBs off is no tie
    (ATTAINABLE, failure("mismatch", ("mem_bound_o", 0, 1), ("cap_o", 16, 15), regimes=(RIDGE,)), "ridge tie"),
    (ATTAINABLE, failure("mismatch", ("mem_bound_o", 0, 1), ("cap_o", 16, 14), regimes=(RIDGE,)), None),
    (ATTAINABLE, failure("mismatch", ("cap_o", 16, 15), regimes=(RIDGE,)), "rounding"),
    # division by zero: a flag that differs, or the vector's regime
    (ATTAINABLE, failure("mismatch", ("div0_o", 1, 0)), "saturation"),
    (ATTAINABLE, failure("mismatch", ("cap_o", 255, 3), regimes=("division by zero",)), "saturation"),
    # a verdict wrong on a rounding tie is rounding (the tie decides the verdict); wrong elsewhere, no kind
    (ATTAINABLE, failure("mismatch", ("mem_bound_o", 1, 0), regimes=(TIE,)), "rounding"),
    (ATTAINABLE, failure("mismatch", ("mem_bound_o", 1, 0)), None),
    (ATTAINABLE, failure("mismatch", ("cap_o", 16, 13), regimes=(TIE,)), None),
    # the binding level: wrong alone, or on a level tie even above the format; above the format alone, a width bug
    (HIERARCHY, failure("mismatch", ("binding_o", 0, 1)), "binding level"),
    (HIERARCHY, failure("mismatch", ("binding_o", 0, 1), regimes=(LEVEL_TIE, WIDE)), "binding level"),
    (HIERARCHY, failure("mismatch", ("binding_o", 0, 1), regimes=(WIDE,)), "product width"),
    (HIERARCHY, failure("mismatch", ("binding_o", 0, 1), ("level_cap_o[0]", 9, 8)), "rounding"),
    (HIERARCHY, failure("mismatch", ("binding_o", 2, 1), ("cap_o", 90, 20)), "binding level"),
    # a port one bit too wide is no rounding bug, though its width is "one off" (the ports note names it)
    (ATTAINABLE, failure("mismatch", ("cap_o width", 40, 41)), None),
    (HIERARCHY, failure("mismatch", ("binding_o width", 2, 3)), None),
    # what no hint fits
    (ATTAINABLE, failure("error"), None),
])
def test_each_rule_picks_its_kind(top: str, found: Failure, kind: str | None) -> None:
    assert hints.kind_of(found, top) == kind


def hint(kind: str, top: str = INTENSITY) -> str:
    return f"hint ({kind}): {hints.text(kind, top)}"


ONE_LSB = ("ai_o", 16, 15)
SATURATED = ("sat_o", 1, 0)
EVERY_KIND = tuple(hints.HINTS)


def test_a_kind_behind_a_fifth_of_the_failures_is_hinted_and_one_behind_less_is_not() -> None:
    """SHARE: 2 of 10 is a fifth (shown), 1 of 10 is not."""
    fifth = [failure("mismatch", ONE_LSB, vector=f"r{i}") for i in range(8)] + [failure("mismatch", SATURATED, vector=f"s{i}")
                                                                                 for i in range(2)]
    tenth = [failure("mismatch", ONE_LSB, vector=f"r{i}") for i in range(9)] + [failure("mismatch", SATURATED, vector="s")]
    assert hints.hints_for(fifth, INTENSITY, EVERY_KIND) == [hint("rounding"), hint("saturation")]
    assert hints.hints_for(tenth, INTENSITY, EVERY_KIND) == [hint("rounding")]


def test_an_error_bound_broken_by_a_mismatched_vector_is_that_mismatch_and_on_another_vector_its_own() -> None:
    mismatch = failure("mismatch", SATURATED, vector="v1")
    assert hints.hints_for([mismatch, failure("error bound", vector="v1")], INTENSITY, EVERY_KIND) == [hint("saturation")]
    assert hints.hints_for([mismatch, failure("error bound", vector="v2")], INTENSITY, EVERY_KIND) == [
        hint("saturation"), hint("rounding")]


def test_no_kind_falls_back_to_the_groups_own_hint_and_to_nothing_without_one() -> None:
    assert hints.hints_for([failure("error")], ATTAINABLE, EVERY_KIND, "check the handshake") == ["hint: check the handshake"]
    assert hints.hints_for([failure("error")], ATTAINABLE, EVERY_KIND) == []
    assert hints.hints_for([], ATTAINABLE, EVERY_KIND) == []


def test_a_kind_the_lab_does_not_list_is_never_shown() -> None:
    """A lab names the kinds that fit it: lab 1 has no latency, so a latency failure there gets the group's hint."""
    assert hints.hints_for([failure("latency")], ATTAINABLE, ("rounding",), "the group's") == ["hint: the group's"]
    assert hints.hints_for([failure("latency")], INTENSITY, ("latency",)) == [hint("latency")]


# Each kind of failure, as the judge recorded it for each module, and its one hint.
@pytest.mark.parametrize(
    ("top", "found", "kind"),
    [
        ("roofline_attainable", failure("mismatch", ("mem_bound_o", 0, 1), regimes=("ridge (ai*bw == peak)",)), "ridge tie"),
        ("roofline_attainable", failure("mismatch", ("cap_o", 16, 15)), "rounding"),
        ("roofline_attainable", failure("mismatch", ("cap_o", 1, 7), regimes=("product above the format",)), "product width"),
        ("roofline_intensity", failure("mismatch", ("sat_o", 1, 0)), "saturation"),
        ("roofline_intensity", failure("timeout"), "latency"),
        ("roofline_intensity", failure("pulse"), "pulse"),
        ("roofline_hierarchy_pipe", failure("handshake"), "handshake"),
        ("roofline_hierarchy_pipe", failure("timeout"), "handshake"),
        ("roofline_hierarchy_pipe", failure("latency"), "latency"),
        ("roofline_hierarchy", failure("mismatch", ("binding_o", 0, 1)), "binding level"),
        ("roofline_intensity", failure("reset"), "reset"),
        ("roofline_hierarchy_pipe", failure("reset"), "reset"),
        ("roofline_attainable", failure("unresolved"), "unknown value"),
        ("roofline_intensity", failure("latency"), "latency"),
    ],
)
def test_hints_follow_the_kind_of_failure(top: str, found: Failure, kind: str) -> None:
    assert hints.kind_of(found, top) == kind
    assert hints.hints_for([found], top, EVERY_KIND) == [f"hint ({kind}): {hints.text(kind, top)}"]
