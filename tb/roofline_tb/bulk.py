"""Bulk sweeps: batches of vectors to and from the bulk testbench as files, checked with numpy.

No simulator imports: the cocotb test (tb/bulk) drives the handshake, this module makes the
batches, checks the results against the vectorized golden model and an independent error-bound
check, and writes every failing vector to a file that `make sweep REPLAY=<file>` replays.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from roofline_golden import QFormat, vector
from roofline_golden.cases import Params

from .bulk_vectors import (
    BLOCK,
    MAX_EXHAUSTIVE_BITS,
    Shard,
    Vectors,
    exhaustive_bits,
    exhaustive_range,
    random_range,
)
from .config import ParamSet
from .describe import exact_context, inputs_text
from .scoreboard import Field, binding_text, mismatch_report

U64 = np.uint64
BULK_TOPS = ("roofline_attainable", "roofline_hierarchy")
MODES = ("random", "exhaustive", "replay")
DEFAULT_BATCH = 1 << 17
MAX_REPORTS = 5


@dataclass(frozen=True)
class SweepConfig:
    """One bulk sweep: what is swept, on which simulator, and how it is cut into batches."""

    top: str
    sim: str
    param_set: ParamSet
    seed: int
    count: int = 1_000_000
    mode: str = "random"
    shard: Shard = field(default_factory=Shard)
    lanes: int = 8
    batch: int = DEFAULT_BATCH
    only: int | None = None
    replay: str | None = None
    rtl: str | None = None
    out_dir: str = "."

    def __post_init__(self) -> None:
        if self.top not in BULK_TOPS:
            raise ValueError(f"TOP={self.top}: bulk sweeps run {' or '.join(BULK_TOPS)}")
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: use one of {', '.join(MODES)}")
        if self.lanes < 1 or self.batch < 1 or self.count < 0:
            raise ValueError("LANES and BATCH must be at least 1, N at least 0")
        if self.mode == "replay" and not self.replay:
            raise ValueError("a replay needs REPLAY=<file of failing vectors>")
        if self.mode == "exhaustive":
            bits = exhaustive_bits(self.fmt, self.levels)
            if bits > MAX_EXHAUSTIVE_BITS:
                raise ValueError(
                    f"exhaustive {self.top} at {self.fmt.name}, {self.levels} level(s) is 2^{bits} vectors; "
                    f"the limit is 2^{MAX_EXHAUSTIVE_BITS}: use a smaller format (INT_BITS=4 FRAC_BITS=4) or LEVELS=1"
                )

    @property
    def fmt(self) -> QFormat:
        return self.param_set.params.fmt

    @property
    def params(self) -> Params:
        return self.param_set.params

    @property
    def levels(self) -> int:
        return self.param_set.levels if self.top == "roofline_hierarchy" else 1

    @property
    def hierarchy(self) -> bool:
        return self.top == "roofline_hierarchy"

    @property
    def total(self) -> int:
        """Vectors in the whole sweep, before sharding."""
        if self.mode == "exhaustive":
            return 1 << exhaustive_bits(self.fmt, self.levels)
        return self.count

    def index_range(self) -> tuple[int, int]:
        """This shard's [start, stop) of the sweep's vector numbers."""
        if self.only is not None:
            return self.only, self.only + 1
        return self.shard.range_of(self.total, BLOCK)

    def batches(self) -> list[tuple[int, int]]:
        if self.mode == "replay":
            return [(0, len(load_replay(Path(self.replay or ""), self)))]
        start, stop = self.index_range()
        step = max(self.lanes, self.batch - self.batch % self.lanes)
        return [(first, min(first + step, stop)) for first in range(start, stop, step)]

    def vectors(self, start: int, stop: int) -> Vectors:
        if self.mode == "exhaustive":
            return exhaustive_range(start, stop, self.fmt, self.levels)
        if self.mode == "replay":
            return load_replay(Path(self.replay or ""), self).take(slice(start, stop))
        return random_range(self.seed, start, stop, self.fmt, self.levels)

    def to_env(self) -> dict[str, str]:
        env = {
            "ROOFLINE_TOP": self.top,
            "ROOFLINE_SIM": self.sim,
            "ROOFLINE_INT_BITS": str(self.param_set.int_bits),
            "ROOFLINE_FRAC_BITS": str(self.param_set.frac_bits),
            "ROOFLINE_LEVELS": str(self.param_set.levels),
            "ROOFLINE_SEED": str(self.seed),
            "ROOFLINE_SWEEP": str(self.count),
            "ROOFLINE_MODE": self.mode,
            "ROOFLINE_SHARD": str(self.shard),
            "ROOFLINE_LANES": str(self.lanes),
            "ROOFLINE_BATCH": str(self.batch),
            "ROOFLINE_OUT_DIR": self.out_dir,
        }
        optional = {"ROOFLINE_ONLY": self.only, "ROOFLINE_REPLAY": self.replay, "ROOFLINE_RTL": self.rtl}
        env.update({name: str(value) for name, value in optional.items() if value is not None})
        return env

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> SweepConfig:
        env = dict(os.environ if env is None else env)
        only = env.get("ROOFLINE_ONLY")
        return cls(
            top=env["ROOFLINE_TOP"],
            sim=env["ROOFLINE_SIM"],
            param_set=ParamSet(int(env["ROOFLINE_INT_BITS"]), int(env["ROOFLINE_FRAC_BITS"]), int(env["ROOFLINE_LEVELS"])),
            seed=int(env["ROOFLINE_SEED"]),
            count=int(env["ROOFLINE_SWEEP"]),
            mode=env.get("ROOFLINE_MODE", "random"),
            shard=Shard.parse(env.get("ROOFLINE_SHARD")),
            lanes=int(env.get("ROOFLINE_LANES", "8")),
            batch=int(env.get("ROOFLINE_BATCH", str(DEFAULT_BATCH))),
            only=int(only) if only else None,
            replay=env.get("ROOFLINE_REPLAY") or None,
            rtl=env.get("ROOFLINE_RTL") or None,
            out_dir=env.get("ROOFLINE_OUT_DIR", "."),
        )

    def rerun_command(self, only: int | None = None) -> str:
        target = {"random": "sweep", "exhaustive": "exhaustive", "replay": "sweep"}[self.mode]
        words = [f"make {target}", f"TOP={self.top}", f"SIM={self.sim}"]
        words += [f"INT_BITS={self.param_set.int_bits}", f"FRAC_BITS={self.param_set.frac_bits}"]
        if self.hierarchy:
            words.append(f"LEVELS={self.param_set.levels}")
        if self.mode == "random":
            words += [f"SEED={self.seed}", f"N={self.count}"]
        if self.mode == "replay":
            words.append(f"REPLAY={self.replay}")
        elif only is not None:
            words.append(f"ONLY={only}")
        elif self.shard.count > 1:
            words.append(f"SHARD={self.shard}")
        if self.rtl:
            words.append(f"RTL={self.rtl}")
        return " ".join(words)


# --- the file formats the bulk testbench reads and writes ---------------------------------


def _pack(columns: NDArray[np.uint64], width: int) -> NDArray[np.uint64]:
    """Rows of `width`-bit fields, column 0 lowest, packed tight into little-endian 64-bit words."""
    rows, count = columns.shape
    by_column = np.ascontiguousarray(columns.T)  # one contiguous array per field: fast shifts
    words = np.zeros((count * width // 64 + 2, rows), dtype=np.uint64)
    for column in range(count):
        word, shift = divmod(column * width, 64)
        words[word] |= by_column[column] << U64(shift)
        if shift + width > 64:
            words[word + 1] |= by_column[column] >> U64(64 - shift)
    return np.ascontiguousarray(words.T).astype("<u8", copy=False)


def _unpack(words: NDArray[np.uint64], offset: int, width: int) -> NDArray[np.uint64]:
    """The `width`-bit field at bit `offset` of each row of little-endian 64-bit words."""
    word, shift = divmod(offset, 64)
    value = words[:, word] >> U64(shift)
    if shift + width > 64:
        value |= words[:, word + 1] << U64(64 - shift)
    return value & U64((1 << width) - 1)


def input_bytes(cfg: SweepConfig, vectors: Vectors) -> tuple[bytes, int]:
    """The input file of a batch and its beat count: LANES vectors per beat, zero-padded.

    Each lane holds ai[0..L-1], bw[0..L-1], peak from its low bits up; lane 0 is lowest.
    """
    lanes, width = cfg.lanes, cfg.fmt.width
    fields = np.concatenate([vectors.ais, vectors.bws, vectors.peak[:, None]], axis=1)
    beats = -(-len(vectors) // lanes)
    padded = np.zeros((beats * lanes, fields.shape[1]), dtype=np.uint64)
    padded[: len(vectors)] = fields
    lane_bits = fields.shape[1] * width
    if width % 8 == 0:
        # Whole-byte fields: each one's big-endian bytes, most significant field first.
        field_bytes = width // 8
        big_fields = padded[:, ::-1].astype(">u8").view(np.uint8).reshape(len(padded), -1, 8)[:, :, 8 - field_bytes:]
        per_lane = big_fields.reshape(beats, lanes, -1)[:, ::-1, :]
        return np.ascontiguousarray(per_lane).tobytes(), beats
    if lane_bits % 8 == 0:
        # Lanes are whole bytes: pack each vector on its own (contiguous, so fast), then lay
        # the lanes of a beat side by side, lane 0 last in big-endian order.
        lane_bytes = lane_bits // 8
        little = _pack(padded, width).view(np.uint8)[:, :lane_bytes]
        big = little[:, ::-1].reshape(beats, lanes, lane_bytes)[:, ::-1, :]
        return np.ascontiguousarray(big).tobytes(), beats
    per_beat = padded.reshape(beats, -1)
    beat_bytes = -(-per_beat.shape[1] * width // 8)
    little = _pack(per_beat, width).view(np.uint8)[:, :beat_bytes]
    return np.ascontiguousarray(little[:, ::-1]).tobytes(), beats  # $fread is big-endian


@dataclass(frozen=True)
class Outputs:
    cap: NDArray[np.uint64]
    mem_bound: NDArray[np.bool_]
    binding: NDArray[np.int64]
    level_caps: NDArray[np.uint64]  # (N, L); no columns for roofline_attainable


def result_fields(cfg: SweepConfig) -> list[tuple[str, int]]:
    """One lane's output fields from its low bits up, as roofline_bulk_tb packs them."""
    fields = [("cap", cfg.fmt.width), ("mem_bound", 1)]
    if cfg.hierarchy:
        fields.append(("binding", cfg.levels.bit_length()))  # $clog2(L + 1) bits
        fields += [(f"level_cap{level}", cfg.fmt.width) for level in range(cfg.levels)]
    return fields


def read_outputs(cfg: SweepConfig, data: bytes, count: int) -> Outputs:
    fields = result_fields(cfg)
    lane_width = sum(width for _, width in fields)
    beat_bytes = 4 * -(-cfg.lanes * lane_width // 32)
    beats = -(-count // cfg.lanes)
    if len(data) < beats * beat_bytes:
        raise AssertionError(f"the bulk testbench wrote {len(data) // beat_bytes} result beats; {beats} were sent")
    raw = np.zeros((beats, -(-beat_bytes // 8) * 8 + 8), dtype=np.uint8)
    raw[:, :beat_bytes] = np.frombuffer(data, dtype=np.uint8, count=beats * beat_bytes).reshape(beats, beat_bytes)
    words = raw.view("<u8")
    columns: dict[str, list[NDArray[np.uint64]]] = {name: [] for name, _ in fields}
    for lane in range(cfg.lanes):
        offset = lane * lane_width
        for name, width in fields:
            columns[name].append(_unpack(words, offset, width))
            offset += width
    values = {name: np.stack(parts, axis=1).reshape(-1)[:count] for name, parts in columns.items()}
    level_caps = (
        np.stack([values[f"level_cap{level}"] for level in range(cfg.levels)], axis=1)
        if cfg.hierarchy
        else np.zeros((count, 0), dtype=np.uint64)
    )
    binding = values["binding"].astype(np.int64) if cfg.hierarchy else np.where(values["mem_bound"] != 0, 0, 1)
    return Outputs(values["cap"], values["mem_bound"].astype(bool), binding, level_caps)


# --- checking -----------------------------------------------------------------------------


def expected_outputs(cfg: SweepConfig, vectors: Vectors) -> Outputs:
    if cfg.hierarchy:
        cap, level_caps, mem_bound, binding = vector.hierarchy(cfg.fmt, vectors.peak, vectors.bws, vectors.ais)
        return Outputs(cap, mem_bound, binding, level_caps)
    cap, mem_bound = vector.attainable(cfg.fmt, vectors.peak, vectors.bws[:, 0], vectors.ais[:, 0])
    binding = np.where(mem_bound, 0, 1).astype(np.int64)
    return Outputs(cap, mem_bound, binding, np.zeros((len(vectors), 0), dtype=np.uint64))


Wide = tuple[NDArray[np.uint64], NDArray[np.uint64]]  # a 128-bit value as (hi, lo)


def products(vectors: Vectors) -> list[Wide]:
    """ai*bw of each level at full precision, computed once for the bound and coverage checks."""
    return [vector.mul_wide(vectors.ais[:, level], vectors.bws[:, level]) for level in range(vectors.ais.shape[1])]


def outside_error_bound(fmt: QFormat, peak: NDArray[np.uint64], product: Wide, cap: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """Caps farther than half an LSB from min(peak, ai*bw), found without the model's rounding code.

    |cap - ai*bw| <= 2^-(F+1) is |cap * 2^F - ai*bw| <= 2^(F-1) on raw integers; above the
    memory roof the cap must equal peak exactly.
    """
    f = fmt.frac_bits
    product_hi, product_lo = product
    if fmt.width + f <= 63:
        # peak * 2^F and cap * 2^F fit in 63 bits, so a memory-bound product does too: the
        # whole check runs on signed 64-bit integers.
        scaled_peak = peak << U64(f)
        memory = (product_hi == 0) & (product_lo < scaled_peak)
        distance = np.abs((cap << U64(f)).astype(np.int64) - product_lo.astype(np.int64))
        return np.where(memory, distance > (1 << (f - 1)), cap != peak)
    peak_hi, peak_lo = vector.shift_left_wide(peak, f)
    memory = vector.less_wide(product_hi, product_lo, peak_hi, peak_lo)
    cap_hi, cap_lo = vector.shift_left_wide(cap, f)
    # |a - b| for 128-bit (hi, lo) pairs: subtract the smaller from the larger.
    cap_larger = ~vector.less_wide(cap_hi, cap_lo, product_hi, product_lo)
    big_hi, big_lo = np.where(cap_larger, cap_hi, product_hi), np.where(cap_larger, cap_lo, product_lo)
    small_hi, small_lo = np.where(cap_larger, product_hi, cap_hi), np.where(cap_larger, product_lo, cap_lo)
    diff_lo = big_lo - small_lo
    diff_hi = big_hi - small_hi - (big_lo < small_lo).astype(np.uint64)
    too_far = (diff_hi != 0) | (diff_lo > U64(1 << (f - 1)))
    return np.where(memory, too_far, cap != peak)


@dataclass
class BatchOutcome:
    checked: int = 0
    mismatched: int = 0
    reports: list[str] = field(default_factory=list)
    failing: Vectors | None = None
    bins: dict[str, int] = field(default_factory=dict)


def check_batch(cfg: SweepConfig, vectors: Vectors, actual: Outputs) -> BatchOutcome:
    want = expected_outputs(cfg, vectors)
    bad = (want.cap != actual.cap) | (want.mem_bound != actual.mem_bound)
    if cfg.hierarchy:
        bad |= (want.binding != actual.binding) | np.any(want.level_caps != actual.level_caps, axis=1)
    level_products = products(vectors)
    for level, product in enumerate(level_products):
        level_cap = actual.level_caps[:, level] if cfg.hierarchy else actual.cap
        bad |= outside_error_bound(cfg.fmt, vectors.peak, product, level_cap)
    rows = np.flatnonzero(bad)
    bins = coverage_bins(cfg, vectors, want, level_products)
    outcome = BatchOutcome(checked=len(vectors), mismatched=int(rows.size), bins=bins)
    if rows.size:
        outcome.failing = vectors.take(rows)
        outcome.reports = [_report(cfg, vectors, want, actual, int(row)) for row in rows[:MAX_REPORTS]]
    return outcome


def _report(cfg: SweepConfig, vectors: Vectors, want: Outputs, actual: Outputs, row: int) -> str:
    fmt = cfg.fmt
    peak, bws, ais = vectors.row(row)
    fields = [
        Field("cap_o", int(want.cap[row]), int(actual.cap[row]), "GFLOP/s"),
        Field("mem_bound_o", int(want.mem_bound[row]), int(actual.mem_bound[row])),
    ]
    if cfg.hierarchy:
        fields.append(Field("binding_o", int(want.binding[row]), int(actual.binding[row]), "index"))
        fields += [
            Field(f"level_cap_o[{level}]", int(want.level_caps[row, level]), int(actual.level_caps[row, level]), "GFLOP/s")
            for level in range(cfg.levels)
        ]
    context, _ = exact_context(fmt, peak, bws, ais)
    index = int(vectors.index[row])
    where = f"{cfg.top} [bulk {cfg.mode} vector {index}] {fmt.name}, {cfg.sim}"
    title = f"MISMATCH {where}"
    if all(f.ok for f in fields):
        title = f"ERROR BOUND {where}: an output is more than 2^-{fmt.frac_bits + 1} from the exact value"
    rerun = f"seed {cfg.seed} | rerun: {cfg.rerun_command(None if cfg.mode == 'replay' else index)}"
    return mismatch_report(title, inputs_text(fmt, peak, bws, ais), fields, context, rerun, fmt)


# --- coverage of a sweep ------------------------------------------------------------------


def coverage_bins(cfg: SweepConfig, vectors: Vectors, want: Outputs, level_products: list[Wide]) -> dict[str, int]:
    """How many vectors reached each regime the contract distinguishes."""
    fmt, f = cfg.fmt, cfg.fmt.frac_bits
    bins: dict[str, int] = {}
    half, low_mask = U64(1 << (f - 1)), U64((1 << f) - 1)
    peak_hi, peak_lo = vector.shift_left_wide(vectors.peak, f)
    for level, (hi, lo) in enumerate(level_products):
        ai, bw = vectors.ais[:, level], vectors.bws[:, level]
        lo_next = lo + U64(1)
        hi_next = hi + (lo_next < lo).astype(np.uint64)
        below = vector.less_wide(hi, lo, peak_hi, peak_lo)
        counts = {
            "memory-bound": below,
            "compute-bound": ~below,
            "ridge (ai*bw == peak)": (hi == peak_hi) & (lo == peak_lo),
            "one step below the ridge": (hi_next == peak_hi) & (lo_next == peak_lo),
            "rounding tie (memory-bound)": below & ((lo & low_mask) == half),
            "product above the format": (hi != 0) | (lo >= U64(fmt.max_raw) << U64(f)) if f < 64 else hi != 0,
            "ai or bw zero": (ai == 0) | (bw == 0),
            "peak zero": vectors.peak == 0,
        }
        for name, hits in counts.items():
            bins[name] = bins.get(name, 0) + int(np.count_nonzero(hits))
    if cfg.hierarchy:
        for level in range(cfg.levels + 1):
            bins[f"binds: {binding_text(level, cfg.levels)}"] = int(np.count_nonzero(want.binding == level))
        bins["level tie at the binding product"] = _level_ties(cfg, want, level_products)
    return bins


def _level_ties(cfg: SweepConfig, want: Outputs, level_products: list[Wide]) -> int:
    """Vectors where a later memory-bound level equals the binding level's product."""
    binding = want.binding
    ties = np.zeros(binding.size, dtype=bool)
    rows = np.arange(binding.size)
    his = np.stack([p[0] for p in level_products], axis=1)
    los = np.stack([p[1] for p in level_products], axis=1)
    bound = binding < cfg.levels
    safe = np.where(bound, binding, 0)
    best_hi, best_lo = his[rows, safe], los[rows, safe]
    for level in range(cfg.levels):
        ties |= bound & (level > binding) & (his[:, level] == best_hi) & (los[:, level] == best_lo)
    return int(np.count_nonzero(ties))


# --- failing vectors, kept for a replay -----------------------------------------------------


def save_failures(path: Path, cfg: SweepConfig, failing: Vectors) -> None:
    meta = {"top": cfg.top, "format": cfg.fmt.name, "levels": cfg.levels, "seed": cfg.seed, "mode": cfg.mode}
    np.savez_compressed(
        path, index=failing.index, peak=failing.peak, bws=failing.bws, ais=failing.ais, meta=np.array(json.dumps(meta))
    )


def load_replay(path: Path, cfg: SweepConfig) -> Vectors:
    if not path.is_file():
        raise ValueError(f"REPLAY={path}: no such file")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        if meta["top"] != cfg.top or meta["format"] != cfg.fmt.name or meta["levels"] != cfg.levels:
            raise ValueError(
                f"REPLAY={path} holds {meta['top']} vectors at {meta['format']}, {meta['levels']} level(s); "
                f"this run is {cfg.top} at {cfg.fmt.name}, {cfg.levels} level(s)"
            )
        return Vectors(data["index"], data["peak"], data["bws"], data["ais"])


# --- the batch pipeline (runs in a helper process while the simulator runs) ------------------

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


@dataclass
class SweepTotals:
    checked: int = 0
    mismatched: int = 0
    reports: list[str] = field(default_factory=list)
    failing: list[Vectors] = field(default_factory=list)
    bins: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: BatchOutcome) -> None:
        self.checked += outcome.checked
        self.mismatched += outcome.mismatched
        self.reports += outcome.reports[: MAX_REPORTS - len(self.reports)]
        if outcome.failing is not None:
            self.failing.append(outcome.failing)
        for name, hits in outcome.bins.items():
            self.bins[name] = self.bins.get(name, 0) + hits

    def coverage_lines(self) -> Iterator[str]:
        width = max((len(name) for name in self.bins), default=0)
        for name, hits in self.bins.items():
            yield f"  {name:<{width}} {hits:>12,d}{'   <-- never hit' if hits == 0 else ''}"
