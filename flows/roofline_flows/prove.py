"""`make prove`: every SymbiYosys task of flows/formal/sby/*.sby (one file per unit, run by
sby.py), and one table of every verdict.

- Combinational units (round_cap, attainable, hierarchy, div_step): each property an assertion in
  flows/formal/props_*.sv, enabled by its own macro, one task each, proved for every input.
- Sequential units: k-induction, so the properties hold in every cycle; bounded model checking
  from reset where induction does not close (each .sby says why, and the table gives the depth);
  and covers that must all be reached.

A failure prints the counterexample, decoded into the format's units, and the path of its waveform.
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from roofline_core.paths import BUILD_ROOT
from roofline_core.sources import DropInError, rtl_sources
from roofline_core.tools import ToolError

from . import sby


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make prove", description=__doc__)
    parser.add_argument("-k", "--only", default=None, help="run only the tasks whose unit.task name contains this")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per task")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="SymbiYosys tasks run at once")
    args = parser.parse_args(argv)
    sby_tasks = [t for t in sby.tasks() if args.only is None or args.only in f"{t.unit}.{t.name}"]
    if not sby_tasks:
        print(f"error: no task name (unit.task) contains {args.only!r}", file=sys.stderr)
        return 2
    try:
        rtl_sources(args.rtl)  # a bad RTL= is one line here, not a traceback from every task
        command, tools = sby.toolchain()
    except (DropInError, ToolError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    log_dir = BUILD_ROOT / "prove"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"make prove: {len(sby_tasks)} SymbiYosys tasks ({tools}); logs in {log_dir}", flush=True)
    rows: list[tuple[str, str, str, str, bool, str, float, list[str]]] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(lambda t: sby.run(t, log_dir / "sby", command, args.timeout, args.rtl), sby_tasks):
            task = outcome.task
            mode = {"prove": "k-induction", "bmc": "BMC from reset"}.get(task.mode, task.mode)
            rows.append((task.name, task.unit, task.where, mode, outcome.passed, outcome.summary, outcome.seconds,
                         outcome.detail))
            print(f"  {'PROVED' if outcome.passed else 'FAILED'} {task.unit}.{task.name} ({outcome.seconds:.1f} s)",
                  flush=True)
    print_table(rows)
    failed = sum(1 for row in rows if not row[4])
    print(f"make prove: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


def print_table(rows: list[tuple[str, str, str, str, bool, str, float, list[str]]]) -> None:
    header = ("property", "unit", "parameters", "mode", "result", "time")
    cells = [(name, unit, where, mode, summary if ok else f"FAILED: {summary}", f"{seconds:.1f} s")
             for name, unit, where, mode, ok, summary, seconds, _ in rows]
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(len(header))]
    print()
    for row in [header, tuple("-" * w for w in widths), *cells]:
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for name, unit, _, _, ok, _, _, detail in rows:
        if not ok:
            print(f"\n{unit}.{name}:")
            for line in detail:
                print(f"    {line}")


if __name__ == "__main__":
    sys.exit(main())
