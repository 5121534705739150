"""`make sim`: run the cocotb testbenches on one simulator and print a pass/fail summary."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from roofline_bench import coverage
from roofline_core.config import DEFAULT_SIM, DEFAULT_SWEEP, SIMS, BenchConfig
from roofline_core.contract import DEFAULT_SET, MODULES, TOPS, ParamSet
from roofline_core.gates import GATE_LEVEL_TOPS
from roofline_core.runner import bench_build, run_bench
from roofline_core.simulator import BenchResult
from roofline_core.sources import DropInError
from roofline_core.tools import ToolError


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make sim", description=__doc__)
    parser.add_argument("--sim", default=DEFAULT_SIM, choices=SIMS)
    parser.add_argument("--top", default="all", help=f"one of {', '.join(TOPS)}, or all")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one, printed)")
    parser.add_argument("--int-bits", type=int, default=DEFAULT_SET.int_bits)
    parser.add_argument("--frac-bits", type=int, default=DEFAULT_SET.frac_bits)
    parser.add_argument("--levels", type=int, default=DEFAULT_SET.levels)
    parser.add_argument("--count-bits", type=int, default=DEFAULT_SET.count_bits)
    parser.add_argument("--mul-stages", type=int, default=DEFAULT_SET.mul_stages, choices=(1, 2, 3, 4),
                        help="the pipelined hierarchy's multiply stages")
    parser.add_argument("--sweep", type=int, default=DEFAULT_SWEEP, help="random vectors per sweep")
    parser.add_argument("--testcase", default=None, help="run only this cocotb test (TESTCASE=)")
    parser.add_argument("--only", default=None, help="only this vector index or case id (ONLY=)")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--waves", action="store_true", help="write a waveform and print its path")
    parser.add_argument("--gates", action="store_true", help="simulate Yosys's gate-level netlist (GATES=1)")
    parser.add_argument("--replay", default=None, metavar="TRACE",
                        help="replay a failed proof's counterexample (its trace.vcd or trace.yw) in TOP's bench (REPLAY=)")
    parser.add_argument("--verbose", action="store_true", help="the simulator's whole output on the terminal (V=1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="benches run side by side (JOBS=; default: one per CPU; V=1 runs one at a time)")
    args = parser.parse_args(argv)
    if args.top != "all" and args.top not in TOPS:
        parser.error(f"TOP={args.top}: use one of {', '.join(TOPS)}, or all")
    if args.replay and args.top == "all":
        parser.error("REPLAY= replays one unit's counterexample: give its TOP= (the proof's replay line does)")
    if args.replay and not Path(args.replay).is_file():
        parser.error(f"REPLAY={args.replay}: no such file")
    for name in ("int_bits", "frac_bits", "levels", "count_bits", "sweep", "jobs"):
        if getattr(args, name) < 1:
            parser.error(f"{name.upper()} must be at least 1")
    return args


def coverage_note(cfg: BenchConfig, build_dir: Path, narrowed: bool) -> tuple[str, bool]:
    """The run's functional coverage in a few words, closed now that the run is over, and whether
    it holds: every bin hit, unless TESTCASE= or ONLY= narrowed the run."""
    bins = coverage.saved_bins(build_dir)
    if bins is None:
        return "", narrowed
    missed = coverage.missed(build_dir, cfg.top, cfg.params.levels)
    note = f"; coverage {len(bins) - len(missed)}/{len(bins)} bins" + (f" (never: {', '.join(missed)})" if missed else "")
    return note, narrowed or not missed


def failure_report(failure: str) -> str:
    """A failed test's first report (the mismatch with its rerun line), or its message."""
    name, _, message = failure.partition(": ")
    blocks = message.split("\n\n")
    return f"{name}:\n" + (blocks[1] if len(blocks) > 1 else blocks[0])


def run_one(cfg: BenchConfig, waves: bool, testcase: str | None, verbose: bool
            ) -> str | tuple[BenchResult | SystemExit, float]:
    """One bench (in a worker process when benches run side by side): its result and seconds,
    or the one line saying why nothing can run."""
    started = time.monotonic()
    try:
        result: BenchResult | SystemExit = run_bench(cfg, waves=waves, testcase=testcase, quiet=not verbose)
    except (ToolError, DropInError) as problem:
        return str(problem)
    except SystemExit as stop:
        result = SystemExit(str(stop))
    return result, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    param_set = ParamSet(args.int_bits, args.frac_bits, args.levels, args.count_bits, args.mul_stages)
    tops = TOPS if args.top == "all" else (args.top,)
    if args.gates and args.top == "all":
        tops = GATE_LEVEL_TOPS
    print(
        f"roofline-hw sim: {args.sim}, UQ{args.int_bits}.{args.frac_bits}, LEVELS {args.levels}, "
        f"COUNT_BITS {args.count_bits}, seed {seed}" + (f", RTL={args.rtl}" if args.rtl else "")
        + (", gate-level netlists from Yosys" if args.gates else ""),
        flush=True,
    )
    rows, all_passed = [], True
    reports: list[str] = []
    logs: list[str] = []
    replay = str(Path(args.replay).resolve()) if args.replay else None
    configs = [BenchConfig(top, args.sim, param_set, seed, args.sweep, args.only, args.rtl, args.gates, replay)
               for top in tops]
    jobs = 1 if args.verbose else max(1, min(args.jobs, len(configs)))  # V=1 prints each bench's output in turn
    run = partial(run_one, waves=args.waves, testcase=args.testcase, verbose=args.verbose)
    if jobs == 1:
        outcomes = list(map(run, configs))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:  # shut down before the interpreter exits
            # The clocked benches take longest: started first, they finish sooner; reported in order.
            futures = {cfg.top: pool.submit(run, cfg) for cfg in sorted(configs, key=lambda c: not MODULES[c.top].clocked)}
            outcomes = [futures[cfg.top].result() for cfg in configs]
    for cfg, outcome in zip(configs, outcomes, strict=True):
        top = cfg.top
        if isinstance(outcome, str):  # a missing tool or a bad drop-in: nothing else can run either
            print(f"error: {outcome}", file=sys.stderr)
            return 2
        result, seconds = outcome
        if isinstance(result, SystemExit):
            where = "see the log above" if args.verbose else f"log: {bench_build(cfg).folder / 'sim.log'}"
            rows.append((top, "ERROR", f"build or simulator failed ({result}); {where}", seconds))
            all_passed = False
            continue
        # a replay drives one trace: functional coverage says nothing about it
        note, covered = ("", True) if replay else coverage_note(cfg, result.build_dir, narrowed=bool(args.testcase or args.only))
        verdict = "PASS" if result.failed == 0 and result.passed > 0 and covered else "FAIL"
        all_passed &= verdict == "PASS"
        detail = f"{result.passed} passed, {result.failed} failed" + note
        if result.waves:
            detail += f"; waves: {result.waves}"
        rows.append((top, verdict, detail, seconds))
        for failure in result.failures:
            rows.append(("", "", "  " + failure.splitlines()[0], 0.0))
            reports.append(failure_report(failure))
        if not args.verbose:
            logs.append(f"  {top:<24} {result.build_dir / 'sim.log'}")
    if reports:
        print("\nfirst failure of each failing test:\n\n" + "\n\n".join(reports))
    if logs:
        print("\nthe simulators' whole output (V=1 prints it here):\n" + "\n".join(logs))
    print("\nsummary:")
    for top, verdict, detail, seconds in rows:
        timing = f"{seconds:6.1f} s" if top else ""
        print(f"  {top:<24} {verdict:<5} {detail} {timing}")
    print(f"seed {seed}; rerun with SEED={seed}")
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
