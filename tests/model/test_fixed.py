"""Properties of the fixed-point model on seeded random vectors, and the error bound vs exact math."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from roofline_bench.stimulus import count_vectors, log_uniform, rate_vectors
from roofline_golden import QFormat, exact, fixed, vector

FORMATS = [QFormat(24, 16), QFormat(16, 12), QFormat(8, 8), QFormat(1, 1), QFormat(40, 23)]
N = 3000


def ids(fmt: QFormat) -> str:
    return fmt.name


@pytest.fixture
def rng(seed: int, request: pytest.FixtureRequest) -> random.Random:
    print(f"seed {seed} (rerun: make test SEED={seed} ARGS='-k {request.node.name}')")
    return random.Random(f"{seed}:{request.node.name}")


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_cap_within_half_an_lsb_of_exact_and_never_above_peak(fmt: QFormat, rng: random.Random) -> None:
    for v in rate_vectors(rng, fmt, 1, N):
        out = fixed.attainable(fmt, v.peak, v.bws[0], v.ais[0])
        real = exact.attainable(fmt.to_real(v.peak), fmt.to_real(v.bws[0]), fmt.to_real(v.ais[0]))
        assert abs(fmt.to_real(out.cap) - real.cap) <= fmt.lsb / 2, v
        assert out.cap <= v.peak, v
        assert out.mem_bound == real.mem_bound, v


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_cap_is_one_of_its_terms(fmt: QFormat, rng: random.Random) -> None:
    for v in rate_vectors(rng, fmt, 1, N):
        out = fixed.attainable(fmt, v.peak, v.bws[0], v.ais[0])
        memory_term = fixed.round_shift(v.ais[0] * v.bws[0], fmt.frac_bits)
        assert out.cap == (memory_term if out.mem_bound else v.peak), v


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_cap_is_monotone_in_ai_bw_and_peak(fmt: QFormat, rng: random.Random) -> None:
    for v in rate_vectors(rng, fmt, 1, N):
        peak, bw, ai = v.peak, v.bws[0], v.ais[0]
        base = fixed.attainable(fmt, peak, bw, ai).cap
        bump = lambda x: min(fmt.max_raw, x + rng.randint(1, 1 << rng.randint(0, fmt.width)))  # noqa: E731
        assert fixed.attainable(fmt, peak, bw, bump(ai)).cap >= base
        assert fixed.attainable(fmt, peak, bump(bw), ai).cap >= base
        assert fixed.attainable(fmt, bump(peak), bw, ai).cap >= base


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_adding_a_level_never_raises_the_cap(fmt: QFormat, rng: random.Random) -> None:
    for v in rate_vectors(rng, fmt, 4, N // 3):
        fewer = fixed.hierarchy(fmt, v.peak, v.bws[:3], v.ais[:3])
        more = fixed.hierarchy(fmt, v.peak, v.bws, v.ais)
        assert more.cap <= fewer.cap, v
        assert more.cap == min([v.peak, *[c for c, m in zip(more.level_caps, [
            fixed.attainable(fmt, v.peak, b, a).mem_bound for b, a in zip(v.bws, v.ais, strict=True)], strict=True) if m]]), v


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_compute_binds_at_the_ridge_and_memory_one_step_below(fmt: QFormat, rng: random.Random) -> None:
    for _ in range(N // 3):
        ai = log_uniform(rng, fmt.width // 2) | 1
        bw = log_uniform(rng, fmt.width // 2) << fmt.frac_bits
        ridge_peak = (ai * bw) >> fmt.frac_bits
        if ridge_peak > fmt.max_raw or ridge_peak == 0:
            continue
        assert fixed.attainable(fmt, ridge_peak, bw, ai) == fixed.AttainableOut(ridge_peak, False)
        if ai > 1:
            below = fixed.attainable(fmt, ridge_peak, bw, ai - 1)
            assert below.mem_bound and below.cap < ridge_peak


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_hierarchy_binding_is_the_lowest_memory_bound_product_first_index_on_ties(
    fmt: QFormat, rng: random.Random
) -> None:
    for v in rate_vectors(rng, fmt, 3, N // 3):
        out = fixed.hierarchy(fmt, v.peak, v.bws, v.ais)
        products = [a * b for a, b in zip(v.ais, v.bws, strict=True)]
        below = [i for i, p in enumerate(products) if p < v.peak << fmt.frac_bits]
        expected = min(below, key=lambda i: (products[i], i)) if below else 3
        assert out.binding == expected, v


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_intensity_within_half_an_lsb_or_saturated(fmt: QFormat, rng: random.Random) -> None:
    count_bits = 48
    for v in count_vectors(rng, fmt, count_bits, N):
        out = fixed.intensity(fmt, count_bits, v.ops, v.bytes)
        real = exact.intensity(v.ops, v.bytes)
        if real is None:
            assert out == fixed.IntensityOut(fmt.max_raw, True, True)
        elif real + fmt.lsb / 2 >= 2**fmt.int_bits:  # rounds to 2^W or beyond
            assert out == fixed.IntensityOut(fmt.max_raw, True, False), v
        else:
            assert not out.sat and abs(fmt.to_real(out.ai) - real) <= fmt.lsb / 2, v


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f.width <= 63], ids=ids)
def test_vectorized_model_is_bit_exact_with_the_scalar_model(fmt: QFormat, rng: random.Random) -> None:
    vs = rate_vectors(rng, fmt, 3, N)
    peak = np.array([v.peak for v in vs], dtype=np.uint64)
    bws = np.array([v.bws for v in vs], dtype=np.uint64)
    ais = np.array([v.ais for v in vs], dtype=np.uint64)
    cap, level_caps, mem_bound, binding = vector.hierarchy(fmt, peak, bws, ais)
    for i, v in enumerate(vs):
        want = fixed.hierarchy(fmt, v.peak, v.bws, v.ais)
        got = (int(cap[i]), tuple(int(c) for c in level_caps[i]), bool(mem_bound[i]), int(binding[i]))
        assert got == (want.cap, want.level_caps, want.mem_bound, want.binding), v
    for count_bits in (16, 48, 64):
        cvs = count_vectors(rng, fmt, count_bits, N)
        ai, sat, div0 = vector.intensity(fmt, count_bits, [c.ops for c in cvs], [c.bytes for c in cvs])
        for i, c in enumerate(cvs):
            want = fixed.intensity(fmt, count_bits, c.ops, c.bytes)
            assert (int(ai[i]), bool(sat[i]), bool(div0[i])) == (want.ai, want.sat, want.div0), c


def test_vectorized_model_refuses_formats_wider_than_uint64() -> None:
    with pytest.raises(ValueError, match="W <= 63"):
        vector.attainable(QFormat(48, 16), [0], [0], [0])


def test_model_rejects_raw_values_outside_the_format() -> None:
    fmt = QFormat(8, 8)
    with pytest.raises(ValueError, match="does not fit UQ8.8"):
        fixed.attainable(fmt, 1 << 16, 0, 0)
    with pytest.raises(ValueError, match="does not fit 16 bits"):
        fixed.intensity(fmt, 16, 1 << 16, 1)


def test_wide_multiply_is_exact_over_the_whole_uint64_range(rng: random.Random) -> None:
    corners = [0, 1, (1 << 32) - 1, 1 << 32, (1 << 63), (1 << 64) - 1]
    a = corners + [rng.getrandbits(64) for _ in range(2000)] + [rng.getrandbits(rng.randint(1, 64)) for _ in range(2000)]
    b = list(reversed(corners)) + [rng.getrandbits(64) for _ in range(4000)]
    hi, lo = vector.mul_wide(np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64))
    for x, y, h, low in zip(a, b, hi, lo, strict=True):
        assert (int(h) << 64) | int(low) == x * y


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_counts_placement_rounds_once_and_binds_the_lowest_exact_level(fmt: QFormat, rng: random.Random) -> None:
    count_bits, levels = 48, 3
    for _ in range(N):
        peak = log_uniform(rng, fmt.width)
        ops = log_uniform(rng, count_bits)
        bws = [log_uniform(rng, fmt.width) for _ in range(levels)]
        moved = [0 if rng.random() < 0.1 else log_uniform(rng, count_bits) for _ in range(levels)]
        out = fixed.counts_hierarchy(fmt, count_bits, peak, bws, ops, moved)
        real_peak = fmt.to_real(peak)
        reals = [real_peak if b == 0 else Fraction(ops) * fmt.to_real(bw) / b for bw, b in zip(bws, moved, strict=True)]
        for level, real in enumerate(reals):
            assert abs(fmt.to_real(out.level_caps[level]) - min(real_peak, real)) <= fmt.lsb / 2
            assert out.level_caps[level] <= peak
        bound = [i for i, real in enumerate(reals) if moved[i] and real < real_peak]
        expected = min(bound, key=lambda i: (reals[i], i)) if bound else levels
        assert out.binding == expected and out.mem_bound == bool(bound)
        assert out.cap == (out.level_caps[expected] if bound else peak)
