"""The batch pipeline: helper processes make the next batches and check the last ones while the
simulator runs this one. Batch k belongs to helper k % helpers, which both makes and checks it."""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import multiprocessing
import os
import time
import traceback
from collections.abc import Iterator
from functools import cache
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from roofline_bulk.beats import column_words, columns, fill_columns, input_beats, input_bytes, read_outputs
from roofline_bulk.check import BatchOutcome, check_batch
from roofline_bulk.config import SweepConfig
from roofline_bulk.stimulus import random_range
from roofline_core.vector_check import Vectors, expected_outputs

_PENDING: dict[int, Vectors] = {}
# Seconds this process spent in each stage of its jobs, [wall, CPU], since `spent` last emptied it.
_SPENT: dict[str, list[float]] = {}


@contextlib.contextmanager
def timed(stage: str) -> Iterator[None]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        total = _SPENT.setdefault(stage, [0.0, 0.0])
        total[0] += time.perf_counter() - wall
        total[1] += time.process_time() - cpu


def spent() -> dict[str, list[float]]:
    """The [wall, CPU] seconds of each stage since the last call (the sweep's profile), then zero."""
    totals = {stage: list(seconds) for stage, seconds in _SPENT.items()}
    _SPENT.clear()
    return totals


def prepare(cfg: SweepConfig, batch: int, start: int, stop: int, path: str) -> tuple[int, int]:
    """Make batch `batch` and write its input file; returns (vectors, beats)."""
    with timed("stimulus"):
        vectors = cfg.vectors(start, stop)
    _PENDING[batch] = vectors
    if columns(cfg):  # straight into the mapped file, which the simulator maps too
        with timed("input file write"):
            fill_columns(np.frombuffer(mapped(path, 8 * column_words(cfg, len(vectors))), dtype="<u8"), vectors)
        return len(vectors), input_beats(cfg, len(vectors))
    with timed("input wire format"):
        data, beats = input_bytes(cfg, vectors)
    with timed("input file write"):
        overwrite(path, data)
    return len(vectors), beats


def check(cfg: SweepConfig, batch: int, path: str) -> BatchOutcome:
    """Check batch `batch` against the output file the testbench wrote."""
    vectors = _PENDING.pop(batch)
    with timed("output file read"):
        data = mapped(path) if columns(cfg) else Path(path).read_bytes()
    with timed("output wire format"):
        actual = read_outputs(cfg, data, len(vectors))
    with timed("check"):
        return check_batch(cfg, vectors, actual)


_MAPPED: dict[str, tuple[os.stat_result, mmap.mmap]] = {}


def mapped(path: str, size: int | None = None) -> mmap.mmap:
    """The file at `path` mapped whole and shared, sized to `size` bytes first when given (an input
    file; an output file has the size the simulator gave it). A slot's file keeps its mapping from
    one batch to the next while it is the same file of the same size, so its pages fault in once."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        info = os.fstat(fd)
        if size is not None and info.st_size != size:
            os.ftruncate(fd, size)
            info = os.fstat(fd)
        kept = _MAPPED.get(path)
        if kept is not None and (kept[0].st_dev, kept[0].st_ino, kept[0].st_size) == (info.st_dev, info.st_ino, info.st_size):
            return kept[1]
        if kept is not None:
            with contextlib.suppress(BufferError):  # a view still alive (a failed job's traceback): let it go
                kept[1].close()
        mapping = mmap.mmap(fd, info.st_size)
    finally:
        os.close(fd)
    _MAPPED[path] = (info, mapping)
    return mapping


def overwrite(path: str, data: bytes) -> None:
    """Write `data` over the file's old bytes and cut it to length: a slot's file is reused every
    SLOTS batches, and overwriting its cached pages costs a fraction of truncating it first."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        with memoryview(data) as view:
            written = 0
            while written < len(view):
                written += os.write(fd, view[written:])
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def warm_up(cfg: SweepConfig, size: int) -> None:
    """A batch's numpy work once, on throwaway vectors, before the sweep's clock starts.

    The first batches a helper makes and checks take about twice as long as later ones (first
    touches of memory, numpy's first calls). Like the helper's imports, that is a one-time cost.
    """
    vectors = random_range(0, 0, size, cfg.fmt, cfg.levels)
    input_bytes(cfg, vectors)
    check_batch(cfg, vectors, expected_outputs(cfg, vectors))


JOBS = {"prepare": prepare, "check": check, "warm_up": warm_up, "spent": spent}


# Batches made ahead of the one simulating: one more than the simulator takes next, so that a helper
# that falls behind for a moment does not stop it.
AHEAD = 2
# Batches in flight: one simulating, one being checked, and AHEAD made ahead.
SLOTS = 4  # the testbench's slot_i is 2 bits


def helper_count(cpus: int | None = None) -> int:
    """Helper processes for a machine of `cpus` CPUs (the ones this process may run on): the simulator
    takes a core and the helpers the rest, at most AHEAD. On 2 CPUs that is one helper: with the C
    stimulus a batch's helper work (make, write, check) costs about what simulating it does, and a
    second helper only took turns with the simulator on its core. At 10^7 vectors on Verilator, medians
    of 5 in two runs back to back: 0.89 s with one helper against 0.98 s with two (helpers 0.70 against
    0.84 CPU-s). A module with memory levels ran alike with either."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(AHEAD, cpus - 1))


def batch_slot(batch: int) -> int:
    return batch % SLOTS


def batch_paths(cfg: SweepConfig, batch: int) -> tuple[str, str]:
    """The input and output files of a batch: batches in flight never share one."""
    return _slot_paths(cfg.out_dir, batch_slot(batch))


@cache
def _slot_paths(out_dir: str, slot: int) -> tuple[str, str]:
    folder = Path(out_dir)
    return str(folder / f"bulk_in_{slot}.bin"), str(folder / f"bulk_out_{slot}.bin")


class HelperFailed(RuntimeError):
    """A job raised in the helper process; the message holds its traceback."""


def start_helpers(cfg: SweepConfig, plan: list[tuple[int, int]]) -> list[InlineHelper] | list[ProcessHelper]:
    """Helper processes overlap numpy with the simulator; one batch has nothing to overlap.

    They start together, so their imports and warm-ups overlap, and are ready when this returns.
    """
    if len(plan) <= 1:
        return [InlineHelper()]
    helpers = [ProcessHelper() for _ in range(min(helper_count(), len(plan)))]
    largest = max(stop - start for start, stop in plan)
    warm_ups = [helper.submit("warm_up", cfg, largest) for helper in helpers]
    for helper, ticket in zip(helpers, warm_ups, strict=True):
        helper.result(ticket)
    return helpers


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
    keep_freed_memory()
    while True:
        message = conn.recv()
        if message is None:
            return
        job, args = message
        try:
            conn.send((True, JOBS[job](*args)))
        except Exception:  # reported to the test, which fails with it
            conn.send((False, traceback.format_exc()))


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def keep_freed_memory() -> None:
    """Keep the memory numpy frees for the next batch's arrays, which have the same sizes.

    By default glibc maps each array over 128 KiB afresh and unmaps it when freed, and trims the
    heap's top, so every batch page-faults all its memory in again: that kernel time cost as much
    as a third of a helper's numpy work. The peak stays what it was; it is only held longer.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc: nothing to tune
        return
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest: arrays up to 32 MiB come from the heap
    mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    mallopt(_M_TOP_PAD, 64 << 20)
