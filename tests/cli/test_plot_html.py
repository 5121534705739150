"""`roofline plot -o x.html`: an interactive page (Plotly from one script beside it), loaded in headless Chromium. It must
log nothing but its own ready line (no console errors) and draw a point for every kernel at every
level where it has one, with a check box for each level and precision."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roofline_cli import main as cli
from roofline_cli.place import place
from roofline_cli.platform import load
from roofline_core.paths import EXAMPLES_DIR

pytestmark = pytest.mark.full  # a headless browser per page: make test-all

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
READY = re.compile(r'"roofline page ready: (\d+) kernels"')


def in_browser(page: Path, work: Path) -> tuple[list[str], str]:
    """The page's console messages and its DOM after Plotly has drawn."""
    run = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={work}",
                          "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return console, run.stdout


def kernel_points(dom: str) -> int:
    """Markers drawn in the kernel traces (their uid starts with kernels-)."""
    traces = dom.split('class="trace scatter trace')[1:]
    return sum(trace.count('<path class="point') for trace in traces if trace.startswith("kernels-"))


def write_page(platform_file: Path, out: Path) -> Path:
    assert cli.main(["plot", str(platform_file), "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("name", ["a100.toml", "document.toml"])
def test_the_page_loads_plotly_from_beside_it_with_hover_and_toggles(name: str, tmp_path: Path) -> None:
    html = write_page(EXAMPLES_DIR / name, tmp_path / "page.html").read_text()
    assert not re.search(r'<script[^>]+src="(https?:)?//', html), "the page loads a script from the network"
    assert "hovertemplate" in html and "roofline-toggles" in html
    for kernel in load(EXAMPLES_DIR / name).kernels:
        assert kernel.name.replace('"', '\\"') in html or kernel.name in html, kernel.name


@needs_chromium
@pytest.mark.parametrize("name", ["a100.toml", "document.toml"])
def test_the_page_loads_without_console_errors_and_draws_every_kernel(name: str, tmp_path: Path) -> None:
    platform = load(EXAMPLES_DIR / name)
    placements = [place(platform, kernel) for kernel in platform.kernels]
    drawable = [[r for r in p.rows if r.intensity > 0 and r.cap > 0] for p in placements]
    console, dom = in_browser(write_page(EXAMPLES_DIR / name, tmp_path / "page.html"), tmp_path / "chromium")

    assert len(console) == 1 and (ready := READY.search(console[0])), console
    assert int(ready.group(1)) == sum(1 for rows in drawable if rows)
    assert kernel_points(dom) == sum(len(rows) for rows in drawable)
    boxes = re.findall(r'<input type="checkbox" data-kind="(\w+)" data-name="([^"]*)"', dom)
    assert boxes == [("level", lv.name) for lv in platform.levels] + [("precision", p) for p in platform.peaks]


@needs_chromium
def test_the_browser_check_sees_a_script_error(tmp_path: Path) -> None:
    """The check above is not blind: a page with a broken script fails it."""
    page = write_page(EXAMPLES_DIR / "a100.toml", tmp_path / "page.html")
    page.write_text(page.read_text().replace("</body>", "<script>undefinedFunction();</script></body>"))
    console, _ = in_browser(page, tmp_path / "chromium")
    assert len(console) == 2 and any("undefinedFunction" in line for line in console), console
