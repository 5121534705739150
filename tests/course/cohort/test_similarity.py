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
