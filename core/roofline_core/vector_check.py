"""The vectorised judge: many results at once against the vectorized golden model, an error bound
checked without the model's rounding code, and the contract's coverage bins.

The bulk sweeps (roofline_bulk) and the per-vector benches' batches (roofline_cocotb.batch) both
judge through it; it knows nothing of simulators or files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from roofline_core.scoreboard import binding_text
from roofline_golden import QFormat, vector
from roofline_golden.vector import Wide

U64 = np.uint64
Array = NDArray[np.uint64]


@dataclass(frozen=True)
class Vectors:
    """N vectors of rates: peak (N,), bws and ais (N, L); `index` numbers them in the sweep."""

    index: NDArray[np.int64]
    peak: Array
    bws: Array
    ais: Array

    def __len__(self) -> int:
        return int(self.index.size)

    def row(self, position: int) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """(peak, bws, ais) of one vector as Python ints."""
        return (
            int(self.peak[position]),
            tuple(int(v) for v in self.bws[position]),
            tuple(int(v) for v in self.ais[position]),
        )

    def take(self, where: NDArray[np.int64] | slice) -> Vectors:
        return Vectors(self.index[where], self.peak[where], self.bws[where], self.ais[where])

    @staticmethod
    def concat(parts: list[Vectors]) -> Vectors:
        return Vectors(
            np.concatenate([p.index for p in parts]),
            np.concatenate([p.peak for p in parts]),
            np.concatenate([p.bws for p in parts]),
            np.concatenate([p.ais for p in parts]),
        )


@dataclass(frozen=True)
class Outputs:
    cap: NDArray[np.uint64]
    mem_bound: NDArray[np.bool_]
    binding: NDArray[np.int64]
    level_caps: NDArray[np.uint64]  # (N, L); no columns for roofline_attainable


class Shape(Protocol):
    """What the vectorised checks need to know of the module: a SweepConfig, or a per-vector
    bench's roofline_cocotb.batch.RateBatch."""

    @property
    def fmt(self) -> QFormat: ...
    @property
    def levels(self) -> int: ...
    @property
    def hierarchy(self) -> bool: ...


def expected_outputs(cfg: Shape, vectors: Vectors, level_products: list[Wide] | None = None) -> Outputs:
    """The golden model's outputs; `level_products` (products(vectors)) saves it multiplying again."""
    if cfg.hierarchy:
        cap, level_caps, mem_bound, binding = vector.hierarchy(cfg.fmt, vectors.peak, vectors.bws, vectors.ais,
                                                               level_products)
        return Outputs(cap, mem_bound, binding, level_caps)
    cap, mem_bound = vector.attainable(cfg.fmt, vectors.peak, vectors.bws[:, 0], vectors.ais[:, 0],
                                       level_products[0] if level_products else None)
    binding = (~mem_bound).astype(np.int64)  # level 0 when memory-bound, 1 (LEVELS) when compute binds
    return Outputs(cap, mem_bound, binding, np.zeros((len(vectors), 0), dtype=np.uint64))


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


def failing(cfg: Shape, vectors: Vectors, want: Outputs, actual: Outputs, level_products: list[Wide]) -> NDArray[np.bool_]:
    """The vectors whose outputs differ from the model's or lie outside the error bound."""
    bad = (want.cap != actual.cap) | (want.mem_bound != actual.mem_bound)
    if cfg.hierarchy:
        bad |= (want.binding != actual.binding) | np.any(want.level_caps != actual.level_caps, axis=1)
    for level, product in enumerate(level_products):
        level_cap = actual.level_caps[:, level] if cfg.hierarchy else actual.cap
        bad |= outside_error_bound(cfg.fmt, vectors.peak, product, level_cap)
    return bad


def coverage_bins(cfg: Shape, vectors: Vectors, want: Outputs, level_products: list[Wide]) -> dict[str, int]:
    """How many vectors reached each regime the contract distinguishes."""
    fmt, f = cfg.fmt, cfg.fmt.frac_bits
    bins: dict[str, int] = {}
    half, low_mask = U64(1 << (f - 1)), U64((1 << f) - 1)
    for level, product in enumerate(level_products):
        ai, bw = vectors.ais[:, level], vectors.bws[:, level]
        counts = {
            **_roof_bins(fmt, vectors.peak, product),
            "ai or bw zero": (ai == 0) | (bw == 0),
        }
        counts["rounding tie (memory-bound)"] = counts["memory-bound"] & ((product[1] & low_mask) == half)
        for name in _BIN_ORDER:
            bins[name] = bins.get(name, 0) + int(np.count_nonzero(counts[name]))
    bins["peak zero"] = int(np.count_nonzero(vectors.peak == 0))  # once per vector, not per level
    if cfg.hierarchy:
        for level in range(cfg.levels + 1):
            bins[f"binds: {binding_text(level, cfg.levels)}"] = int(np.count_nonzero(want.binding == level))
        bins["level tie at the binding product"] = _level_ties(cfg, want, level_products)
    return bins


_BIN_ORDER = ("memory-bound", "compute-bound", "ridge (ai*bw == peak)", "one step below the ridge",
              "rounding tie (memory-bound)", "product above the format", "ai or bw zero")


def _roof_bins(fmt: QFormat, peak: NDArray[np.uint64], product: Wide) -> dict[str, NDArray[np.bool_]]:
    """Where one level's product ai*bw stands against peak * 2^F and the largest rate * 2^F."""
    f = fmt.frac_bits
    hi, lo = product
    if fmt.width + f <= 63:
        # peak * 2^F and the largest rate * 2^F fit 63 bits: a product at or below either has no
        # high word, and one below peak * 2^F has room for one more in its low word.
        scaled_peak = peak << U64(f)
        no_high = hi == 0
        below = no_high & (lo < scaled_peak)
        return {"memory-bound": below, "compute-bound": ~below, "ridge (ai*bw == peak)": no_high & (lo == scaled_peak),
                "one step below the ridge": below & (lo + U64(1) == scaled_peak),
                "product above the format": ~no_high | (lo > U64(fmt.max_raw << f))}
    peak_hi, peak_lo = vector.shift_left_wide(peak, f)
    top_hi, top_lo = vector.shift_left_wide(np.full(peak.size, fmt.max_raw, dtype=np.uint64), f)  # the largest rate
    lo_next = lo + U64(1)
    hi_next = hi + (lo_next < lo).astype(np.uint64)
    below = vector.less_wide(hi, lo, peak_hi, peak_lo)
    return {"memory-bound": below, "compute-bound": ~below, "ridge (ai*bw == peak)": (hi == peak_hi) & (lo == peak_lo),
            "one step below the ridge": (hi_next == peak_hi) & (lo_next == peak_lo),
            "product above the format": vector.less_wide(top_hi, top_lo, hi, lo)}


def _level_ties(cfg: Shape, want: Outputs, level_products: list[Wide]) -> int:
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
