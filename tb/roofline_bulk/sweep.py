"""`make sweep` and `make exhaustive`: the command line of bulk sweeps, on one simulator or a cluster, with a summary.

The simulator's output goes to sim.log in the build folder (V=1: to the terminal); the terminal
gets the summary, each mismatch, the replay line, the log's path and the verdict (roofline_bulk.summary)."""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from pathlib import Path

from roofline_bulk import cluster
from roofline_bulk.config import BULK_TOPS, DEFAULT_BATCH, EXHAUSTIVE_FORMAT, SweepConfig, default_lanes, has_levels
from roofline_bulk.simulation import run_sweep, sweep_build
from roofline_bulk.stimulus import Shard
from roofline_bulk.summary import build_failure, progress_on_terminal, summarize
from roofline_core.config import BULK_COUNT, BULK_SIM, SIMS
from roofline_core.contract import DEFAULT_SET, ParamSet
from roofline_core.sources import DropInError
from roofline_core.tools import ToolError
from roofline_core.workers import ClusterError, connect, worker_count


def _lanes_help() -> str:
    one_level = next(top for top in BULK_TOPS if not has_levels(top))
    with_levels = next(top for top in BULK_TOPS if has_levels(top))
    return (f"vectors per clock (default on Verilator: {default_lanes('verilator', one_level)} for a one-level module, "
            f"{default_lanes('verilator', with_levels)} for one with memory levels; on Icarus: "
            f"{default_lanes('icarus', one_level)})")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make sweep", description=__doc__)
    parser.add_argument("--mode", default="random", choices=("random", "exhaustive"))
    parser.add_argument("--sim", default=BULK_SIM, choices=SIMS)
    parser.add_argument("--top", default=BULK_TOPS[0], choices=(*BULK_TOPS, "all"))
    parser.add_argument("-n", "--count", type=int, default=BULK_COUNT, help="vectors in the whole sweep (N=)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one, printed)")
    parser.add_argument("--shard", default=None, help="run shard i of n (SHARD=i/n)")
    parser.add_argument("--int-bits", type=int, default=None,
                        help=f"(default {DEFAULT_SET.int_bits}; an exhaustive sweep: {EXHAUSTIVE_FORMAT.int_bits})")
    parser.add_argument("--frac-bits", type=int, default=None,
                        help=f"(default {DEFAULT_SET.frac_bits}; an exhaustive sweep: {EXHAUSTIVE_FORMAT.frac_bits})")
    parser.add_argument("--levels", type=int, default=DEFAULT_SET.levels)
    parser.add_argument("--lanes", type=int, default=None,
                        help=_lanes_help())
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="vectors per file handed to the simulator")
    parser.add_argument("--only", type=int, default=None, help="only this vector number (ONLY=)")
    parser.add_argument("--replay", default=None, help="replay the failing vectors a sweep saved (REPLAY=)")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--cluster", default=None,
                        help="run the shards as Dask tasks: a scheduler address or file, or local:K (CLUSTER=)")
    parser.add_argument("--shards", type=int, default=None, help="shards of a cluster sweep (default: from N and workers)")
    parser.add_argument("--verbose", action="store_true", help="the simulator's whole output on the terminal (V=1)")
    args = parser.parse_args(argv)
    default = EXHAUSTIVE_FORMAT if args.mode == "exhaustive" else DEFAULT_SET.params.fmt
    args.int_bits = default.int_bits if args.int_bits is None else args.int_bits
    args.frac_bits = default.frac_bits if args.frac_bits is None else args.frac_bits
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    tops = BULK_TOPS if args.top == "all" else (args.top,)
    try:
        configs = [make_config(args, top, seed) for top in tops]
    except ValueError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.cluster:
        return run_on_cluster(args, configs)
    verdicts = [run_one(cfg, args.verbose) for cfg in configs]
    return max(verdicts)


def run_on_cluster(args: argparse.Namespace, configs: list[SweepConfig]) -> int:
    if args.shard or args.only is not None or args.replay:
        print("error: CLUSTER= cuts the sweep into shards itself: leave out SHARD=, ONLY= and REPLAY=", file=sys.stderr)
        return 2
    if args.shards is not None and args.shards < 1:
        print("error: --shards must be at least 1", file=sys.stderr)
        return 2
    try:
        client = connect(args.cluster)
    except ClusterError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    verdicts = []
    with client:
        workers = worker_count(client)
        if client.dashboard_link:
            print(f"Dask dashboard: {client.dashboard_link}")
        for cfg in configs:
            announce(cfg, f"on a Dask cluster ({args.cluster}, {workers} worker(s))")
            started = time.monotonic()
            try:
                ran = cluster.run(cfg, client, args.shards)
            except (ToolError, DropInError, ValueError, ClusterError) as problem:
                print(f"error: {problem}", file=sys.stderr)
                verdicts.append(2)
                continue
            if ran.resumed:
                print(f"resumed: {ran.resumed} of {ran.stats['shards']} shards were done already ({ran.ledger})")
            print(f"  {len(ran.outcomes)} of {ran.stats['shards']} shards ran on {', '.join(ran.stats['workers'])}")
            for index, error in sorted(ran.errors.items()):
                print(f"  shard {index} failed: {error}")
            passed = summarize(cfg, ran.stats, ran.failures, time.monotonic() - started)
            if ran.errors:
                print(f"INCOMPLETE: {len(ran.errors)} shard(s) did not finish; run the same command again to run only those")
                verdicts.append(1)
            else:
                verdicts.append(0 if passed else 1)
    return max(verdicts)


def make_config(args: argparse.Namespace, top: str, seed: int) -> SweepConfig:
    mode = "replay" if args.replay else args.mode
    if args.count < 1 and mode == "random":
        raise ValueError("N must be at least 1")
    cfg = SweepConfig(
        top=top, sim=args.sim, param_set=ParamSet(args.int_bits, args.frac_bits, args.levels), seed=seed,
        count=args.count, mode=mode, shard=Shard.parse(args.shard), lanes=args.lanes or 0,
        batch=args.batch, only=args.only, replay=str(Path(args.replay).resolve()) if args.replay else None, rtl=args.rtl,
    )
    if cfg.only is not None and not 0 <= cfg.only < cfg.total and mode != "replay":
        raise ValueError(f"ONLY={cfg.only}: this sweep numbers its vectors 0..{cfg.total - 1}")
    start, stop = cfg.index_range()
    if mode != "replay" and start == stop:  # a sweep of nothing would check nothing: never a pass
        blocks = -(-cfg.total // cfg.shard_unit)
        raise ValueError(f"SHARD={cfg.shard}: the sweep's {cfg.total:,} vector(s) are cut into shards of whole blocks of "
                         f"{cfg.shard_unit:,}, {blocks} block(s) here, and this shard gets none: give at most {blocks} "
                         "shard(s), or a larger N")
    return cfg


def announce(cfg: SweepConfig, where: str) -> None:
    start, stop = cfg.index_range()
    what = f"vectors {start}..{stop - 1} of {cfg.total}" if cfg.mode != "replay" else f"the vectors in {cfg.replay}"
    print(
        f"roofline-hw {cfg.mode} sweep: {cfg.top} on {cfg.sim}, {cfg.fmt.name}"
        + (f", LEVELS {cfg.levels}" if cfg.hierarchy else "")
        + f", seed {cfg.seed}, {where}: {what}, {cfg.lanes} lane(s)" + (f", RTL={cfg.rtl}" if cfg.rtl else ""),
        flush=True,
    )


def run_one(cfg: SweepConfig, verbose: bool = False) -> int:
    announce(cfg, f"shard {cfg.shard}")
    started = time.monotonic()
    try:
        log = None if verbose else sweep_build(cfg).folder / "sim.log"
        with progress_on_terminal() if not verbose else contextlib.nullcontext():
            result, stats = run_sweep(cfg, quiet=not verbose)
    except (ToolError, DropInError, ValueError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    except SystemExit as stop:
        build_failure(stop, log)
        return 1
    passed = summarize(cfg, stats, result.failures, time.monotonic() - started, log)
    return 0 if passed and result.failed == 0 and result.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
