"""`make report`: the last regression as one HTML page, with the documents' roofline computed by the RTL.

It reads what the last runs left in build/: the regression's JUnit XML (make test), the
statistics and coverage of the project's own bulk sweeps (sweep_stats.json of rtl/; never a
drop-in's, such as the test suite's deliberately failing ones), and make synth's results when
present. It draws examples/document.toml with `roofline plot --rtl icarus`.
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_core.config import DEFAULT_SIM, SIMS
from roofline_core.contract import ParamSet
from roofline_core.paths import BUILD_ROOT, EXAMPLES_DIR, shown

REPORT_DIR = BUILD_ROOT / "report"
REGRESSION_XML = BUILD_ROOT / "regression.xml"


def regression_section() -> str:
    if not REGRESSION_XML.exists():
        return "<p>No regression results: run <code>make test</code> first.</p>"
    root = ET.parse(REGRESSION_XML).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = {key: sum(int(s.get(key, 0)) for s in suites) for key in ("tests", "failures", "errors", "skipped")}
    seconds = sum(float(s.get("time", 0)) for s in suites)
    cases = list(root.iter("testcase"))
    failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    slow = sorted(cases, key=lambda c: float(c.get("time", 0)), reverse=True)[:10]
    rows = "".join(f"<tr><td>{html.escape(c.get('classname', ''))}::{html.escape(c.get('name', ''))}</td>"
                   f"<td>{float(c.get('time', 0)):.1f} s</td></tr>" for c in slow)
    failures = "".join(f"<li><code>{html.escape(c.get('name', ''))}</code>: {html.escape(_message(c))}</li>" for c in failed)
    verdict = "PASS" if not failed else "FAIL"
    return (f"<p class='{verdict.lower()}'><b>{verdict}</b>: {totals['tests']} tests, {totals['failures']} failures, "
            f"{totals['errors']} errors, {totals['skipped']} skipped, {seconds:.0f} s of test time "
            f"(<code>{html.escape(shown(REGRESSION_XML))}</code>)</p>"
            + (f"<ul>{failures}</ul>" if failures else "")
            + f"<h3>Slowest tests</h3><table><tr><th>test</th><th>time</th></tr>{rows}</table>")


def _message(case: ET.Element) -> str:
    problem = case.find("failure")
    if problem is None:
        problem = case.find("error")
    return "" if problem is None else problem.get("message", "")[:300]


def project_sweeps() -> list[Path]:
    """The statistics of the project's own sweeps: build/<sim>/bulk-<...>-<digest of rtl/ and the bench>.
    A drop-in's sweep builds under build/dropin/ (roofline_bulk.simulation), and a sweep of an older
    rtl/ or a cluster's shard folder ends otherwise, so neither is shown nor merged into the coverage."""
    from roofline_bulk.simulation import sweep_build  # here: it brings the simulation runner, which a page needs not

    found = []
    for sim in SIMS:
        digest = sweep_build(SweepConfig(BULK_TOPS[0], sim, ParamSet(), seed=1)).folder.name.rsplit("-", 1)[1]
        found += [path for path in sorted((BUILD_ROOT / sim).glob(f"bulk-*-{digest}/sweep_stats.json"))]
    return found


def sweeps_section() -> str:
    stats = [json.loads(p.read_text()) for p in project_sweeps()]
    if not stats:
        return "<p>No bulk sweeps yet: <code>make sweep</code> or <code>make test</code> runs them.</p>"
    head = "<tr>" + "".join(f"<th>{name}</th>" for name in (
        "module", "sim", "format", "mode", "seed", "checked", "mismatched", "M vectors/s")) + "</tr>"
    rows = "".join(
        f"<tr><td>{s['top']}</td><td>{s['sim']}</td><td>{s['format']} L{s['levels']}</td><td>{s['mode']}</td><td>{s['seed']}</td>"
        f"<td>{s['checked']:,}</td><td>{s['mismatched']:,}</td><td>{s['vectors_per_s'] / 1e6:.2f}</td></tr>" for s in stats)
    bins: dict[str, int] = {}
    for s in stats:
        for name, hits in s["bins"].items():
            bins[name] = bins.get(name, 0) + hits
    coverage = "".join(f"<tr><td>{html.escape(name)}</td><td class='{'miss' if hits == 0 else ''}'>{hits:,}</td></tr>"
                       for name, hits in bins.items())
    return (f"<table>{head}{rows}</table><h3>Coverage over these sweeps</h3>"
            f"<table><tr><th>bin</th><th>vectors</th></tr>{coverage}</table>")


def synth_section() -> str:
    results = BUILD_ROOT / "synth" / "results.json"
    if not results.exists():
        return "<p>No synthesis results: <code>make synth</code>.</p>"
    rows = ""
    for r in json.loads(results.read_text())["runs"]:
        cells = r["cells"]
        luts = cells.get("SB_LUT4", cells.get("total", 0))
        fmax = f"{r['fmax_mhz']:.1f}" if r.get("fmax_mhz") else ""
        rows += (f"<tr><td>{r['top']}</td><td>UQ{r['param_set']['int_bits']}.{r['param_set']['frac_bits']}</td>"
                 f"<td>{r['flow']}</td><td>{luts:,}</td><td>{fmax}</td><td>{'ok' if r['ok'] else 'FAILED'}</td></tr>")
    head = "".join(f"<th>{name}</th>" for name in ("module", "format", "flow", "cells / LUT4", "Fmax MHz", ""))
    return f"<table><tr>{head}</tr>{rows}</table>"


def plot_section(sim: str) -> str:
    picture = REPORT_DIR / "roofline.svg"
    # The roofline command is a user of the harness, not part of it: run it as users do.
    command = [sys.executable, "-m", "roofline_cli.main", "plot", str(EXAMPLES_DIR / "document.toml"), "--rtl", sim,
               "-o", str(picture)]
    status = subprocess.run(command).returncode
    if status != 0 or not picture.exists():
        return f"<p class='fail'>The roofline could not be drawn through the RTL (exit {status}); see the log above.</p>"
    svg = picture.read_text()
    return svg[svg.index("<svg"):]


PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>roofline-hw regression report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}} table{{border-collapse:collapse;margin:.5em 0}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}} .pass{{color:#060}} .fail{{color:#a00}} .miss{{background:#fdd}}
svg{{max-width:100%;height:auto}}</style></head><body>
<h1>roofline-hw regression report</h1>
<h2>The documents' kernels, caps computed by the RTL</h2>{plot}
<h2>Regression</h2>{regression}
<h2>Bulk sweeps</h2>{sweeps}
<h2>Synthesis</h2>{synth}
</body></html>
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make report", description=__doc__)
    parser.add_argument("--sim", default=DEFAULT_SIM, choices=SIMS)
    args = parser.parse_args(argv)
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    page = PAGE.format(plot=plot_section(args.sim), regression=regression_section(), sweeps=sweeps_section(),
                       synth=synth_section())
    out = REPORT_DIR / "index.html"
    out.write_text(page)
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
