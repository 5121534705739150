"""The vectorised check (roofline_core.vector_check) applies its error bound itself: a cap outside it, a
wrong verdict at the ridge, the 64- and 128-bit paths; its coverage bins against integers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from roofline_core import vector_check as bulk_judge
from roofline_golden import QFormat


def test_the_bulk_checker_flags_a_cap_outside_the_bound_even_when_the_model_agrees() -> None:
    """UQ8.8, one level: peak 100, ai 1 FLOP/B, bw 2 B/cycle, so the cap is min(100, 1 x 2) = 2.0
    (raw 512). A model and a design that both say 514 (two LSBs off, beyond half an LSB) agree with
    each other: only the error bound, checked without the model, catches it. 512 passes."""
    cfg = bulk_judge_shape()
    one = np.array([1 << 8], dtype=np.uint64)
    vectors = bulk_judge.Vectors(np.array([0]), np.array([100 << 8], dtype=np.uint64), 2 * one[:, None], one[:, None])
    products = bulk_judge.products(vectors)
    for raw, bad in ((514, True), (513, True), (512, False)):
        cap = np.array([raw], dtype=np.uint64)
        outputs = bulk_judge.Outputs(cap, np.array([True]), np.array([0]), np.zeros((1, 0), dtype=np.uint64))
        assert bool(bulk_judge.failing(cfg, vectors, outputs, outputs, products)[0]) is bad, raw


@dataclass(frozen=True)
class Shape:
    fmt: QFormat = QFormat(8, 8)
    levels: int = 1
    hierarchy: bool = False


def bulk_judge_shape(fmt: QFormat | None = None, levels: int = 1) -> Shape:
    return Shape(fmt or QFormat(8, 8), levels)


def test_the_64_bit_path_is_not_taken_where_a_scaled_cap_can_pass_2_to_the_63() -> None:
    """UQ32.16 (48 bits; 48 + 16 = 64): ai 2^32 raw x bw 2^31 raw is 2^63, memory-bound under the
    largest peak, so the cap is 2^63 / 2^16 = 2^47 raw. A cap of 0 is 2^47 LSBs away: outside the
    bound, whatever a signed 64-bit subtraction would make of it."""
    fmt = QFormat(32, 16)
    product = (np.array([0], dtype=np.uint64), np.array([1 << 63], dtype=np.uint64))
    peak = np.array([fmt.max_raw], dtype=np.uint64)
    for cap, outside in ((0, True), (1, True), (1 << 47, False)):
        assert bool(bulk_judge.outside_error_bound(fmt, peak, product, np.array([cap], dtype=np.uint64))[0]) is outside, cap


def test_the_128_bit_distance_borrows_across_the_low_word() -> None:
    """UQ40.23: ai (2^32 - 1) x bw (2^32 + 1) = 2^64 - 1 raw, so the cap is (2^64 - 1) / 2^23 =
    2^41 - 2^-23, which rounds to 2^41 raw: its scaled value 2^64 is one above the product, across
    the low word. 2^41 + 1 and 2^41 - 1 are a whole LSB away."""
    fmt = QFormat(40, 23)
    product = (np.array([0], dtype=np.uint64), np.array([(1 << 64) - 1], dtype=np.uint64))
    peak = np.array([fmt.max_raw], dtype=np.uint64)
    for cap, outside in ((1 << 41, False), ((1 << 41) + 1, True), ((1 << 41) - 1, True)):
        assert bool(bulk_judge.outside_error_bound(fmt, peak, product, np.array([cap], dtype=np.uint64))[0]) is outside, cap


def test_the_bulk_checker_flags_a_wrong_verdict_at_the_ridge_where_the_cap_is_right() -> None:
    """UQ8.8: peak 2, ai 1 FLOP/B, bw 2 B/cycle: ai*bw == peak, the ridge, where the spec has the
    compute roof bind (mem_bound 0) and the cap is 2.0 either way (raw 512). A design that says
    memory-bound there has the right cap, inside the bound: only the verdict's comparison flags it."""
    cfg = bulk_judge_shape()
    one = np.array([1 << 8], dtype=np.uint64)
    vectors = bulk_judge.Vectors(np.array([0]), np.array([2 << 8], dtype=np.uint64), 2 * one[:, None], one[:, None])
    cap, no_levels = np.array([512], dtype=np.uint64), np.zeros((1, 0), dtype=np.uint64)
    want = bulk_judge.Outputs(cap, np.array([False]), np.array([1]), no_levels)
    for mem_bound, bad in ((True, True), (False, False)):
        actual = bulk_judge.Outputs(cap, np.array([mem_bound]), np.array([1]), no_levels)
        assert bool(bulk_judge.failing(cfg, vectors, want, actual, bulk_judge.products(vectors))[0]) is bad, mem_bound


@pytest.mark.parametrize("fmt", [QFormat(8, 8), QFormat(40, 23)], ids=["64-bit path", "128-bit path"])
def test_the_error_bound_admits_half_an_lsb_and_refuses_one_step_more(fmt: QFormat) -> None:
    """The contract's |cap - ai*bw| <= 2^-(F+1), at it and one full-precision step either side: a product
    on a rounding tie is half an LSB from both its neighbours (both inside); one step off the tie, the
    farther neighbour is outside."""
    f = fmt.frac_bits
    peak = np.array([fmt.max_raw], dtype=np.uint64)
    base = 5 << f

    def outside(product: int, cap: int) -> bool:
        wide = (np.array([product >> 64], dtype=np.uint64), np.array([product & ((1 << 64) - 1)], dtype=np.uint64))
        return bool(bulk_judge.outside_error_bound(fmt, peak, wide, np.array([cap], dtype=np.uint64))[0])

    tie = base + (1 << (f - 1))
    assert not outside(tie, 5) and not outside(tie, 6)
    assert outside(tie + 1, 5) and not outside(tie + 1, 6)
    assert not outside(tie - 1, 5) and outside(tie - 1, 6)


def counted(fmt: QFormat, vectors: bulk_judge.Vectors) -> dict[str, int]:
    """The roof's coverage bins counted on Python integers, one vector and level at a time."""
    f, bins = fmt.frac_bits, dict.fromkeys(ROOF_BINS, 0)
    for position in range(len(vectors)):
        peak, bws, ais = vectors.row(position)
        for bw, ai in zip(bws, ais, strict=True):
            product, scaled = ai * bw, peak << f
            hits = {"memory-bound": product < scaled, "compute-bound": product >= scaled,
                    "ridge (ai*bw == peak)": product == scaled, "one step below the ridge": product + 1 == scaled,
                    "rounding tie (memory-bound)": product < scaled and product % (1 << f) == 1 << (f - 1),
                    "product above the format": product > fmt.max_raw << f, "ai or bw zero": ai == 0 or bw == 0}
            for name, hit in hits.items():
                bins[name] += hit
        bins["peak zero"] += peak == 0
    return bins


ROOF_BINS = ("memory-bound", "compute-bound", "ridge (ai*bw == peak)", "one step below the ridge",
             "rounding tie (memory-bound)", "product above the format", "ai or bw zero", "peak zero")


@pytest.mark.parametrize("fmt", [QFormat(24, 16), QFormat(40, 23)], ids=["64-bit path", "128-bit path"])
def test_the_coverage_bins_count_what_integers_count_on_the_ridge_the_tie_and_a_full_low_word(fmt: QFormat) -> None:
    """Random vectors and the corners: on the ridge and one step either side, a tie, zeros, the largest
    rates, ai*bw = 2^64 - 1 (its low word full, no high word) against peak 0 and peak 1, and products
    past 2^64 whose low word alone is below peak * 2^F."""
    from roofline_bulk.stimulus import random_block

    f, top = fmt.frac_bits, fmt.max_raw
    corners = [(0, (0, 0), (0, 0)), (top, (top, top), (top, top)), (1, (1 << f, (1 << 32) - 1), (1 << f, (1 << 32) + 1)),
               (0, ((1 << 32) - 1, 1), ((1 << 32) + 1, 0)), (5, (5 << f, 1), (1, (5 << f) - 1)),
               (5, ((5 << f) + 1, 3 << (f - 1)), (1, 1)), (7, (1 << f, 7), (7, 1 << f)),
               (1, (1 << 32, 1 << 33), (1 << 32, (1 << 31) + 1))]  # 2^64 and 2^64 + 2^33: a high word, a low one below peak
    peak = np.array([c[0] for c in corners], dtype=np.uint64)
    bws = np.array([c[1] for c in corners], dtype=np.uint64)
    ais = np.array([c[2] for c in corners], dtype=np.uint64)
    edges = bulk_judge.Vectors(np.arange(len(corners)), peak, bws, ais)
    drawn = random_block(3, 1, fmt, 2, 4000)
    for vectors in (edges, drawn):
        cfg = bulk_judge_shape(fmt, levels=2)
        want = bulk_judge.expected_outputs(cfg, vectors)
        assert bulk_judge.coverage_bins(cfg, vectors, want, bulk_judge.products(vectors)) == counted(fmt, vectors)
