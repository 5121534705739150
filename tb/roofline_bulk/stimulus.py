"""Stimulus for bulk sweeps: random blocks made by a C kernel (stimulus_kernel.c), exhaustive ranges
with numpy (no simulator imports).

A sweep is a sequence of vectors numbered 0 .. N-1, made in blocks of BLOCK vectors. Block b
of seed s is drawn from its own generator, seeded by (s, b), so any vector can be made again
from (seed, index) alone, and disjoint shards of one sweep are disjoint ranges of blocks
whose union is the whole sweep, however many machines run them. The first vectors of every
random sweep are the contract's directed edges (roofline_core.edges), the same at every seed.

Exhaustive sweeps number every combination of the raw inputs instead: vector i holds the
fields of i, ai[0] in its low bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from roofline_bulk import kernel
from roofline_core.edges import rate_edges
from roofline_core.vector_check import Vectors
from roofline_golden import QFormat

U64 = np.uint64
Array = NDArray[np.uint64]

BLOCK = 1 << 16
# The largest exhaustive sweep offered: 2^28 vectors is about four minutes on Verilator.
MAX_EXHAUSTIVE_BITS = 28

# The kinds of vector a level is built as, in the kernel's order (its KIND_SLOTS gives their shares).
KINDS = ("uniform", "log_uniform", "near_ridge", "residue", "extreme", "zero")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (SHARD=index/count, index from 0)."""

    index: int = 0
    count: int = 1

    @classmethod
    def parse(cls, text: str | None) -> Shard:
        if not text:
            return cls()
        try:
            index_text, count_text = text.split("/")
            shard = cls(int(index_text), int(count_text))
        except ValueError:
            raise ValueError(f"SHARD={text}: write it as i/n, for example SHARD=0/4") from None
        if shard.count < 1 or not 0 <= shard.index < shard.count:
            raise ValueError(f"SHARD={text}: need 0 <= i < n")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def range_of(self, total: int, unit: int) -> tuple[int, int]:
        """This shard's [start, stop) of `total` vectors, cut on multiples of `unit`."""
        units = -(-total // unit)
        first = units * self.index // self.count
        last = units * (self.index + 1) // self.count
        return min(first * unit, total), min(last * unit, total)


def random_block(seed: int, block: int, fmt: QFormat, levels: int, size: int = BLOCK) -> Vectors:
    """The first `size` vectors of block `block` of the sweep with this seed, made by the C kernel
    (stimulus_kernel.c says what each kind draws) from the generator numpy seeds with (seed, block)."""
    if fmt.width > 64:
        raise ValueError(f"{fmt.name}: bulk stimulus makes rates of at most 64 bits")
    state = np.random.PCG64(np.random.SeedSequence([seed, block])).state["state"]
    peak = np.empty(BLOCK, dtype=np.uint64)
    bws = np.empty((BLOCK, levels), dtype=np.uint64)
    ais = np.empty((BLOCK, levels), dtype=np.uint64)
    if kernel.stimulus().roofline_random_block(
        *_halves(state["state"]), *_halves(state["inc"]), fmt.width, fmt.frac_bits, _newton_steps(fmt.frac_bits), levels,
        BLOCK, *map(kernel.pointer, (peak, bws, ais)),
    ):
        raise MemoryError(f"the bulk stimulus kernel could not make a block of {BLOCK} vectors (its scratch memory)")
    if block == 0:
        _put_edges(fmt, levels, peak, bws, ais)
    index = np.arange(block * BLOCK, block * BLOCK + size, dtype=np.int64)
    return Vectors(index, peak[:size], bws[:size], ais[:size])


def _halves(value: int) -> tuple[int, int]:
    """A 128-bit generator word as (high, low) 64-bit halves."""
    return value >> 64, value & ((1 << 64) - 1)


def _newton_steps(frac_bits: int) -> int:
    """Newton steps that make an odd number's inverse right in its low F bits: each doubles the right
    bits, and the number itself is its inverse in the low 3."""
    return math.ceil(math.log2(frac_bits / 3)) if frac_bits > 3 else 0


@cache
def _edges(fmt: QFormat, levels: int) -> tuple[Array, Array, Array]:
    edges = rate_edges(fmt, levels)[:BLOCK]
    return (np.array([e.peak for e in edges], dtype=np.uint64), np.array([e.bws for e in edges], dtype=np.uint64),
            np.array([e.ais for e in edges], dtype=np.uint64))


def _put_edges(fmt: QFormat, levels: int, peak: Array, bws: Array, ais: Array) -> None:
    """The directed edges as vectors 0 .. E-1 of block 0, in place of the random ones."""
    edge_peak, edge_bws, edge_ais = _edges(fmt, levels)
    count = edge_peak.size
    peak[:count], bws[:count], ais[:count] = edge_peak, edge_bws, edge_ais


def random_range(seed: int, start: int, stop: int, fmt: QFormat, levels: int) -> Vectors:
    """Vectors start .. stop-1 of the sweep with this seed."""
    parts = []
    for block in range(start // BLOCK, -(-stop // BLOCK)):
        first = max(start - block * BLOCK, 0)
        last = min(stop - block * BLOCK, BLOCK)
        parts.append(random_block(seed, block, fmt, levels, last).take(slice(first, last)))
    if len(parts) == 1:  # a range within one block (a batch of one block): its arrays as they are
        return parts[0]
    return Vectors.concat(parts) if parts else _empty(levels)


def exhaustive_bits(fmt: QFormat, levels: int) -> int:
    return fmt.width * (1 + 2 * levels)


def exhaustive_range(start: int, stop: int, fmt: QFormat, levels: int) -> Vectors:
    """Vectors start .. stop-1 of every input combination: the index's bits are the fields."""
    index = np.arange(start, stop, dtype=np.int64)
    raw = index.astype(np.uint64)
    mask, width = U64(fmt.max_raw), U64(fmt.width)
    fields = []
    for _ in range(1 + 2 * levels):
        fields.append(raw & mask)
        raw = raw >> width
    ais = np.stack(fields[:levels], axis=1)
    bws = np.stack(fields[levels : 2 * levels], axis=1)
    return Vectors(index, fields[2 * levels], bws, ais)


def _empty(levels: int) -> Vectors:
    none = np.zeros(0, dtype=np.uint64)
    return Vectors(np.zeros(0, dtype=np.int64), none, none.reshape(0, levels), none.reshape(0, levels))
