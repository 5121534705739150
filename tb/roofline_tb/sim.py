"""`make sim`: run the cocotb testbenches on one simulator and print a pass/fail summary."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from .config import DEFAULT_SWEEP, SIMS, BenchConfig
from .contract import TOPS, ParamSet
from .runner import GATE_LEVEL_TOPS, bench_build, run_bench
from .sources import DropInError
from .tools import ToolError


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make sim", description=__doc__)
    parser.add_argument("--sim", default="icarus", choices=SIMS)
    parser.add_argument("--top", default="all", help=f"one of {', '.join(TOPS)}, or all")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one, printed)")
    parser.add_argument("--int-bits", type=int, default=24)
    parser.add_argument("--frac-bits", type=int, default=16)
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--count-bits", type=int, default=64)
    parser.add_argument("--mul-stages", type=int, default=1, choices=(1, 2, 3, 4),
                        help="the pipelined hierarchy's multiply stages")
    parser.add_argument("--sweep", type=int, default=DEFAULT_SWEEP, help="random vectors per sweep")
    parser.add_argument("--testcase", default=None, help="run only this cocotb test (TESTCASE=)")
    parser.add_argument("--only", default=None, help="only this vector index or case id (ONLY=)")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--waves", action="store_true", help="write a waveform and print its path")
    parser.add_argument("--gates", action="store_true", help="simulate Yosys's gate-level netlist (GATES=1)")
    parser.add_argument("--verbose", action="store_true", help="the simulator's whole output on the terminal (V=1)")
    args = parser.parse_args(argv)
    if args.top != "all" and args.top not in TOPS:
        parser.error(f"TOP={args.top}: use one of {', '.join(TOPS)}, or all")
    for name in ("int_bits", "frac_bits", "levels", "count_bits", "sweep"):
        if getattr(args, name) < 1:
            parser.error(f"{name.upper()} must be at least 1")
    return args


def coverage_note(build_dir: Path) -> str:
    """The bench's functional coverage, in a few words (its last test wrote the bins)."""
    report = build_dir / "functional_coverage.json"
    if not report.exists():
        return ""
    bins = json.loads(report.read_text())["bins"]
    missed = [name for name, hits in bins.items() if not hits]
    return f"; coverage {len(bins) - len(missed)}/{len(bins)} bins" + (f" (never: {', '.join(missed)})" if missed else "")


def failure_report(failure: str) -> str:
    """A failed test's first report (the mismatch with its rerun line), or its message."""
    name, _, message = failure.partition(": ")
    blocks = message.split("\n\n")
    return f"{name}:\n" + (blocks[1] if len(blocks) > 1 else blocks[0])


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
    for top in tops:
        cfg = BenchConfig(top, args.sim, param_set, seed, args.sweep, args.only, args.rtl, args.gates)
        started = time.monotonic()
        try:
            result = run_bench(cfg, waves=args.waves, testcase=args.testcase, quiet=not args.verbose)
        except (ToolError, DropInError) as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        except SystemExit as stop:
            where = "see the log above" if args.verbose else f"log: {bench_build(cfg).folder / 'sim.log'}"
            rows.append((top, "ERROR", f"build or simulator failed ({stop}); {where}", time.monotonic() - started))
            all_passed = False
            continue
        seconds = time.monotonic() - started
        verdict = "PASS" if result.failed == 0 and result.passed > 0 else "FAIL"
        all_passed &= verdict == "PASS"
        detail = f"{result.passed} passed, {result.failed} failed" + coverage_note(result.build_dir)
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
