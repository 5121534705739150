"""Parallel efficiency of a sweep on Dask: the same sweep on one local worker, then on K.

Efficiency = time on 1 worker / (K x time on K workers), each time from the first task submitted
to the last shard merged; the design is built on every worker before the clock starts.
`python benchmark/cluster.py [--sim icarus] [-n 2000000] [--workers 2] [--shards 16]` prints the
table and writes benchmark/cluster.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from roofline_bulk import cluster
from roofline_bulk.config import SweepConfig
from roofline_bulk.simulation import default_lanes
from roofline_core.config import BULK_COUNT, DEFAULT_SIM, SIMS
from roofline_core.contract import ParamSet
from roofline_core.workers import connect

RESULTS = Path(__file__).with_name("cluster.json")


def timed_sweep(cfg: SweepConfig, workers: int, shards: int) -> dict[str, float]:
    with connect(f"local:{workers}") as client:
        warm = SweepConfig(cfg.top, cfg.sim, cfg.param_set, cfg.seed + 1, count=workers * cluster.SHARD_UNIT, lanes=cfg.lanes)
        cluster.run(warm, client, workers, progress=False)  # every worker builds before the clock starts
        started = time.perf_counter()
        ran = cluster.run(cfg, client, shards, progress=False)
        seconds = time.perf_counter() - started
    if ran.errors or ran.stats["mismatched"] or ran.stats["checked"] != cfg.count:
        raise SystemExit(f"the sweep on {workers} worker(s) did not pass: {ran.errors or ran.stats}")
    return {"workers": workers, "seconds": seconds, "vectors_per_s": cfg.count / seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", default=DEFAULT_SIM, choices=SIMS)
    parser.add_argument("-n", "--count", type=int, default=BULK_COUNT)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cfg = SweepConfig("roofline_attainable", args.sim, ParamSet(), args.seed, count=args.count,
                      lanes=default_lanes(args.sim, "roofline_attainable"))
    one = timed_sweep(cfg, 1, args.shards)
    many = timed_sweep(cfg, args.workers, args.shards)
    efficiency = one["seconds"] / (args.workers * many["seconds"])
    print(f"sweep: {cfg.top} on {cfg.sim}, {cfg.fmt.name}, N={cfg.count:,}, {args.shards} shards, {os.cpu_count()} CPUs")
    for row in (one, many):
        print(f"  {row['workers']} worker(s): {row['seconds']:7.2f} s  {row['vectors_per_s'] / 1e6:6.3f} M vectors/s")
    print(f"parallel efficiency of {args.workers} workers against 1: {100 * efficiency:.1f}%")
    RESULTS.write_text(json.dumps({
        "command": "python benchmark/cluster.py " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "sim": cfg.sim, "format": cfg.fmt.name, "n": cfg.count, "shards": args.shards,
        "runs": [one, many], "efficiency": efficiency,
    }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
