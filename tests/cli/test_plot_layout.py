"""`roofline plot`: pictures to publish. In the PNG (matplotlib, measured as drawn) and in the HTML
page (measured in headless Chromium) no two labels' boxes overlap and none leaves the axes, for
the two example platforms and a generated file of 400 kernels; every ridge of every distinct peak
is labelled, equal peaks are one roof with both names, numbers have three significant figures,
and every decade of both axes has a labelled major tick."""

from __future__ import annotations

import html
import json
import random
import re
import shutil
import subprocess
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from roofline_cli import main as cli
from roofline_cli.place import place
from roofline_cli.platform import load
from roofline_cli.plot import figure
from roofline_core.paths import EXAMPLES_DIR

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
Box = tuple[float, float, float, float]  # left, bottom, right, top (or left, top, right, bottom: only order matters)

# The A100's ridges, by hand from its datasheet: 9.7 and 19.5 TFLOP/s over 7219.2 and 1555 GB/s.
A100_RIDGES = {"L2 ridge\n1.34 FLOP/B", "HBM ridge\n6.24 FLOP/B", "L2 ridge\n2.7 FLOP/B", "HBM ridge\n12.5 FLOP/B"}
# The documents' platform: 100 GFLOP/s over 1000, 200 and 20 GB/s.
DOCUMENT_RIDGES = {"L1 ridge\n0.1 FLOP/B", "LLC ridge\n0.5 FLOP/B", "DRAM ridge\n5 FLOP/B"}


def many_kernels(folder: Path, count: int = 400, seed: int = 7) -> Path:
    """The A100 platform with `count` kernels of random intensities (seeded), some measured."""
    rng = random.Random(seed)
    head = (EXAMPLES_DIR / "a100.toml").read_text().split("[[kernel]]")[0]
    kernels = []
    for index in range(count):
        l2 = 10 ** rng.uniform(-2, 2.5)
        hbm = l2 * 10 ** rng.uniform(0, 1)
        measured = f'\nmeasured = "{rng.uniform(1, 200):.3g} GFLOP/s"' if index % 10 == 0 else ""
        kernels.append(f'[[kernel]]\nname = "kernel {index:03d}"\nprecision = "{rng.choice(["FP64", "FP64 tensor", "FP32"])}"\n'
                       f'intensity = {{ L2 = "{l2:.4g} FLOP/B", HBM = "{hbm:.4g} FLOP/B" }}{measured}\n')
    path = folder / f"kernels-{count}.toml"
    path.write_text(head + "\n".join(kernels))
    return path


def platform_files(tmp_path: Path) -> dict[str, Path]:
    return {"a100": EXAMPLES_DIR / "a100.toml", "document": EXAMPLES_DIR / "document.toml",
            "400 kernels": many_kernels(tmp_path)}


def overlapping(boxes: list[tuple[str, Box]]) -> list[tuple[str, str]]:
    return [(a, b) for (a, p), (b, q) in combinations(boxes, 2) if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]


def outside(boxes: list[tuple[str, Box]], area: Box) -> list[str]:
    return [name for name, (left, low, right, high) in boxes
            if left < area[0] or low < area[1] or right > area[2] or high > area[3]]


def png_labels(fig: Any) -> tuple[list[tuple[str, Box]], Box]:
    """Each label's box as drawn (its text's rounded box) and the axes' box, in pixels."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    labels = [text for text in ax.texts if (text.get_gid() or "").startswith("label-")]
    boxes = [(text.get_text(), tuple(text.get_bbox_patch().get_window_extent(renderer).extents)) for text in labels]
    return boxes, tuple(ax.get_window_extent(renderer).extents)


def png_figure(path: Path) -> Any:
    platform = load(path)
    return figure(platform, [place(platform, kernel) for kernel in platform.kernels])


@pytest.mark.parametrize("name", ["a100", "document", "400 kernels"])
def test_png_labels_never_overlap_or_leave_the_axes(name: str, tmp_path: Path) -> None:
    boxes, area = png_labels(png_figure(platform_files(tmp_path)[name]))
    assert len(boxes) >= 4
    assert not overlapping(boxes), overlapping(boxes)
    assert not outside(boxes, area), outside(boxes, area)


def test_the_png_overlap_check_is_not_blind(tmp_path: Path) -> None:
    fig = png_figure(EXAMPLES_DIR / "a100.toml")
    first, second = [text for text in fig.axes[0].texts if (text.get_gid() or "").startswith("label-")][:2]
    second.xy, second.xyann = first.xy, first.xyann  # one label moved onto another
    boxes, _ = png_labels(fig)
    assert overlapping(boxes)


@pytest.mark.parametrize(("name", "ridges"), [("a100", A100_RIDGES), ("document", DOCUMENT_RIDGES)])
def test_every_ridge_of_every_peak_is_labelled_with_three_significant_figures(name: str, ridges: set[str],
                                                                              tmp_path: Path) -> None:
    boxes, _ = png_labels(png_figure(platform_files(tmp_path)[name]))
    assert {text for text, _ in boxes if " ridge\n" in text} == ridges


def test_equal_peaks_are_one_roof_with_both_names_and_kernels_have_three_figures(tmp_path: Path) -> None:
    fig = png_figure(EXAMPLES_DIR / "a100.toml")
    legend = [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    assert [entry for entry in legend if entry.startswith("peak")] == ["peak FP64: 9.7 TFLOP/s",
                                                                       "peak FP64 tensor, FP32: 19.5 TFLOP/s"]
    assert legend.index("roofs") == 0 and legend.index("kernels") > legend.index("ridge: peak / bandwidth")
    assert "L2: 7.22 TB/s" in legend and "HBM: 1.56 TB/s" in legend
    boxes, _ = png_labels(fig)
    texts = {text for text, _ in boxes}
    # STREAM triad: 2 FLOP / 24 B x 1555 GB/s = 129.58 GFLOP/s; SpMV: 0.17 x 1555 = 264.35.
    assert {"STREAM triad FP64\n130 GFLOP/s", "SpMV CSR FP64\n264 GFLOP/s", "SGEMM 4096\n19.5 TFLOP/s"} <= texts, texts
    drawn = [line for line in fig.axes[0].get_lines() if line.get_linestyle() != "None" and len(line.get_xdata()) == 2]
    flat_roofs = [line for line in drawn if len(set(line.get_ydata())) == 1]
    assert sorted(float(line.get_ydata()[0]) for line in flat_roofs) == [9700.0, 19500.0]


def test_every_decade_has_a_labelled_major_tick(tmp_path: Path) -> None:
    ax = png_figure(EXAMPLES_DIR / "a100.toml").axes[0]
    assert ax.get_ylim() == (10.0, 100_000.0) and ax.get_xlim() == (0.01, 1000.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["10", "100", "1k", "10k", "100k"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.01", "0.1", "1", "10", "100", "1k"]


# --- the HTML page, in the browser ----------------------------------------------------------------

MEASURE_JS = """<script>
setTimeout(() => {
  const gd = document.getElementById("roofline");
  const area = gd.querySelector(".draglayer .nsewdrag").getBoundingClientRect();
  const notes = gd.layout.annotations || [];
  const boxes = [...gd.querySelectorAll("g.annotation")].map((g) => {
    const note = notes[Number(g.getAttribute("data-index"))];
    const r = g.querySelector("rect.bg").getBoundingClientRect();
    return {name: note.name, text: note.text, box: [r.left, r.top, r.right, r.bottom]};
  });
  const out = document.createElement("pre");
  out.id = "label-boxes";
  out.textContent = JSON.stringify({area: [area.left, area.top, area.right, area.bottom], boxes: boxes});
  document.body.appendChild(out);
}, 1500);
</script></body>"""


def page_labels(page: Path, work: Path, before: str = "") -> tuple[list[tuple[str, Box]], Box]:
    """The labels' boxes and the plot area as Chromium draws the page (`before`: a script run first)."""
    measured = page.with_name("measured-" + page.name)
    measured.write_text(page.read_text().replace("</body>", before + MEASURE_JS))
    run = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={work}",
                          "--window-size=1400,1000", "--virtual-time-budget=10000", "--dump-dom", measured.as_uri()],
                         capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="label-boxes">(.*?)</pre>', run.stdout, re.DOTALL)
    assert found, run.stderr[-2000:]
    data = json.loads(html.unescape(found.group(1)))
    labels = [(note["text"], tuple(note["box"])) for note in data["boxes"] if json.loads(note["name"])["role"] != "note"]
    return labels, tuple(data["area"])


def write_page(platform_file: Path, out: Path) -> Path:
    assert cli.main(["plot", str(platform_file), "-o", str(out)]) == 0
    return out


@pytest.mark.full
@needs_chromium
@pytest.mark.parametrize("name", ["a100", "document", "400 kernels"])
def test_page_labels_never_overlap_or_leave_the_axes(name: str, tmp_path: Path) -> None:
    path = platform_files(tmp_path)[name]
    labels, area = page_labels(write_page(path, tmp_path / "page.html"), tmp_path / "chromium")
    platform = load(path)
    distinct_peaks = len(set(platform.peaks.values()))
    kernels = min(len(platform.kernels), 20)  # at most 20 kernels are labelled; hover shows the rest
    assert distinct_peaks * len(platform.levels) + kernels // 2 <= len(labels) <= distinct_peaks * len(platform.levels) + kernels
    if name != "400 kernels":
        assert len(labels) == distinct_peaks * len(platform.levels) + len(platform.kernels), "every kernel labelled"
    assert not overlapping(labels), overlapping(labels)
    assert not outside(labels, area), outside(labels, area)


@pytest.mark.full
@needs_chromium
def test_the_page_overlap_check_is_not_blind(tmp_path: Path) -> None:
    page = write_page(EXAMPLES_DIR / "a100.toml", tmp_path / "page.html")
    move = ('<script>setTimeout(() => { const gd = document.getElementById("roofline"); const a = gd.layout.annotations;'
            ' Plotly.relayout(gd, {"annotations[1].x": a[0].x, "annotations[1].y": a[0].y, "annotations[1].ax": a[0].ax,'
            ' "annotations[1].ay": a[0].ay}); }, 500);</script>')
    labels, _ = page_labels(page, tmp_path / "chromium", before=move)
    assert overlapping(labels)


@pytest.mark.parametrize("name", ["a100", "document"])
def test_the_page_labels_what_the_png_labels_and_loads_one_shared_script(name: str, tmp_path: Path) -> None:
    path = platform_files(tmp_path)[name]
    page = write_page(path, tmp_path / "page.html")
    boxes, _ = png_labels(png_figure(path))
    text = page.read_text()
    scripts = re.findall(r'<script[^>]+src="([^"]+)"', text)
    assert len(scripts) == 1 and not re.match(r"(https?:)?//", scripts[0]), scripts
    assert (tmp_path / scripts[0]).stat().st_size > 1_000_000  # Plotly itself, beside the page
    assert len(text) < 100_000, f"the page is {len(text)} bytes"
    from roofline_cli.plot_html import figure as page_figure

    platform = load(path)
    layout = page_figure(platform, [place(platform, kernel) for kernel in platform.kernels]).layout
    in_page = {html.unescape(note.text).replace("<br>", "\n") for note in layout.annotations
               if json.loads(note.name)["role"] != "note"}
    assert in_page == {label for label, _ in boxes}


def test_the_legend_lists_the_roofs_then_the_kernels_marks(tmp_path: Path) -> None:
    from roofline_cli.plot_html import figure as page_figure

    platform = load(EXAMPLES_DIR / "a100.toml")
    fig = page_figure(platform, [place(platform, kernel) for kernel in platform.kernels])
    shown = [trace for trace in fig.data if trace.showlegend is not False]
    groups = [trace.legendgroup for trace in shown]
    assert groups == sorted(groups, key=["roofs", "kernels"].index) and set(groups) == {"roofs", "kernels"}
    assert [trace.name for trace in shown if trace.legendgroup == "roofs"] == [
        "L2: 7.22 TB/s", "HBM: 1.56 TB/s", "peak FP64: 9.7 TFLOP/s", "peak FP64 tensor, FP32: 19.5 TFLOP/s",
        "ridge: peak / bandwidth"]
    assert len(shown) <= 10
    assert fig.layout.yaxis.ticktext == ("10", "100", "1k", "10k", "100k")
