"""Sweeps on a Dask cluster (`make sweep CLUSTER=<scheduler>` or `CLUSTER=local:K`).

The client cuts one sweep into shards, disjoint ranges of its vector numbers, and runs each as a
Dask task: `run_sweep` on a worker, which returns its statistics and failing vectors. Vectors are
made from (seed, number) alone, so the merged statistics equal a one-machine run of the same seed
and N exactly. A ledger under build/sweeps/<key>/ keeps each finished shard: an interrupted sweep
run again runs only the rest. When a worker dies, Dask runs its shards again elsewhere; results
are keyed by shard, so none is lost and none is counted twice.

Every worker must run the same roofline-hw and see the same RTL= path; a task on a worker whose
RTL, testbench or harness differs from the client's fails with a line that names the worker.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from roofline_bulk import replay
from roofline_bulk.check import MAX_REPORTS
from roofline_bulk.config import SweepConfig
from roofline_bulk.simulation import BULK_FILES, run_sweep
from roofline_bulk.stimulus import Shard
from roofline_core.paths import BUILD_ROOT
from roofline_core.sources import rtl_sources
from roofline_core.vector_check import Vectors
from roofline_core.workers import ClusterError, code_digest, worker_count, worker_name

# Shards of a cluster sweep are cut on multiples of this many vectors (one-machine shards use BLOCK).
SHARD_UNIT = 4096
# About this many vectors per shard when --shards is not given: a few seconds of work on Verilator.
SHARD_TARGET = 1 << 21
LEDGER_ROOT = BUILD_ROOT / "sweeps"
_ONE_AT_A_TIME = threading.Lock()  # cocotb-test reads the results path from the process environment


@dataclass(frozen=True)
class ShardOutcome:
    """What one shard's task sends back: its statistics, its failing vectors and where it ran."""

    index: int
    stats: dict[str, Any]
    failures: tuple[str, ...]
    failing: Vectors | None
    worker: str


def content_digest(cfg: SweepConfig) -> str:
    """The RTL, the bulk testbench and the harness code a shard runs, by content."""
    return code_digest([*rtl_sources(cfg.rtl), *BULK_FILES],
                       ("roofline_golden", "roofline_core", "roofline_cocotb", "roofline_bulk"))


def run_shard(cfg: SweepConfig, expected_digest: str) -> ShardOutcome:
    """One shard, on a worker: the design is built once per worker process and reused for each shard."""
    worker = worker_name()
    if (found := content_digest(cfg)) != expected_digest:
        raise ClusterError(f"worker {worker} runs other RTL or harness code than the client ({found} != {expected_digest})")
    with _ONE_AT_A_TIME:
        variant = "dask-" + re.sub(r"[^A-Za-z0-9]+", "-", worker).strip("-")[-40:] + f"-{os.getpid()}"
        try:
            result, stats = run_sweep(cfg, variant, quiet=True)
        except SystemExit as stop:  # a failed build or simulator; SystemExit would end the worker
            raise ClusterError(f"worker {worker}: the build or the simulator failed ({stop})") from None
    if stats is None:
        raise ClusterError(f"worker {worker}: shard {cfg.shard} wrote no statistics: {'; '.join(result.failures)[:300]}")
    failing = None
    if stats.get("failures_file"):
        with np.load(stats["failures_file"]) as data:
            failing = Vectors(data["index"], data["peak"], data["bws"], data["ais"])
    return ShardOutcome(cfg.shard.index, stats, result.failures, failing, worker)


def default_shards(cfg: SweepConfig, workers: int) -> int:
    """Enough shards for every worker to stay busy and a dead worker to cost little, none empty."""
    start, stop = cfg.index_range()
    units = max(1, -(-(stop - start) // SHARD_UNIT))
    return max(1, min(units, max(2 * workers, -(-(stop - start) // SHARD_TARGET))))


class Ledger:
    """The finished shards of one sweep, kept on the client: one JSON file (and .npz) per shard."""

    def __init__(self, cfg: SweepConfig, shards: int, digest: str) -> None:
        key = {**asdict(replace(cfg, out_dir=".", shard=Shard())), "shards": shards, "code": digest}
        fingerprint = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
        self.folder = LEDGER_ROOT / f"{cfg.top}-{cfg.fmt.name}-seed{cfg.seed}-{fingerprint}"
        self.shards = shards
        if (self.folder / "summary.json").exists():
            shutil.rmtree(self.folder)  # a finished sweep run again starts afresh
        self.folder.mkdir(parents=True, exist_ok=True)

    def finished(self) -> dict[int, ShardOutcome]:
        done = {}
        for path in sorted(self.folder.glob("shard-*.json")):
            data = json.loads(path.read_text())
            failing = None
            if (arrays := path.with_suffix(".npz")).exists():
                with np.load(arrays) as held:
                    failing = Vectors(held["index"], held["peak"], held["bws"], held["ais"])
            done[data["index"]] = ShardOutcome(data["index"], data["stats"], tuple(data["failures"]), failing, data["worker"])
        return done

    def record(self, outcome: ShardOutcome) -> None:
        stem = self.folder / f"shard-{outcome.index:05d}"
        if outcome.failing is not None:
            np.savez(stem.with_suffix(".tmp.npz"), index=outcome.failing.index, peak=outcome.failing.peak,
                     bws=outcome.failing.bws, ais=outcome.failing.ais)
            stem.with_suffix(".tmp.npz").replace(stem.with_suffix(".npz"))
        data = {"index": outcome.index, "stats": outcome.stats, "failures": list(outcome.failures), "worker": outcome.worker}
        stem.with_suffix(".tmp").write_text(json.dumps(data))
        stem.with_suffix(".tmp").replace(stem.with_suffix(".json"))  # the JSON last: it marks the shard done

    def close(self, summary: dict[str, Any]) -> None:
        (self.folder / "summary.json").write_text(json.dumps(summary, indent=2))


@dataclass(frozen=True)
class ClusterRun:
    stats: dict[str, Any]
    failures: tuple[str, ...]
    outcomes: dict[int, ShardOutcome]
    resumed: int
    errors: dict[int, str]
    ledger: Path


def merge(cfg: SweepConfig, outcomes: dict[int, ShardOutcome], seconds: float, folder: Path) -> dict[str, Any]:
    """One sweep's statistics from its shards', and one replay file of every failing vector."""
    ordered = [outcomes[index] for index in sorted(outcomes)]
    bins: dict[str, int] = {}
    for outcome in ordered:
        for name, hits in outcome.stats["bins"].items():
            bins[name] = bins.get(name, 0) + hits
    checked = sum(o.stats["checked"] for o in ordered)
    failing = [o.failing for o in ordered if o.failing is not None]
    failures_file = None
    if failing:
        merged = Vectors.concat(failing)
        merged = merged.take(np.argsort(merged.index, kind="stable"))
        failures_file = folder / f"failing-{cfg.top}-{cfg.fmt.name}-l{cfg.levels}-seed{cfg.seed}.npz"
        replay.save_failures(failures_file, cfg, merged)
    return {
        "top": cfg.top, "sim": cfg.sim, "format": cfg.fmt.name, "levels": cfg.levels, "mode": cfg.mode, "seed": cfg.seed,
        "shard": f"{len(ordered)} cluster shards", "lanes": cfg.lanes, "checked": checked,
        "mismatched": sum(o.stats["mismatched"] for o in ordered), "seconds": seconds,
        "vectors_per_s": checked / seconds if seconds > 0 else 0.0, "bins": bins,
        "failures_file": str(failures_file) if failures_file else None,
        "reports": [report for o in ordered for report in o.stats.get("reports", [])][:MAX_REPORTS],
        "workers": sorted({o.worker for o in ordered}),
    }


def run(cfg: SweepConfig, client: Any, shards: int | None = None,
        on_done: Callable[[ShardOutcome], None] | None = None, progress: bool = True) -> ClusterRun:
    """Every shard not in the ledger as a Dask task; returns once each has finished or failed."""
    from distributed import as_completed

    workers = max(1, worker_count(client))
    count = shards or default_shards(cfg, workers)
    digest = content_digest(cfg)
    ledger = Ledger(cfg, count, digest)
    outcomes = ledger.finished()
    resumed = len(outcomes)
    todo = [index for index in range(count) if index not in outcomes]
    configs = {i: replace(cfg, shard=Shard(i, count), shard_unit=SHARD_UNIT) for i in range(count)}
    sizes = {i: (lambda r: r[1] - r[0])(c.index_range()) for i, c in configs.items()}
    started = time.monotonic()
    run_token = uuid.uuid4().hex[:8]  # a key per run: a cancelled earlier run's tasks never stand in for these
    futures = {client.submit(run_shard, configs[i], digest, key=f"roofline-shard-{i}-{run_token}", pure=False): i for i in todo}
    bar = _progress_bar(sum(sizes.values()), sum(sizes[i] for i in outcomes), progress)
    errors: dict[int, str] = {}
    try:
        for future in as_completed(futures):
            index = futures[future]
            try:
                outcome = future.result()
            except Exception as problem:  # a shard's failure is reported, the rest carry on
                errors[index] = f"{type(problem).__name__}: {problem}".splitlines()[0][:300]
                continue
            if index in outcomes:
                raise ClusterError(f"shard {index} came back twice")  # cannot happen: keyed once
            ledger.record(outcome)
            outcomes[index] = outcome
            bar.update(sizes[index])
            if on_done is not None:
                on_done(outcome)
    finally:
        bar.close()
        for future in futures:
            future.cancel()
    stats = merge(cfg, outcomes, time.monotonic() - started, ledger.folder)
    stats["shards"] = count
    if not errors and len(outcomes) == count:
        ledger.close(stats)
    failures = tuple(line for index in sorted(outcomes) for line in outcomes[index].failures)
    return ClusterRun(stats, failures, outcomes, resumed, errors, ledger.folder)


class _NoBar:
    def update(self, _: int) -> None: ...
    def close(self) -> None: ...


def _progress_bar(total: int, initial: int, shown: bool) -> Any:
    if not shown:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=" vectors", unit_scale=True, file=sys.stderr, mininterval=1.0,
                desc="cluster sweep")

