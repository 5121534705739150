"""Pictures of where a design goes wrong: the trace of a second replay, the timing diagram of a
clocked test's first failure, the roofline of a combinational test's failing vectors, and the
reports that carry them (hidden groups' never where students see them before the due date).

The tapes here come from designs without a simulator: the clocked ones below (a divider, a
pipe) answer the bench as a design would, with the golden model's outputs and one planted bug,
record what the bench read as a simulator's recorder does, and note independently where their
bug showed (the cycle, the expected and the wrong value); the combinational one is the shared
tests/support/model_design.py. The end-to-end tests grade real RTL.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from model_design import ModelDesign
from model_design import record as record_model
from real_grading import needs_sandbox

from roofline_bench import tape as tapes
from roofline_bench import trace as traces
from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports
from roofline_bench.run import Run, execute, replay, trace
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, ParamSet
from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_core.scoreboard import Verdict
from roofline_course.design_lab import pictures, roofs, waves
from roofline_course.design_lab.pictures import save
from roofline_course.reports import platforms, terminal
from roofline_golden import fixed

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PARAMS = ParamSet()
FMT = PARAMS.params.fmt
LOG = logging.getLogger("test_pictures")


# ---------------------------------------------------------------- behavioural designs


@dataclass
class Design(Ports):
    """A design the bench can drive: outputs from the golden model, one planted bug, a tape of what was read.

    `periods` counts clock periods (rising edges) since the start; `released` is the count when
    the bench released the reset, so `periods - released` is the cycle a report names (1 for the
    first period after reset)."""

    top: str
    entries: list[Any] = field(default_factory=list)
    inputs: dict[str, int] = field(default_factory=dict)
    periods: int = 0
    released: int | None = None
    after_rise: bool = False  # between a rising edge and the next falling edge
    widths: dict[str, int | None] = field(init=False)

    def __post_init__(self) -> None:
        values = {**PARAMS.for_module(self.top)}
        self.widths = {name: bits for name, (_, bits) in MODULES[self.top].port_bits(values).items()}

    # the bench's side
    def read(self, name: str) -> int:
        self.require(name)
        value = self.output(name)
        self.entries.append(value)
        return value

    def write(self, name: str, value: int) -> None:
        self.require(name)
        self.inputs[name] = value & ((1 << (self.widths[name] or 1)) - 1)
        if name == "rst_ni":
            if value:
                self.released = self.periods if self.released is None else self.released
            else:
                self.reset()

    def start_clock(self, period_ns: int) -> None:
        pass

    async def wait_ns(self, ns: int) -> None:
        pass

    async def falling_edge(self) -> None:
        if not self.after_rise:
            self.rise()
        self.after_rise = False

    async def rising_edges(self, count: int) -> None:
        for _ in range(count):
            self.rise()
        self.after_rise = True

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        elapsed = periods - 1  # as a simulator counts them: a rise at the k-th edge is k - 1 whole periods
        for edge in range(1, periods + 1):
            self.rise()
            if self.output(name):
                elapsed = edge - 1
                break
        self.after_rise = True
        self.entries.append(elapsed)
        return elapsed

    def rise(self) -> None:
        self.periods += 1
        if self.inputs.get("rst_ni", 0):
            self.clock()

    @property
    def cycle(self) -> int:
        return self.periods - (self.released or 0)

    # the design's side
    def output(self, name: str) -> int:
        raise NotImplementedError

    def clock(self) -> None:
        pass

    def reset(self) -> None:
        pass


@dataclass
class Divider(Design):
    """roofline_intensity, 20 cycles a division; the `wrong`-th result (from 0) has its ai_o LSB flipped."""

    top: str = "roofline_intensity"
    wrong: int = 3
    busy: int = 0  # cycles left
    done: bool = False
    result: tuple[int, int, int] = (0, 0, 0)
    operands: tuple[int, int] = (0, 0)
    results: int = 0
    shown: dict[str, int] = field(default_factory=dict)  # where the bug showed: cycle, expected, actual

    def output(self, name: str) -> int:
        ai, sat, div0 = self.result
        return {"busy_o": int(self.busy > 0), "done_o": int(self.done), "ai_o": ai, "sat_o": sat, "div0_o": div0}[name]

    def clock(self) -> None:
        self.done = False
        if self.busy:
            self.busy -= 1
            if not self.busy:
                self.finish()
        elif self.inputs.get("start_i"):
            self.busy, self.operands = 20, (self.inputs["ops_i"], self.inputs["bytes_i"])

    def finish(self) -> None:
        want = fixed.intensity(FMT, PARAMS.count_bits, *self.operands)
        ai = want.ai ^ (1 if self.results == self.wrong else 0)
        if self.results == self.wrong:
            self.shown = {"cycle": self.cycle, "expected": want.ai, "actual": ai}  # sampled at the falling edge after this rise
        self.done, self.result, self.results = True, (ai, int(want.sat), int(want.div0)), self.results + 1

    def reset(self) -> None:
        self.busy, self.done = 0, False


@dataclass
class Pipe(Design):
    """roofline_hierarchy_pipe, four stages that advance together; the `wrong`-th result's cap_o LSB is flipped."""

    top: str = "roofline_hierarchy_pipe"
    wrong: int = 5
    stages: list[tuple[int, ...] | None] = field(default_factory=lambda: [None] * 4)
    accepted: int = 0
    shown: dict[str, int] = field(default_factory=dict)

    def output(self, name: str) -> int:
        last = self.stages[-1]
        if name == "in_ready_o":
            return int(last is None or bool(self.inputs.get("out_ready_i")))
        if name == "out_valid_o":
            return int(last is not None)
        values = last or (0, 0, 0, 0, -1)
        value = values[("cap_o", "mem_bound_o", "binding_o", "level_cap_o").index(name)]
        if name == "cap_o" and values[4] == self.wrong and not self.shown:
            self.shown = {"cycle": self.cycle, "expected": value ^ 1, "actual": value}
        return value

    def clock(self) -> None:
        if self.stages[-1] is not None and not self.inputs.get("out_ready_i"):
            return
        entering = self.compute() if self.inputs.get("in_valid_i") else None
        self.stages = [entering, *self.stages[:-1]]

    def compute(self) -> tuple[int, ...]:
        width, levels = FMT.width, PARAMS.levels
        words = [[(self.inputs[port] >> (level * width)) & FMT.max_raw for level in range(levels)] for port in ("bw_i", "ai_i")]
        want = fixed.hierarchy(FMT, self.inputs["peak_i"], words[0], words[1])
        index, self.accepted = self.accepted, self.accepted + 1
        cap = want.cap ^ (1 if index == self.wrong else 0)
        packed = sum(c << (level * width) for level, c in enumerate(want.level_caps))
        return cap, int(want.mem_bound), want.binding, packed, index

    def reset(self) -> None:
        self.stages = [None] * 4


@dataclass
class PhantomPipe(Pipe):
    """A pipe whose output stage holds a result nobody sent, in the first cycle after reset."""

    def clock(self) -> None:
        super().clock()
        if self.cycle == 1:
            self.stages[-1] = (0, 0, 0, 0, -1)
            self.shown = {"cycle": 1}


def record(design: Design, test: str, sweep: int = 200) -> tuple[BenchConfig, Tape, Verdict]:
    """Run a bench test against the design, as a simulator would; the tape of it and the live verdict."""
    cfg = BenchConfig(design.top, "icarus", PARAMS, 7, sweep=sweep)
    run = Run(cfg, test, design, Coverage(), LOG)
    verdict = run_to_end(execute(TESTS[design.top][test], run))
    return cfg, Tape(test, dict(design.widths), list(design.entries)), verdict


def ridge_sweep(folder: Path) -> tuple[BenchConfig, Tape, Verdict]:
    """roofline_attainable's sweep against the shared model design with its ridge bug (<= for <),
    recorded as a simulator's run is, and the verdict of replaying it."""
    cfg = BenchConfig("roofline_attainable", "icarus", PARAMS, 7, sweep=600)
    found = record_model(cfg, "random_sweep", ModelDesign(FMT, "ridge"))
    return cfg, found, replay(TESTS[cfg.top]["random_sweep"], cfg, found)


# ---------------------------------------------------------------- the trace


def test_a_replay_keeps_no_trace_and_judges_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, tape, live = record(Divider(wrong=2), "back_to_back")
    monkeypatch.setattr(traces.Trace, "add", lambda *_: pytest.fail("an ordinary replay kept a trace"))
    again = replay(TESTS["roofline_intensity"]["back_to_back"], cfg, tape)
    assert again.failed == live.failed and again.checked == live.checked and live.failed


def test_a_trace_finds_the_first_failure_in_its_cycle_and_keeps_a_bounded_window() -> None:
    design = Divider(wrong=30)  # deep in the sweep: far more steps before it than the window holds
    cfg, tape, verdict = record(design, "back_to_back")
    seen = trace(TESTS["roofline_intensity"]["back_to_back"], cfg, tape)
    first = seen.first
    assert first is not None and first.vector_id == verdict.failed[0] and first.kind == "mismatch"
    assert first.cycle - (seen.released or 0) == design.shown["cycle"]
    assert ("ai_o", design.shown["expected"], design.shown["actual"], "FLOP/B") in first.fields
    steps = [sample.step for sample in seen.samples]
    assert min(steps) == first.step - seen.before and max(steps) <= first.step + seen.after
    assert seen.step <= first.step + seen.after + 1  # the replay stopped there, not at the end of the sweep
    assert len(tape.entries) > 4 * len(seen.samples)


def test_a_sweep_is_placed_vector_by_vector_and_the_verdict_is_the_same() -> None:
    design = Pipe(wrong=40)
    cfg, tape, verdict = record(design, "random_stalls_both_sides")
    seen = trace(TESTS["roofline_hierarchy_pipe"]["random_stalls_both_sides"], cfg, tape, until_first=False)
    assert [m.vector_id for m in seen.marks if m.kind == "mismatch"] == list(verdict.failed) == ["40"]
    assert seen.marks[0].cycle - (seen.released or 0) == design.shown["cycle"]


def test_a_trace_of_every_failure_stops_after_its_quota_of_vectors(tmp_path: Path) -> None:
    cfg, tape, verdict = ridge_sweep(tmp_path)
    seen = trace(TESTS["roofline_attainable"]["random_sweep"], cfg, tape, until_first=False, max_marked=4)
    assert len(verdict.failed) > 10
    assert [m.vector_id for m in seen.marks] == list(verdict.failed[:4])  # each vector once: one wrong output each
    assert seen.step < len(tape.entries) // 4  # the replay ended there, far short of the sweep


# ---------------------------------------------------------------- the timing diagram


def svg_texts(path: Path) -> dict[str, str]:
    """The SVG parsed as XML: each text by the id of the group holding it (matplotlib's gid, or text_N)."""
    root = ET.parse(path).getroot()
    found: dict[str, str] = {}
    for group in root.iter(f"{SVG}g"):
        for text in group.findall(f"{SVG}text"):
            found[group.get("id", "")] = (found.get(group.get("id", ""), "") + " " + (text.text or "")).strip()
    return found


def cells(texts: dict[str, str]) -> str:
    """The texts inside the diagram (its cells, labels and cycle numbers), not the title or the notes beneath it."""
    return " | ".join(text for key, text in texts.items() if not key.startswith(("note", "title")))


def assert_png(path: Path) -> tuple[int, ...]:
    """A PNG that decodes: its signature, then its pixels through matplotlib."""
    from matplotlib import image

    assert path.read_bytes()[:8] == PNG_SIGNATURE
    pixels = image.imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 400
    return pixels.shape


def draw_waves(design: Design, test: str, folder: Path) -> Path:
    cfg, tape, _ = record(design, test)
    seen = trace(TESTS[design.top][test], cfg, tape)
    view = waves.diagram(seen, design.top, FMT, PARAMS.levels, f"a $group$ of {test}")  # $: no matplotlib math
    assert view is not None
    save(waves.figure(view, FMT), folder / test)
    return folder / test


@pytest.mark.parametrize(("design", "test", "output"), [
    (Divider(wrong=4), "back_to_back", "ai_o"),
    (Pipe(wrong=9), "document_and_edge_cases", "cap_o"),
])
def test_the_timing_diagram_shows_the_first_wrong_cycle(design: Design, test: str, output: str, tmp_path: Path) -> None:
    base = draw_waves(design, test, tmp_path)
    texts = svg_texts(base.with_suffix(".svg"))
    cycle, expected, actual = (design.shown[key] for key in ("cycle", "expected", "actual"))
    assert texts["failing-cycle-number"].split() == [str(cycle)] and texts["title"] == f"a $group$ of {test}"
    assert f"first failure in cycle {cycle}:" in texts["note-0"]
    line = f"{output}: expected {FMT.describe(expected, 'GFLOP/s' if output == 'cap_o' else 'FLOP/B')}, " \
           f"actual {FMT.describe(actual, 'GFLOP/s' if output == 'cap_o' else 'FLOP/B')}"
    assert line in " ".join(texts[key] for key in texts if key.startswith("note"))
    assert FMT.hex(expected) in cells(texts) and FMT.hex(actual) in cells(texts)  # the failing column's cells
    waited = [g for g in ET.parse(base.with_suffix(".svg")).getroot().iter(f"{SVG}g") if g.get("id") == "waited-done_o"]
    assert (len(waited) > 0) == (design.top == "roofline_intensity")  # the divider's bench sleeps until done_o rises
    assert_png(base.with_suffix(".png"))


def test_an_event_is_named_by_its_kind_not_by_a_vector(tmp_path: Path) -> None:
    design = PhantomPipe()
    texts = svg_texts(draw_waves(design, "document_and_edge_cases", tmp_path).with_suffix(".svg"))
    assert texts["note-0"] == f"first failure in cycle {design.shown['cycle']}: a handshake failure"
    assert "out of nowhere" in texts["note-1"]


@dataclass
class LyingDivider(Divider):
    """A reply that claims busy_o has the most bits a tape allows, and sets them all while busy
    (the bench reads it as a truth value, so the test runs on to its planted ai_o bug)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.widths["busy_o"] = tapes.MAX_WIDTH

    def output(self, name: str) -> int:
        value = super().output(name)
        return (1 << tapes.MAX_WIDTH) - 1 if name == "busy_o" and value else value


def longest_text(svg: Path) -> int:
    return max(len(t.text or "") for t in ET.parse(svg).getroot().iter(f"{SVG}text"))


def test_a_reply_lying_about_a_ports_width_still_gives_a_bounded_picture(tmp_path: Path) -> None:
    base = draw_waves(LyingDivider(wrong=2), "back_to_back", tmp_path)
    assert longest_text(base.with_suffix(".svg")) < 200 and ">1e308" in cells(svg_texts(base.with_suffix(".svg")))
    huge = (1 << tapes.MAX_WIDTH) - 1
    marks = [traces.Mark(1, 1, "0", "mismatch", fields=(("cap_o", 5, huge, "GFLOP/s"), ("mem_bound_o", 1, 0, "bit")),
                        inputs=(("peak_i", 3), ("bw_i", 1 << 20), ("ai_i", 1 << 16)))]
    found = roofs.misses(marks, FMT, 1, "lying", 1)
    assert found is not None and math.isinf(found.points[0].actual or 0)
    save(roofs.figure(found), tmp_path / "roof")
    assert longest_text(tmp_path / "roof.svg") < 200
    assert_png(tmp_path / "roof.png")


def test_a_failure_before_the_reset_ends_gets_no_diagram() -> None:
    design = Divider()
    design.widths = {**design.widths, "ai_o": 8}  # one narrow port: the width check fails before the reset
    cfg, tape, verdict = record(design, "port_widths_and_reset")
    assert verdict.failed == ("ai_o",)
    seen = trace(TESTS["roofline_intensity"]["port_widths_and_reset"], cfg, tape)
    assert seen.first is not None and seen.first.vector_id == "ai_o"
    assert waves.diagram(seen, "roofline_intensity", FMT, 3, "t") is None


# ---------------------------------------------------------------- the roofline of failing vectors


def test_the_roofline_puts_a_ridge_bug_at_the_ridge(tmp_path: Path) -> None:
    cfg, tape, verdict = ridge_sweep(tmp_path)
    assert len(verdict.failed) > 5
    seen = trace(TESTS["roofline_attainable"]["random_sweep"], cfg, tape, until_first=False)
    found = roofs.misses(seen.marks, FMT, 1, "random_sweep", len(verdict.failed))
    assert found is not None and found.vectors == len(verdict.failed)
    # The bug is memory-bound where ai*bw == peak exactly: the ridge, x = 1 (0/0 too, with peak = 0).
    assert [p.x for p in found.points if p.what == "mem_bound_o"] == [1.0] * len(verdict.failed)
    save(roofs.figure(found), tmp_path / "sweep")
    root = ET.parse(tmp_path / "sweep.svg").getroot()

    def points(gid: str) -> list[tuple[float, float]]:
        group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == gid)
        return [(float(u.get("x", "nan")), float(u.get("y", "nan"))) for u in group.iter(f"{SVG}use")]

    drawn, (ridge,) = points("wrong-mem_bound_o"), points("ridge")
    assert len(drawn) == len(verdict.failed)
    assert all(abs(x - ridge[0]) < 0.5 and abs(y - ridge[1]) < 0.5 for x, y in drawn)  # on the ridge marker itself
    assert not [g for g in root.iter(f"{SVG}g") if g.get("id", "").startswith("wrong-cap")]
    assert f"{len(verdict.failed)} failing vector(s)" in ET.tostring(root, encoding="unicode")
    assert_png(tmp_path / "sweep.png")


# ---------------------------------------------------------------- the reports


@pytest.fixture(scope="session")  # built once a worker (a module fixture is rebuilt each time xdist returns to the file)
def drawn(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A report folder and its result.json: a failing visible group and a failing hidden one, each with a real picture."""
    folder = tmp_path_factory.mktemp("report")
    pictures = {}
    for name, design in (("visible", Divider(wrong=1)), ("hidden", Divider(wrong=2))):
        base = draw_waves(design, "back_to_back", folder / "groups" / name / "pictures")
        pictures[name] = {"test": "back_to_back", "caption": f"back_to_back: the cycles <{name}>",
                          "svg": str(base.with_suffix(".svg").relative_to(folder)),
                          "png": str(base.with_suffix(".png").relative_to(folder))}
    groups = [{"name": name, "hidden": name == "hidden", "kind": "sim", "covers": "c", "weight": 10, "score": 5.0,
               "status": "partial", "scoring": "proportional", "detail": ["back_to_back: 3 of 4 passed", "a < b & c"],
               "failing": ["back_to_back: 1"], "rerun": "make sim", "log": f"groups/{name}/sim.log", "seconds": 1.0,
               "pictures": [pictures[name]]} for name in ("visible", "hidden")]
    return folder, {"schema": 1, "lab": 3, "title": "t", "top": "roofline_intensity", "submission": "s", "sim": "icarus",
                    "status": "graded", "gradable": True, "score": 10.0, "max_score": 20, "stage": "ok", "problems": [],
                    "warnings": [], "notes": [], "groups": groups, "seconds": 2.0}


def png_of(uri: str, tmp_path: Path) -> Path:
    assert uri.startswith("data:image/png;base64,")
    path = tmp_path / f"decoded-{len(list(tmp_path.glob('decoded-*')))}.png"
    path.write_bytes(base64.b64decode(uri.split(",", 1)[1], validate=True))
    assert_png(path)
    return path


def test_the_terminal_names_the_pictures_and_a_student_view_none(drawn: tuple[Path, dict]) -> None:
    _, result = drawn
    instructor, student = "\n".join(terminal.terminal(result)), "\n".join(terminal.terminal(result, visible_only=True))
    for name in ("visible", "hidden"):
        assert f"groups/{name}/pictures/back_to_back.svg (and back_to_back.png)" in instructor
    assert "groups/" not in student  # a platform's page: the pictures travel in its results file, never as paths


def test_gradescope_carries_the_pictures_as_html_and_a_hidden_ones_only_after_the_due_date(
        drawn: tuple[Path, dict], tmp_path: Path) -> None:
    folder, result = drawn
    document = platforms.gradescope(result, folder)
    visible, hidden = document["tests"]
    for test in (visible, hidden):
        assert test["output_format"] == "html"
        images = re.findall(r'<img alt="[^"]*" width="100%" src="(data:image/png;base64,[^"]+)">', test["output"])
        assert len(images) == 1
        png_of(images[0], tmp_path)
        assert "a &lt; b &amp; c" in test["output"] and "<pre>" in test["output"]  # the text stays text
    assert visible["visibility"] == "visible" and hidden["visibility"] == "after_due_date"
    assert "png" not in document["output"] and "img" not in document["output"]
    plain = platforms.gradescope(result)  # without the report folder: text, as before
    assert all("output_format" not in t and "<img" not in t["output"] for t in plain["tests"])


def test_prairielearn_carries_the_visible_pictures_and_never_a_hidden_one(drawn: tuple[Path, dict], tmp_path: Path) -> None:
    folder, result = drawn
    document = platforms.prairielearn(result, folder)
    (test,) = document["tests"]
    (image,) = test["images"]
    assert image["label"] == "back_to_back: the cycles <visible>"
    assert png_of(image["url"], tmp_path).read_bytes() == (folder / result["groups"][0]["pictures"][0]["png"]).read_bytes()
    hidden_png = base64.b64encode((folder / result["groups"][1]["pictures"][0]["png"]).read_bytes()).decode()
    assert hidden_png[:200] not in json.dumps(document) and "<hidden>" not in json.dumps(document)


WRAPPING = 600  # bytes around a picture's data URI in a results file: its caption twice, the tags, the keys


@pytest.mark.parametrize("make", [platforms.gradescope, platforms.prairielearn], ids=["gradescope", "prairielearn"])
def test_a_results_file_stays_within_its_bound_and_names_the_pictures_it_leaves_out(
        drawn: tuple[Path, dict], make: Callable, tmp_path: Path) -> None:
    """At the stated bound and at bounds just around each picture's cost: the file written is never
    larger than the bound, a picture left out is one that would not have fitted (the room left is
    less than its data URI and the few hundred bytes of HTML and JSON around it), and it is named in
    its group's output."""
    folder, result = drawn
    text_only = platforms.size(make(result, folder, limit=0))  # no picture fits in no room
    uris = {p["caption"]: "data:image/png;base64," + base64.b64encode((folder / p["png"]).read_bytes()).decode()
            for g in result["groups"] for p in g["pictures"]}
    for limit in (platforms.MAX_RESULTS_BYTES, text_only, text_only + min(map(len, uris.values())),
                  text_only + sum(map(len, uris.values())) + 2000, text_only - 1):
        document = make(result, folder, limit=limit)
        written = platforms.size(document)
        assert written <= max(limit, text_only)
        shown = json.dumps(document)
        for caption, uri in uris.items():
            if uri in shown:
                continue
            if caption.endswith("<hidden>") and make is platforms.prairielearn:
                continue  # never shown there, whatever the room
            assert f"picture not included in this results file (it would pass 200 kB): {caption}" in shown
            assert max(limit, text_only) - written < len(uri) + WRAPPING, (limit, written, caption)


@pytest.mark.parametrize("make", [platforms.gradescope, platforms.prairielearn], ids=["gradescope", "prairielearn"])
def test_a_results_file_of_exactly_its_bound_keeps_every_picture_and_one_byte_less_does_not(
        drawn: tuple[Path, dict], make: Callable) -> None:
    folder, result = drawn
    whole = make(result, folder, limit=10 * platforms.MAX_RESULTS_BYTES)
    assert "picture not included" not in json.dumps(whole)
    at_bound = make(result, folder, limit=platforms.size(whole))
    assert at_bound == whole
    under = make(result, folder, limit=platforms.size(whole) - 1)
    assert platforms.size(under) < platforms.size(whole) and "picture not included" in json.dumps(under)


def test_a_picture_is_saved_in_few_colours(drawn: tuple[Path, dict]) -> None:
    from PIL import Image

    folder, result = drawn
    for picture in (p for g in result["groups"] for p in g["pictures"]):
        with Image.open(folder / picture["png"]) as image:
            assert image.mode == "P" and len(image.getcolors() or []) <= pictures.PNG_COLOURS


# ---------------------------------------------------------------- end to end




def mutant_copy(mutant_id: str, folder: Path) -> Path:
    from roofline_flows.rtl_mutant_catalogue import apply, load_catalogue

    mutant = next(m for m in load_catalogue() if m.id == mutant_id)
    folder.mkdir(parents=True)
    for stem in MODULES[mutant.top].sources:
        (folder / f"{stem}.sv").write_text((RTL_DIR / f"{stem}.sv").read_text())
    apply(mutant, folder)
    return folder


def grade(rtl: Path, out: Path, lab: int, *extra: str) -> tuple[dict[str, Any], str]:
    run = subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(lab), "--rtl", str(rtl), "--out",
                          str(out), *extra], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    return json.loads((out / "result.json").read_text()), run.stdout


def pictured(result: dict[str, Any], out: Path, check: Callable[[Path], None]) -> list[dict[str, Any]]:
    found = [g for g in result["groups"] if g["pictures"]]
    for group in found:
        for picture in group["pictures"]:
            ET.parse(out / picture["svg"])
            assert_png(out / picture["png"])
            check(out / picture["svg"])
    return found


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_graded_divider_bug_gets_its_diagram_everywhere_and_hidden_stays_hidden(tmp_path: Path) -> None:
    rtl = mutant_copy("divider_truncates", tmp_path / "rtl")
    result, stdout = grade(rtl, tmp_path / "out", 3, "--student-view")
    groups = pictured(result, tmp_path / "out", lambda svg: None)
    visible = [g for g in groups if not g["hidden"]]
    hidden = [g for g in groups if g["hidden"]]
    assert visible and hidden and all(g["score"] < g["weight"] for g in groups)
    for group in visible:
        for picture in group["pictures"]:
            cycle = re.search(r"cycle (\d+)\)", picture["caption"])
            assert cycle and svg_texts(tmp_path / "out" / picture["svg"])["failing-cycle-number"].split() == [cycle[1]]
    # A platform's stdout names no file of the report folder (the student cannot open it): the visible
    # pictures reach the student inside gradescope.json and prairielearn.json, the hidden ones not at all.
    assert not any(p["svg"] in stdout for g in groups for p in g["pictures"]) and "pictures/" not in stdout
    gradescope = json.loads((tmp_path / "out" / "gradescope.json").read_text())
    prairie = json.loads((tmp_path / "out" / "prairielearn.json").read_text())
    by_name = {t["name"]: t for t in gradescope["tests"]}
    for group in visible:
        assert by_name[group["name"]]["output_format"] == "html" and "data:image/png;base64," in by_name[group["name"]]["output"]
        (test,) = [t for t in prairie["tests"] if t["name"] == group["name"]]
        assert test["images"] and test["images"][0]["url"].startswith("data:image/png;base64,")
    for group in hidden:
        assert by_name[group["name"]]["visibility"] == "after_due_date"
        assert group["name"] not in {t["name"] for t in prairie["tests"]}
    assert "data:image" not in gradescope["output"]


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_graded_ridge_bug_gets_its_roofline(tmp_path: Path) -> None:
    rtl = mutant_copy("ridge_memory_bound", tmp_path / "rtl")
    result, stdout = grade(rtl, tmp_path / "out", 1, "--visible-only")

    def at_the_ridge(svg: Path) -> None:
        root = ET.parse(svg).getroot()
        ids = {g.get("id") for g in root.iter(f"{SVG}g")}
        assert "wrong-mem_bound_o" in ids and "ridge" in ids

    groups = pictured(result, tmp_path / "out", at_the_ridge)
    assert groups and all(p["svg"] in stdout for g in groups for p in g["pictures"])


# ---------------------------------------------------------------- the first wrong event (issue 33)


def clocked_trace(folder: Path, top: str, test: str, bug: str, params: ParamSet = PARAMS, sweep: int = 120
                  ) -> traces.Trace:
    """A test against a cycle model with one bug (tests/support/sequential_design.py), replayed with a trace."""
    from sequential_design import record as record_clocked

    cfg = BenchConfig(top, "icarus", params, 7, sweep=sweep)
    found = record_clocked(cfg, test, bug)
    return trace(TESTS[top][test], cfg, found)


@pytest.mark.parametrize(("bug", "latency"), [("late", 5), ("early", 3)])
def test_a_latency_picture_starts_at_the_first_late_result_and_shows_its_input(bug: str, latency: int,
                                                                                tmp_path: Path) -> None:
    """The first result (its input accepted in cycle 1) comes `latency` cycles later: the picture is of
    that cycle, with the input's column beside it, not of the end of the stream (the issue's 993-1005)."""
    seen = clocked_trace(tmp_path, "roofline_hierarchy_pipe", "one_result_per_clock", bug)
    view = waves.diagram(seen, "roofline_hierarchy_pipe", FMT, PARAMS.levels, "late")
    assert view is not None and view.failing_cycle == 1 + latency
    assert view.began is not None and view.columns[view.began] == 1
    assert max(c for c in view.columns if c is not None) <= view.failing_cycle + waves.MAX_AFTER
    assert f"its input was accepted in cycle 1, {latency} cycles before (shaded blue)" in view.notes
    driven = next(lane for lane in view.lanes if lane.name == "in_valid_i")
    assert driven.values[view.began] == 1  # the input offered there, and taken (in_ready_o high)
    assert next(lane for lane in view.lanes if lane.name == "in_ready_o").values[view.began] == 1
    save(waves.figure(view, FMT), tmp_path / "late")
    assert "input-cycle" in (tmp_path / "late.svg").read_text()


def test_an_expected_value_is_drawn_only_where_the_design_s_value_was_read(tmp_path: Path) -> None:
    """Lab 3 drew an expected sat_o in a cycle where sat_o was not sampled. The trace below holds an
    expectation of sat_o in a cycle with no read of it (as a window's edge can leave): the diagram
    draws no expected value there, and draws it where sat_o was read."""
    seen = clocked_trace(tmp_path, "roofline_intensity", "edge_cases", "div0 not saturated")
    reads = {s.cycle for s in seen.samples if s.kind == "read" and s.port == "sat_o"}
    spare = next(c for c in range(min(s.cycle for s in seen.samples), seen.first.cycle) if c not in reads)  # type: ignore[union-attr]
    seen.samples.appendleft(traces.Sample(0, spare, "expect", "sat_o", 1))
    view = waves.diagram(seen, "roofline_intensity", FMT, PARAMS.levels, "sat")
    assert view is not None
    actual = next(lane for lane in view.lanes if lane.name == "sat_o")
    expected = next(lane for lane in view.lanes if lane.name == "sat_o expected")
    assert all(want is None for want, got in zip(expected.values, actual.values, strict=True) if got is None)
    assert expected.values[view.failing] == 1 and actual.values[view.failing] == 0
    assert spare not in [c + (seen.released or 0) for c, v in zip(view.columns, expected.values, strict=True)
                         if c is not None and v is not None]


def roof_svg(tmp_path: Path, bug: str, test: str) -> tuple[roofs.Misses, str]:
    cfg = BenchConfig("roofline_attainable", "icarus", PARAMS, 7, sweep=200)
    found = record_model(cfg, test, ModelDesign(FMT, bug))
    verdict = replay(TESTS[cfg.top][test], cfg, found)
    seen = trace(TESTS[cfg.top][test], cfg, found, until_first=False)
    view = roofs.misses(seen.marks, FMT, 1, test, len(verdict.failed))
    assert view is not None
    save(roofs.figure(view), tmp_path / test)
    return view, (tmp_path / f"{test}.svg").read_text()


def test_a_roofline_picture_names_each_failing_case_even_where_they_share_a_spot(tmp_path: Path) -> None:
    """A ridge bug puts every failing case at the ridge, (1, 1): one label there names them all."""
    view, svg = roof_svg(tmp_path, "ridge", "edge_cases")
    cases = {p.case for p in view.points}
    assert {(p.x, p.expected) for p in view.points} == {(1.0, 1.0)} and len(cases) >= 2
    texts = " ".join(text.text or "" for text in ET.fromstring(svg).iter(f"{SVG}text"))
    for case in cases:
        assert case in texts, (case, texts)
    assert "named: every one" in texts


def test_a_wrong_cap_one_lsb_off_stays_visible_inside_its_expected_ring(tmp_path: Path) -> None:
    """The wrong-cap marker was hidden under the expected one: now the expected value is a ring
    drawn over it, larger, and the verdicts larger rings still."""
    assert roofs.EXPECTED_SIZE > max(roofs.SIZES[what] for what in roofs.CAPS)
    assert min(roofs.SIZES[what] for what in roofs.HOLLOW) > roofs.EXPECTED_SIZE
    view, svg = roof_svg(tmp_path, "truncate", "edge_cases")
    assert [p.case for p in view.points if p.what == "cap_o"] == ["one_step_below_peak"]
    root = ET.fromstring(svg)
    ids = [g.get("id") for g in root.iter(f"{SVG}g")]
    assert ids.index("expected-cap_o") > ids.index("wrong-cap_o")  # drawn after it: the ring is on top


@pytest.mark.parametrize(("kind", "said"), [("unresolved", "an output X or Z"), ("error bound", "an error bound failure"),
                                            ("reset", "a reset failure"), ("other", "an other failure")])
def test_a_pictures_note_names_an_event_in_words(kind: str, said: str) -> None:
    """The note once read "a unresolved failure": the scoreboard's kind, with the wrong article."""
    mark = traces.Mark(step=3, cycle=7, vector_id="after_reset", kind=kind, event=True)
    assert waves.notes(mark, ParamSet().params.fmt, 2)[0] == f"first failure in cycle 5: {said}"
