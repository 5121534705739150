"""The similarity table's budget per submission (cohort/similarity.py, docs/threat-model.md): its
staged files within MAX_SUBMISSION_BYTES, its tokenising within FINGERPRINT_S. A submission over
either is left out with the reason and the others are still compared, before and after it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from roofline_core.paths import RTL_DIR
from roofline_course.cohort import similarity
from roofline_course.labs.definitions import load_lab

LAB = load_lab(1)
DESIGN = "".join((RTL_DIR / name).read_text() for name in ("roofline_level.sv", "roofline_round_cap.sv"))
BUDGET_S = 1.0


def staged(folder: Path, text: str) -> str:
    (folder / similarity.STAGED).mkdir(parents=True)
    (folder / similarity.STAGED / "design.sv").write_text(text)
    return str(folder)


@pytest.fixture
def slow_tokeniser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tokeniser hangs on a text that says HANG, raises on RAISE and dies on DIE (the child is a fork)."""
    real = similarity._fingerprint

    def tokenise(text: str, *args: object, **options: object) -> object:
        if "HANG" in text:
            while True:
                time.sleep(0.05)
        if "RAISE" in text:
            raise ValueError("a tokeniser error")
        if "DIE" in text:
            os._exit(3)
        return real(text, *args, **options)

    monkeypatch.setattr(similarity, "_fingerprint", tokenise)
    monkeypatch.setattr(similarity, "FINGERPRINT_S", BUDGET_S)


@pytest.mark.usefixtures("slow_tokeniser")
def test_a_submission_whose_tokenising_overruns_is_left_out_and_the_others_compared(tmp_path: Path) -> None:
    texts = {"a": DESIGN, "b": DESIGN, "hang": DESIGN + "// HANG", "raise": DESIGN + "// RAISE", "die": DESIGN + "// DIE",
             "y": DESIGN, "z": DESIGN}
    folders = {key: staged(tmp_path / key, text) for key, text in texts.items()}
    started = time.monotonic()
    found = similarity.similarity(folders, LAB.starter)
    assert dict(found.left_out) == {"hang": f"tokenising its files took longer than {BUDGET_S:g} s: not compared",
                                    "raise": "could not be tokenised (ValueError)",
                                    "die": "could not be tokenised (the tokeniser stopped)"}
    assert found.compared == ["a", "b", "y", "z"]  # before and after the ones left out
    assert {(pair.first, pair.second) for pair in found.pairs} == {("a", "b"), ("a", "y"), ("a", "z"), ("b", "y"),
                                                                  ("b", "z"), ("y", "z")}
    assert time.monotonic() - started < 60  # the hung one was not waited on (the limit is far above its budget)


@pytest.mark.usefixtures("slow_tokeniser")
def test_a_submission_within_its_budget_is_compared() -> None:
    prints, left_out = similarity.fingerprints({"a": DESIGN, "b": DESIGN}, [], "design.sv", BUDGET_S * 30)
    assert sorted(prints) == ["a", "b"] and left_out == []


@pytest.mark.parametrize(("size", "compared"), [(similarity.MAX_SUBMISSION_BYTES - 1, True),
                                                (similarity.MAX_SUBMISSION_BYTES, True),
                                                (similarity.MAX_SUBMISSION_BYTES + 1, False)])
def test_the_staged_size_cap_is_held_on_both_sides_and_at_it(size: int, compared: bool, tmp_path: Path) -> None:
    folder = staged(tmp_path / "s", "")
    (Path(folder) / similarity.STAGED / "design.sv").write_text("m" * size)
    if compared:
        assert len(similarity.staged_text(Path(folder) / similarity.STAGED)) == size
    else:
        with pytest.raises(similarity.NotComparable, match="exceed 1 MiB"):
            similarity.staged_text(Path(folder) / similarity.STAGED)


# ---------------------------------------------------------------- the starter is boilerplate

STARTER = (LAB.starter / "roofline_attainable.sv").read_text()
STUB = "  assign cap_o       = '0;\n  assign mem_bound_o = 1'b0;\n"
# Two students' own bodies for the starter's TODOs, written apart: without the starter counted as
# boilerplate, the two submissions share 0.63 of their tokens (the starter alone: 1.0).
OWN_A = ("  logic [2*W-1:0] product;\n  assign product = ai_i * bw_i;\n"
         "  assign mem_bound_o = product < {peak_i, {FRAC_BITS{1'b0}}};\n"
         "  assign cap_o = mem_bound_o ? W'((product + (1 << (FRAC_BITS-1))) >> FRAC_BITS) : peak_i;\n")
OWN_B = ("  wire [2*W-1:0] p = {{W{1'b0}}, ai_i} * {{W{1'b0}}, bw_i};\n"
         "  wire [2*W-1:0] rounded = p + ({{(2*W-1){1'b0}}, 1'b1} << (FRAC_BITS - 1));\n"
         "  always_comb begin\n    if (p < ({{W{1'b0}}, peak_i} << FRAC_BITS)) begin mem_bound_o = 1'b1; "
         "cap_o = rounded[FRAC_BITS +: W]; end\n    else begin mem_bound_o = 1'b0; cap_o = peak_i; end\n  end\n")


def on_the_starter(body: str) -> str:
    assert STUB in STARTER
    return STARTER.replace(STUB, body)


def test_two_students_who_share_only_the_starter_are_not_similar(tmp_path: Path) -> None:
    folders = {"starter-1": staged(tmp_path / "s1", STARTER), "starter-2": staged(tmp_path / "s2", STARTER),
               "a": staged(tmp_path / "a", on_the_starter(OWN_A)), "b": staged(tmp_path / "b", on_the_starter(OWN_B)),
               "a-copy": staged(tmp_path / "c", on_the_starter(OWN_A))}
    found = similarity.similarity(folders, LAB.starter)
    assert found.compared == sorted(folders) and found.left_out == []
    # the control: a copy of a student's own code is found, at the whole of it
    assert [(pair.first, pair.second, round(pair.share, 2)) for pair in found.pairs] == [("a", "a-copy", 1.0)], found.pairs
