"""Pictures of where a failing test went wrong, for its group's report.

Drawn once the judge has scored a group, for each failing test that has a tape: the test is
replayed once more with a trace (roofline_bench.run.trace), which costs one replay per failing
test and nothing when everything passes. A clocked module gets a timing diagram of the cycles
around its first failure (waves), a combinational one its failing vectors on the roofline
(roofs). Each is written as SVG (its text kept as text) and PNG beside the group's log;
result.json lists them, the terminal report names them, and Gradescope's and PrairieLearn's
results embed the PNG, within a size budget (reports decides where a hidden group's may go).
Every text is drawn as it is (no matplotlib math: a `$` in a name stays a `$`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from roofline_bench.benches import TESTS
from roofline_bench.run import trace
from roofline_bench.tape import Reply
from roofline_bench.trace import Trace
from roofline_core.contract import MODULES
from roofline_core.scoreboard import Verdict
from roofline_course.design_lab import roofs, waves
from roofline_course.design_lab.judge import bench_config
from roofline_course.labs.definitions import Group, Lab
from roofline_course.results import Picture
from roofline_golden import QFormat

MAX_PER_GROUP = 3  # tests of a group pictured at most (the first failing ones)
PNG_DPI = 100
PNG_COLOURS = 64  # the pictures' few colours and their anti-aliasing, at a third of the bytes
_SAVING = threading.Lock()  # matplotlib's settings are global; groups are scored in threads


def draw(lab: Lab, group: Group, found: dict[str, Verdict], reply: Reply, sim: str, rtl: str, out: Path, folder: Path
         ) -> tuple[list[Picture], list[str]]:
    """The pictures of the group's failing tests, written under `folder`, and a note for each that could not be drawn."""
    cfg = bench_config(lab, group, sim, rtl)
    module = MODULES[lab.top]
    pictures: list[Picture] = []
    problems: list[str] = []
    for name, verdict in found.items():
        tape = reply.tapes.get(name)
        if verdict.passed or not verdict.failures or tape is None or len(pictures) >= MAX_PER_GROUP:
            continue
        title = f"lab {lab.number}: {name}"  # not the group's name: groups of one simulation share the test's picture
        try:
            seen = trace(TESTS[lab.top][name], cfg, tape, until_first=module.clocked)
            drawn = _figure(seen, lab.top, cfg.params.fmt, cfg.params.levels, title, module.clocked, len(verdict.failed))
            if drawn is None:
                continue
            figure, caption = drawn
            base = folder / "pictures" / name  # the simulation's folder: a test of it is one tape, one picture
            save(figure, base)
        except Exception as problem:  # noqa: BLE001 - a picture that cannot be drawn never costs the grade
            problems.append(f"note: no picture of {name} ({type(problem).__name__}: {problem})")
            continue
        pictures.append(Picture(name, f"{name}: {caption}", str(base.with_suffix(".svg").relative_to(out)),
                                str(base.with_suffix(".png").relative_to(out))))
    return pictures, problems


def _figure(seen: Trace, top: str, fmt: QFormat, levels: int, title: str, clocked: bool, failing: int
            ) -> tuple[Any, str] | None:
    if clocked:
        view = waves.diagram(seen, top, fmt, levels, title)
        if view is None:
            return None
        return waves.figure(view, fmt), f"the cycles around the first failure (cycle {view.failing_cycle})"
    found = roofs.misses(seen.marks, fmt, levels, title, failing)
    if found is None:
        return None
    return roofs.figure(found), f"the {found.vectors} failing vector(s) on the roofline"


def save(figure: Any, base: Path) -> None:
    """base.svg (text as text, reproducible ids) and base.png, in PNG_COLOURS colours: a third of the
    full-colour file, so that more of a group's pictures fit in a platform's results file."""
    import matplotlib
    from PIL import Image

    base.parent.mkdir(parents=True, exist_ok=True)
    png = base.with_suffix(".png")
    with _SAVING, matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "roofline-hw"}):
        figure.savefig(base.with_suffix(".svg"), format="svg", metadata={"Date": None})
        figure.savefig(png, format="png", dpi=PNG_DPI, metadata={"Software": None})
    with Image.open(png) as drawn:
        fewer = drawn.convert("RGB").quantize(colors=PNG_COLOURS, method=Image.Quantize.MEDIANCUT)
    fewer.save(png, format="PNG", optimize=True)
