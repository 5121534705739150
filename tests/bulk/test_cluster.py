"""Sweeps and class grading on Dask: a real `dask scheduler` and two `dask worker` processes on
localhost, one of them killed mid-run. Nothing may be lost or counted twice, and the merged sweep
must equal a one-machine run of the same seed and N exactly.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from roofline_bulk import cluster
from roofline_bulk.config import SweepConfig
from roofline_bulk.simulation import run_sweep
from roofline_core.contract import ParamSet
from roofline_core.paths import RTL_DIR
from roofline_core.workers import ClusterError, connect
from roofline_course.cohort import grade_all

pytestmark = [pytest.mark.full, pytest.mark.sim]  # Dask clusters and killed workers: make test-all


@pytest.fixture(autouse=True)
def _distributed() -> None:
    """Skips without Dask's distributed; imported here, not at collection (0.7 s of every make test's)."""
    pytest.importorskip("distributed")

DASK = Path(sys.executable).parent / "dask"
SHARDS = 10
COUNT = SHARDS * cluster.SHARD_UNIT - 1234  # the last shard is short


@dataclass
class Localhost:
    scheduler_file: Path
    workers: dict[str, subprocess.Popen[bytes]]

    def kill(self, name: str) -> None:
        """SIGKILL the worker and everything it started, as when its machine goes down."""
        os.killpg(self.workers[name].pid, signal.SIGKILL)
        self.workers[name].wait()


def start(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as handle:
        return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def localhost(tmp_path: Path) -> Iterator[Localhost]:
    scheduler_file = tmp_path / "scheduler.json"
    processes = [start([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                        "--scheduler-file", str(scheduler_file)], tmp_path / "scheduler.log")]
    workers = {}
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.2)
        for name in ("w0", "w1"):
            workers[name] = start([str(DASK), "worker", "--scheduler-file", str(scheduler_file), "--name", name,
                                   "--nthreads", "1", "--no-dashboard", "--local-directory", str(tmp_path / name)],
                                  tmp_path / f"{name}.log")
        processes += workers.values()
        yield Localhost(scheduler_file, workers)
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def client_for(where: Localhost) -> Any:
    client = connect(str(where.scheduler_file))
    client.wait_for_workers(2, timeout=60)
    return client


def wait_for_both(where: Localhost) -> None:
    with client_for(where):
        pass


def one_machine(cfg: SweepConfig) -> dict[str, Any]:
    result, stats = run_sweep(cfg, "one-machine", quiet=True)
    assert stats is not None, result.failures
    return stats


def failing_numbers(stats: dict[str, Any]) -> list[int]:
    with np.load(stats["failures_file"]) as data:
        return [int(i) for i in data["index"]]


def test_a_sweep_survives_a_killed_worker_and_equals_a_one_machine_run(localhost: Localhost, seed: int,
                                                                        ridge_mutant: Path) -> None:
    cfg = SweepConfig("roofline_attainable", "icarus", ParamSet(), seed, count=COUNT, lanes=1, rtl=str(ridge_mutant))
    killed: list[str] = []

    def kill_one(outcome: cluster.ShardOutcome) -> None:
        if not killed:  # the other worker is mid-shard now: that shard must be run again elsewhere
            killed.append("w1" if outcome.worker == "w0" else "w0")
            localhost.kill(killed[0])

    with client_for(localhost) as client:
        ran = cluster.run(cfg, client, SHARDS, on_done=kill_one, progress=False)
    reference = one_machine(cfg)

    assert killed and not ran.errors and ran.resumed == 0
    assert sorted(ran.outcomes) == list(range(SHARDS))
    assert len(list(ran.ledger.glob("shard-*.json"))) == SHARDS
    assert ran.stats["checked"] == reference["checked"] == COUNT
    assert ran.stats["bins"] == reference["bins"]
    assert 0 < ran.stats["mismatched"] == reference["mismatched"]
    assert failing_numbers(ran.stats) == failing_numbers(reference)
    assert len(ran.failures) == sum(1 for o in ran.outcomes.values() if o.stats["mismatched"])


def test_an_interrupted_sweep_runs_only_the_shards_left(seed: int) -> None:
    cfg = SweepConfig("roofline_attainable", "icarus", ParamSet(16, 12, 1), seed, count=COUNT, lanes=1)

    def interrupt(outcome: cluster.ShardOutcome) -> None:
        raise KeyboardInterrupt

    with connect("local:2") as client:
        with pytest.raises(KeyboardInterrupt):
            cluster.run(cfg, client, SHARDS, on_done=interrupt, progress=False)
        ran = cluster.run(cfg, client, SHARDS, progress=False)
    reference = one_machine(cfg)

    assert 1 <= ran.resumed < SHARDS and not ran.errors
    assert ran.stats["checked"] == COUNT and ran.stats["mismatched"] == 0
    assert ran.stats["bins"] == reference["bins"]
    summary = json.loads((ran.ledger / "summary.json").read_text())  # the ledger records the merged result, not a stub
    assert summary == json.loads(json.dumps(ran.stats)) and summary["checked"] == COUNT and summary["mismatched"] == 0


def test_a_worker_with_other_rtl_is_refused_by_name(seed: int, ridge_mutant: Path) -> None:
    cfg = SweepConfig("roofline_attainable", "icarus", ParamSet(), seed, count=100, lanes=1)
    with pytest.raises(ClusterError, match="runs other RTL or harness code"):
        cluster.run_shard(replace(cfg, rtl=str(ridge_mutant)), cluster.content_digest(cfg))


@pytest.mark.parametrize("address", ["local:0", "local:x", "tcp://127.0.0.1:1"])
def test_a_cluster_that_cannot_be_reached_is_one_line(address: str, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "roofline_bulk.sweep", "--sim", "icarus", "-n", "10", "--cluster", address],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "ROOFLINE_BUILD": str(tmp_path)})
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.startswith(f"error: CLUSTER={address}"), run.stderr


def test_a_class_is_graded_on_dask_with_one_row_each_despite_a_killed_worker(localhost: Localhost, tmp_path: Path,
                                                                           ridge_mutant: Path) -> None:
    submissions = tmp_path / "class"
    submissions.mkdir()
    for name in ("ana", "ben", "chloé"):
        shutil.copytree(RTL_DIR, submissions / name)
    shutil.copytree(RTL_DIR, submissions / "dev")
    shutil.copy(ridge_mutant, submissions / "dev" / ridge_mutant.name)
    (submissions / "notes.txt").write_text("not a submission")
    out = tmp_path / "graded"

    def kill_when_grading(where: Localhost) -> None:
        """Kill w1 once a grader runs under it (its sandboxed simulation or compile)."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            children = subprocess.run(["pgrep", "-g", str(where.workers["w1"].pid), "-f", "roofline_course.grade"],
                                      capture_output=True, text=True).stdout.split()
            if children:
                where.kill("w1")
                return
            time.sleep(0.1)

    wait_for_both(localhost)
    killer = threading.Thread(target=kill_when_grading, args=(localhost,))
    killer.start()
    status = grade_all.main(["--lab", "1", "--submissions", str(submissions), "--out", str(out),
                             "--cluster", str(localhost.scheduler_file)])
    killer.join()
    assert status == 0
    assert localhost.workers["w1"].poll() is not None, "the worker was never killed: the test proved nothing"
    with (out / "scores.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["submission"] for row in rows) == ["ana", "ben", "chloé", "dev", "notes.txt"]
    by_name = {row["submission"]: row for row in rows}
    for name in ("ana", "ben", "chloé"):
        assert by_name[name]["status"] == "graded" and by_name[name]["score"] == "100", by_name[name]
    dev = by_name["dev"]  # the ridge bug: graded, it loses the ridge's vectors and only those
    assert dev["status"] == "graded" and 0 < float(dev["score"]) < 100, dev
    assert "calculator_check_2_ridge" in dev["first problem"], dev
    assert by_name["notes.txt"]["status"] == "not graded"
