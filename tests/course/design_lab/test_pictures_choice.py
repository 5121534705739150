"""Which failing tests of a group get a picture (design_lab/pictures.draw) and what each says, with
the tracing and the drawing faked: a failing test with a tape, at most MAX_PER_GROUP of them, in
the group's order; a picture that cannot be drawn is a note, never a lost grade; a clocked top gets
a timing diagram, a combinational one its roofline. tests/course/design_lab/test_pictures.py draws
real pictures of real replays."""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import matplotlib
import pytest
from PIL import Image

from roofline_bench.tape import Reply, Tape
from roofline_core.scoreboard import Failure, Verdict
from roofline_course.design_lab import pictures
from roofline_course.labs.definitions import load_lab
from roofline_golden import QFormat

matplotlib.use("Agg")

FAILURE = Failure("v0", "vector 0", "mismatch")


def verdict(name: str, failed: int = 2, failures: bool = True) -> Verdict:
    names = tuple(f"v{index}" for index in range(failed))
    return Verdict(name, 4, names, 4, (), failures=(FAILURE,) if failures and failed else ())


class Fakes:
    """pictures.trace, _figure and save, recording what each was given."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, none_for: tuple[str, ...] = (),
                 raise_for: tuple[str, ...] = ()) -> None:
        self.traced: list[tuple[str, bool]] = []
        self.figured: list[tuple[str, str, bool, int]] = []
        self.saved: list[Path] = []
        self.none_for, self.raise_for = none_for, raise_for
        monkeypatch.setattr(pictures, "TESTS", defaultdict(lambda: defaultdict(str)))  # any test name is a bench test
        monkeypatch.setattr(pictures, "trace", self.trace)
        monkeypatch.setattr(pictures, "_figure", self.figure)
        monkeypatch.setattr(pictures, "save", self.save)

    def trace(self, test: Any, cfg: Any, tape: Tape, until_first: bool) -> str:
        if tape.test in self.raise_for:
            raise ValueError(f"no trace of {tape.test}")
        self.traced.append((tape.test, until_first))
        return f"seen {tape.test}"

    def figure(self, seen: str, top: str, fmt: QFormat, levels: int, title: str, clocked: bool, failing: int
               ) -> tuple[str, str] | None:
        self.figured.append((seen, title, clocked, failing))
        return None if seen.removeprefix("seen ") in self.none_for else (f"figure of {seen}", "what it shows")

    def save(self, figure: Any, base: Path) -> None:
        self.saved.append(base)


def draw(lab_number: int, found: dict[str, Verdict], tapes: tuple[str, ...], tmp_path: Path
         ) -> tuple[list[Any], list[str]]:
    lab = load_lab(lab_number)
    reply = Reply({name: Tape(name, {}) for name in tapes})
    return pictures.draw(lab, lab.groups[0], found, reply, "icarus", "rtl", tmp_path, tmp_path / "groups" / "g")


def test_only_failing_tests_with_a_tape_and_failures_get_a_picture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakes = Fakes(monkeypatch)
    found = {"passes": verdict("passes", failed=0), "no_tape": verdict("no_tape"), "no_failures": verdict("no_failures",
             failures=False), "drawn": verdict("drawn", failed=3)}
    made, notes = draw(1, found, ("passes", "no_failures", "drawn"), tmp_path)
    assert notes == [] and fakes.traced == [("drawn", False)]  # lab 1's top is combinational
    assert fakes.figured == [("seen drawn", "lab 1: drawn", False, 3)]
    assert fakes.saved == [tmp_path / "groups" / "g" / "pictures" / "drawn"]
    assert [(p.test, p.caption, p.svg, p.png) for p in made] == [
        ("drawn", "drawn: what it shows", "groups/g/pictures/drawn.svg", "groups/g/pictures/drawn.png")]


def test_at_most_three_tests_of_a_group_are_pictured_the_first_failing_ones(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    fakes = Fakes(monkeypatch)
    names = ("a", "b", "c", "d", "e")
    made, _ = draw(3, {name: verdict(name) for name in names}, names, tmp_path)
    assert [p.test for p in made] == ["a", "b", "c"]
    assert fakes.traced == [("a", True), ("b", True), ("c", True)]  # lab 3's top is clocked; d and e not even traced


def test_a_test_with_nothing_to_draw_is_skipped_and_does_not_use_up_the_quota(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    Fakes(monkeypatch, none_for=("a",))
    names = ("a", "b", "c", "d", "e")
    made, notes = draw(1, {name: verdict(name) for name in names}, names, tmp_path)
    assert [p.test for p in made] == ["b", "c", "d"] and notes == []


def test_a_picture_that_cannot_be_drawn_is_a_note_and_the_next_test_still_gets_one(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    Fakes(monkeypatch, raise_for=("a",))
    made, notes = draw(1, {"a": verdict("a"), "b": verdict("b")}, ("a", "b"), tmp_path)
    assert notes == ["note: no picture of a (ValueError: no trace of a)"]
    assert [p.test for p in made] == ["b"]


# ---------------------------------------------------------------- which picture a top gets

FMT = QFormat(8, 8)


def test_a_clocked_top_gets_the_cycles_around_its_first_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple] = []
    view = SimpleNamespace(failing_cycle=17)
    monkeypatch.setattr(pictures.waves, "diagram", lambda *given: calls.append(("diagram", *given)) or view)
    monkeypatch.setattr(pictures.waves, "figure", lambda *given: calls.append(("figure", *given)) or "waves figure")
    monkeypatch.setattr(pictures.roofs, "misses", lambda *given: pytest.fail("a clocked top drew a roofline"))
    seen = SimpleNamespace(marks=["m"])
    assert pictures._figure(seen, "roofline_intensity", FMT, 3, "t", True, 2) == (
        "waves figure", "the cycles around the first failure (cycle 17)")
    assert calls == [("diagram", seen, "roofline_intensity", FMT, 3, "t"), ("figure", view, FMT)]


def test_a_combinational_top_gets_its_failing_vectors_on_the_roofline(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple] = []
    found = SimpleNamespace(vectors=5)
    monkeypatch.setattr(pictures.roofs, "misses", lambda *given: calls.append(("misses", *given)) or found)
    monkeypatch.setattr(pictures.roofs, "figure", lambda *given: calls.append(("figure", *given)) or "roofs figure")
    monkeypatch.setattr(pictures.waves, "diagram", lambda *given: pytest.fail("a combinational top drew waves"))
    seen = SimpleNamespace(marks=["m1", "m2"])
    assert pictures._figure(seen, "roofline_attainable", FMT, 1, "t", False, 7) == (
        "roofs figure", "the 5 failing vector(s) on the roofline")
    assert calls == [("misses", ["m1", "m2"], FMT, 1, "t", 7), ("figure", found)]


@pytest.mark.parametrize("clocked", [True, False])
def test_nothing_to_draw_is_no_picture(clocked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures.waves, "diagram", lambda *_: None)
    monkeypatch.setattr(pictures.roofs, "misses", lambda *_: None)
    monkeypatch.setattr(pictures.waves, "figure", lambda *_: pytest.fail("drew a figure of nothing"))
    monkeypatch.setattr(pictures.roofs, "figure", lambda *_: pytest.fail("drew a figure of nothing"))
    assert pictures._figure(SimpleNamespace(marks=[]), "roofline_intensity", FMT, 1, "t", clocked, 1) is None


# ---------------------------------------------------------------- the files

def test_a_picture_is_saved_as_svg_and_a_100_dpi_png_of_64_colours(tmp_path: Path) -> None:
    """labs/README.md: each picture is a PNG of 64 colours; at 100 dpi a 4 x 2 inch figure is 400 x 200 pixels."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4, 2))
    axes = figure.add_axes((0, 0, 1, 1))
    axes.imshow([[row * 200 + column for column in range(200)] for row in range(100)], aspect="auto", cmap="hsv")
    axes.set_axis_off()
    base = tmp_path / "groups" / "g" / "pictures" / "picture"  # a folder not made yet, three deep
    pictures.save(figure, base)
    pictures.save(figure, base.with_name("another"))  # a second picture of the group, in the same folder
    assert sorted(path.name for path in base.parent.iterdir()) == ["another.png", "another.svg", "picture.png",
                                                                   "picture.svg"]
    assert base.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
    with Image.open(base.with_suffix(".png")) as png:
        assert png.size == (400, 200)
        assert len(png.convert("RGB").getcolors(1 << 16) or []) == 64  # a rainbow of thousands, cut to 64
        smallest = io.BytesIO()
        png.save(smallest, format="PNG", optimize=True)
    assert base.with_suffix(".png").stat().st_size == len(smallest.getvalue())  # written as small as PNG makes it
