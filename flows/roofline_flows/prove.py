"""`make prove`: every SymbiYosys task of flows/formal/sby/*.sby (one file per unit, run by
sby.py), and one table of every verdict.

Every property harness attaches to its unit by the unit's ports (flows/formal/props_<unit>.sv), so
`make prove RTL=<file or folder>` checks the drop-in: the header names the file each unit comes
from, and the table says which tasks checked a drop-in.

- Combinational units (round_cap, attainable, hierarchy, div_step): each property an assertion,
  enabled by its own macro, one task each, proved for every input.
- Sequential units: k-induction, so the properties hold in every cycle; bounded model checking
  from reset where induction does not close (each .sby says why, and the table gives the depth);
  and covers that must all be reached. A drop-in without the project's internal registers is
  checked by the port properties alone: BOUNDED when induction does not close without them.

A failure prints the counterexample, decoded into the format's units, the path of its waveform,
and a line that reruns it (with RTL= and every option of the run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from roofline_core.paths import BUILD_ROOT, FLOWS_DIR, RTL_DIR, shown
from roofline_core.sources import DropInError, drop_in_files, rtl_sources
from roofline_core.tools import ToolError
from roofline_flows import counterexamples, sby

DEFAULT_TIMEOUT = 1200.0  # the pipeline's data proof took 151-534 s alone, over 600 s beside other work
# Each task's seconds in the last complete run (every task, the project's RTL, all passed), kept
# in the repository so that --within can choose on a fresh clone; a complete run rewrites it.
RECORDED_TIMES = FLOWS_DIR / "results" / "prove-times.json"
MODES = {"prove": "k-induction", "bmc": "BMC from reset", "cover": "cover"}


def rerun_line(outcome: sby.Outcome, args: argparse.Namespace) -> str:
    """The command that runs this task again on the same design, with the options of this run."""
    options = [f"-k {outcome.task.unit}.{outcome.task.name}"]
    if args.timeout != DEFAULT_TIMEOUT:
        options.append(f"--timeout {args.timeout:g}")
    if args.no_probes:
        options.append("--no-probes")
    line = f'make prove ARGS="{" ".join(options)}"'
    return line + (f' RTL="{args.rtl}"' if args.rtl else "")


def describe_design(drop_in: str | None) -> list[str]:
    """Which file each unit comes from in this run."""
    if not drop_in:
        return [f"checking the project's RTL ({shown(RTL_DIR)})"]
    lines = [f"checking RTL={drop_in}:"]
    for path in rtl_sources(drop_in):
        if not path.is_relative_to(RTL_DIR):
            role = "in place of rtl/" + path.name if (RTL_DIR / path.name).exists() else "a module of its own"
            lines.append(f"  {path.stem:<24} {path} ({role})")
    lines.append("  every other module from rtl/")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make prove", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", "--only", default=None, help="run only the tasks whose unit.task name contains this")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds allowed per task")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="SymbiYosys tasks run at once")
    parser.add_argument("--no-probes", action="store_true",
                        help="never attach the project's internal invariants: check a drop-in by its ports alone")
    parser.add_argument("--within", type=float, default=None, metavar="SECONDS",
                        help="skip the tasks that took longer than this in the last complete run "
                             f"({shown(RECORDED_TIMES)}); the skipped ones are listed")
    args = parser.parse_args(argv)
    sby_tasks = [t for t in sby.tasks() if args.only is None or args.only in f"{t.unit}.{t.name}"]
    if not sby_tasks:
        print(f"error: no task name (unit.task) contains {args.only!r}", file=sys.stderr)
        return 2
    if args.within is not None and args.within < 0:
        print(f"error: --within {args.within:g}: a number of seconds, 0 or more", file=sys.stderr)
        return 2
    complete = args.only is None and args.within is None and not args.rtl and not args.no_probes
    skipped: list[str] = []
    if args.within is not None:
        recorded = json.loads(RECORDED_TIMES.read_text()) if RECORDED_TIMES.exists() else {}
        skipped = [name for t in sby_tasks if recorded.get(name := f"{t.unit}.{t.name}", 0) > args.within]
        sby_tasks = [t for t in sby_tasks if f"{t.unit}.{t.name}" not in skipped]
        if not sby_tasks:
            print(f"error: every task chosen took over {args.within:g} s in the last complete run: nothing to prove",
                  file=sys.stderr)
            return 2
    try:
        if args.rtl:
            drop_in_files(args.rtl)
        command, tools = sby.toolchain()
    except (ToolError, DropInError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    log_dir = BUILD_ROOT / "prove"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"make prove: {len(sby_tasks)} SymbiYosys tasks ({tools}); logs in {log_dir}", flush=True)
    for line in describe_design(args.rtl):
        print(line, flush=True)
    outcomes: list[sby.Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = pool.map(lambda t: sby.run(t, log_dir / "sby", command, args.timeout, args.rtl, not args.no_probes),
                        sby_tasks)
        for outcome in runs:
            outcomes.append(outcome)
            where = " [drop-in]" if outcome.attachment and outcome.attachment.drop_in else ""
            print(f"  {outcome.verdict} {outcome.task.unit}.{outcome.task.name}{where} ({outcome.seconds:.1f} s)",
                  flush=True)
    print_table(outcomes)
    if not args.rtl:  # make mutants judges a mutant only by the proofs the project's RTL passes
        record_times(outcomes, log_dir / "times.json")
    if complete and all(o.passed and not o.bounded for o in outcomes) and args.timeout == DEFAULT_TIMEOUT:
        RECORDED_TIMES.write_text(json.dumps({f"{o.task.unit}.{o.task.name}": round(o.seconds, 1) for o in outcomes},
                                             indent=1, sort_keys=True) + "\n")
    for outcome in outcomes:
        if not outcome.passed or outcome.bounded:
            print(f"\n{outcome.task.unit}.{outcome.task.name}: {outcome.verdict}, {outcome.summary}")
            for line in outcome.detail:
                print(f"    {line}")
            print(f"    rerun: {rerun_line(outcome, args)}")
            found = counterexamples.from_outcome(outcome)
            replay = counterexamples.replay_command(outcome.task, found.trace, args.rtl) if found else ""
            if replay:
                print(f"    as a bench: {replay}")
    failed = sum(not o.passed for o in outcomes)
    bounded = sum(o.passed and o.bounded for o in outcomes)
    by_design = sum(o.passed and not o.bounded and o.verdict == "BOUNDED" for o in outcomes)  # BMC tasks
    only_bounded = (f", {bounded} bounded only (port properties from reset, no internal invariants)"
                    if bounded else "")
    of_them = f" ({by_design} of them BMC: no failure to its depth from reset, not a proof)" if by_design else ""
    if skipped:
        print(f"\nnot run (over {args.within:g} s each in the last complete run; make prove runs them): "
              + ", ".join(skipped))
    print(f"\nmake prove: {len(outcomes) - failed - bounded} passed{of_them}{only_bounded}, {failed} failed"
          + (f", {len(skipped)} not run (--within {args.within:g})" if skipped else ""))
    return 1 if failed else 0


def record_times(outcomes: list[sby.Outcome], path: Path) -> None:
    """The seconds of each task the project's RTL passed, merged into the last runs': make mutants
    runs only these, the fastest first."""
    times = json.loads(path.read_text()) if path.exists() else {}
    times.update({f"{o.task.unit}.{o.task.name}": round(o.seconds, 1) for o in outcomes if o.passed})
    path.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")


def print_table(outcomes: list[sby.Outcome]) -> None:
    header = ("property", "unit", "parameters", "mode", "design", "result", "time")
    cells = []
    for o in outcomes:
        found = o.attachment
        design = "-" if found is None else ("drop-in" if found.drop_in else "rtl/") + (
            ", invariants" if found and found.probes else "")
        result = o.summary if o.verdict in ("PROVED", "REACHED") else f"{o.verdict}: {o.summary}"
        cells.append((o.task.name, o.task.unit, o.task.where, MODES.get(o.task.mode, o.task.mode), design,
                      result, f"{o.seconds:.1f} s"))
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(len(header))]
    print()
    for row in [header, tuple("-" * w for w in widths), *cells]:
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    sys.exit(main())
