"""The batch pipeline: a helper process makes batch k+1 and checks batch k-1 while the simulator runs batch k."""

from __future__ import annotations

import contextlib
import multiprocessing
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from .check import BatchOutcome, check_batch
from .config import SweepConfig
from .stimulus import Vectors
from .wire import input_bytes, read_outputs

_PENDING: dict[int, Vectors] = {}


def prepare(cfg: SweepConfig, batch: int, start: int, stop: int, path: str) -> tuple[int, int]:
    """Make batch `batch` and write its input file; returns (vectors, beats)."""
    vectors = cfg.vectors(start, stop)
    data, beats = input_bytes(cfg, vectors)
    Path(path).write_bytes(data)
    _PENDING[batch] = vectors
    return len(vectors), beats


def check(cfg: SweepConfig, batch: int, path: str) -> BatchOutcome:
    """Check batch `batch` against the output file the testbench wrote."""
    vectors = _PENDING.pop(batch)
    return check_batch(cfg, vectors, read_outputs(cfg, Path(path).read_bytes(), len(vectors)))


JOBS = {"prepare": prepare, "check": check, "ready": lambda: True}


def batch_paths(cfg: SweepConfig, batch: int) -> tuple[str, str]:
    """Two alternating pairs: the next batch is written while the simulator reads this one."""
    folder = Path(cfg.out_dir)
    return str(folder / f"bulk_in_{batch % 2}.bin"), str(folder / f"bulk_out_{batch % 2}.bin")


class HelperFailed(RuntimeError):
    """A job raised in the helper process; the message holds its traceback."""


class InlineHelper:
    """Runs each job when asked for its result, in this process (sweeps of one batch)."""

    def __init__(self) -> None:
        self._jobs: dict[int, tuple[str, tuple[object, ...]]] = {}

    def submit(self, job: str, *args: object) -> int:
        ticket = len(self._jobs)
        self._jobs[ticket] = (job, args)
        return ticket

    def result(self, ticket: int) -> Any:
        job, args = self._jobs.pop(ticket)
        return JOBS[job](*args)

    def close(self) -> None:
        self._jobs.clear()


class ProcessHelper:
    """One helper process fed through a pipe; jobs run in the order submitted.

    No thread is started in the simulator's process: once a process has a second thread,
    every stdio call there takes a lock, and the simulator's file I/O slows down.
    """

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # forking a simulator is not safe
        self._conn, child = context.Pipe()
        self._process = context.Process(target=serve, args=(child,), daemon=True)
        self._process.start()
        child.close()
        self._submitted = self._received = 0
        self._results: dict[int, tuple[bool, Any]] = {}
        self.result(self.submit("ready"))  # the helper's imports are a one-time cost, paid here

    def submit(self, job: str, *args: object) -> int:
        self._conn.send((job, args))
        self._submitted += 1
        return self._submitted - 1

    def result(self, ticket: int) -> Any:
        while ticket not in self._results:  # answers come back in the order jobs were sent
            try:
                self._results[self._received] = self._conn.recv()
            except EOFError:
                raise HelperFailed(f"the helper process exited (code {self._process.exitcode})") from None
            self._received += 1
        ok, value = self._results.pop(ticket)
        if not ok:
            raise HelperFailed(value)
        return value

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(None)
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()


def serve(conn: Connection) -> None:
    """The helper process's loop: run each job and send back (ok, result or traceback)."""
    while True:
        message = conn.recv()
        if message is None:
            return
        job, args = message
        try:
            conn.send((True, JOBS[job](*args)))
        except Exception:  # reported to the test, which fails with it
            conn.send((False, traceback.format_exc()))
